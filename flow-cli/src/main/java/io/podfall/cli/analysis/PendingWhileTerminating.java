package io.podfall.cli.analysis;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.cli.analysis.Check.Finding;
import io.podfall.cli.analysis.Check.Level;
import io.podfall.cli.analysis.TerminatingPods.Terminating;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code pending-while-terminating}: a pod the scheduler could not place for lack of room ("Insufficient cpu",
 * "Insufficient memory", "Too many pods" in its PodScheduled condition) while other pods were Terminating on the nodes.
 * Terminating pods keep their requests on their node until they are gone (the scheduler's cache drops a pod only when
 * it is removed or terminal), so a rollout on a full cluster waits for the old pods' graceful shutdown: the replacement
 * stays Pending for the old pod's whole grace period. A warning per wait, naming the pods that were Terminating, with
 * how long the pod waited and what ended the wait.
 */
final class PendingWhileTerminating implements Consumer<Event> {
    /** The FitError reasons of NodeResourcesFit: the node had no room for the pod's requests. */
    private static final List<String> LACK_OF_ROOM = List.of("Insufficient ", "Too many pods");

    private final TerminatingPods terminating;
    private final Map<String, Wait> open = new LinkedHashMap<>();
    private final List<Wait> waits = new ArrayList<>();

    private static final class Wait {
        final String subject;
        final Instant since;
        final String message;
        final List<String> eventIds = new ArrayList<>();
        /** The pods that were Terminating while it waited, by uid. */
        final Map<String, Terminating> meanwhile = new LinkedHashMap<>();

        Instant until;
        String boundTo;

        Wait(Event e, String message) {
            subject = e.subject();
            since = e.time();
            this.message = message;
            eventIds.add(e.id());
        }
    }

    /** @param terminating the pods terminating on nodes, folded before each event reaches this */
    PendingWhileTerminating(TerminatingPods terminating) {
        this.terminating = terminating;
    }

    @Override
    public void accept(Event e) {
        if (!TerminatingPods.isPodFact(e)) {
            return;
        }
        KubeObject pod = KubeObject.of(e);
        Wait wait = open.get(pod.uid());
        if (wait != null && (e.is(EventTypes.OBJECT_REMOVED) || pod.nodeName().isPresent())) {
            wait.until = e.time();
            wait.boundTo =
                    e.is(EventTypes.OBJECT_REMOVED) ? null : pod.nodeName().get();
            wait.eventIds.add(e.id());
            open.remove(pod.uid());
            return;
        }
        JsonNode scheduled = pod.condition("PodScheduled");
        String message = scheduled.path("message").asText();
        if (pod.nodeName().isPresent()
                || pod.terminating()
                || !"Unschedulable".equals(scheduled.path("reason").asText())
                || LACK_OF_ROOM.stream().noneMatch(message::contains)) {
            return;
        }
        if (wait == null && !terminating.now().isEmpty()) {
            wait = new Wait(e, message);
            open.put(pod.uid(), wait);
            waits.add(wait);
        }
        if (wait != null) {
            for (Terminating t : terminating.now()) {
                if (wait.meanwhile.putIfAbsent(t.uid(), t) == null) {
                    wait.eventIds.add(t.eventId());
                }
            }
        }
    }

    /** How long each wait lasted, to its end or to {@code end} for a pod still Pending. */
    List<Duration> durations(Instant end) {
        return waits.stream()
                .map(w -> Duration.between(w.since, w.until != null ? w.until : end))
                .toList();
    }

    List<Finding> findings(Instant end) {
        List<Finding> out = new ArrayList<>();
        for (Wait w : waits) {
            List<String> names = w.meanwhile.values().stream()
                    .map(t -> TerminatingPods.pod(t.subject()) + " on " + t.node())
                    .toList();
            String outcome = w.until == null
                    ? "still Pending at the end of the log"
                    : w.boundTo == null ? "removed before it was placed" : "then bound to " + w.boundTo;
            out.add(new Finding(
                    Level.WARNING,
                    "pending-while-terminating",
                    w.subject,
                    String.format(
                            "Pending %d ms for lack of room (\"%s\") while %d pod(s) were Terminating: %s; %s",
                            Duration.between(w.since, w.until != null ? w.until : end)
                                    .toMillis(),
                            w.message,
                            names.size(),
                            String.join(", ", names),
                            outcome),
                    List.copyOf(w.eventIds)));
        }
        return out;
    }
}
