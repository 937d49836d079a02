package io.podfall.cli.analysis;

import io.podfall.cli.analysis.Check.Finding;
import io.podfall.cli.analysis.Check.Level;
import io.podfall.cli.analysis.TerminatingPods.Terminating;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code terminating-on-unreachable-node}: a pod that was Terminating on a node nobody heard from (its Ready condition
 * Unknown: the node lifecycle controller's verdict on a node whose kubelet stopped heartbeating) or on a node that was
 * deleted. Only the kubelet finishes a graceful deletion, so such a pod stays Terminating until its node comes back or
 * someone removes it by force: the pod garbage collector once the node has the
 * {@code node.kubernetes.io/out-of-service} taint or is gone, or a user's {@code --force --grace-period=0}. A warning
 * per pod, with how long it was stuck and what ended it.
 */
final class TerminatingOnUnreachableNode implements Consumer<Event> {
    private final TerminatingPods terminating;
    /** When each unreachable node became so (Ready Unknown, or removed), by name. */
    private final Map<String, Instant> unreachable = new HashMap<>();
    /** Each deletion request's source, by id: who removed a stuck pod. */
    private final Map<String, String> deleters = new HashMap<>();

    private final Map<String, Stuck> open = new LinkedHashMap<>();
    private final List<Stuck> stuck = new ArrayList<>();

    private static final class Stuck {
        final Terminating pod;
        final Instant since;
        final List<String> eventIds = new ArrayList<>();
        Instant until;
        String end;

        Stuck(Terminating pod, Instant since) {
            this.pod = pod;
            this.since = since;
            eventIds.add(pod.eventId());
        }
    }

    /** @param terminating the pods terminating on nodes, folded before each event reaches this */
    TerminatingOnUnreachableNode(TerminatingPods terminating) {
        this.terminating = terminating;
    }

    @Override
    public void accept(Event e) {
        if (e.is(EventTypes.DELETION_REQUESTED)) {
            deleters.put(e.id(), e.source());
        } else if (EventTypes.OBJECT_CHANGES.contains(e.type())
                && ResourceType.NODES.plural().equals(e.data().path("resource").asText())) {
            nodeChanged(e);
        } else if (TerminatingPods.isPodFact(e)) {
            podChanged(e);
        }
    }

    private void nodeChanged(Event e) {
        String node = e.subject().substring((ResourceType.NODES.plural() + "/").length());
        boolean lost = e.is(EventTypes.OBJECT_REMOVED)
                || "Unknown"
                        .equals(KubeObject.of(e)
                                .condition("Ready")
                                .path("status")
                                .asText());
        if (lost) {
            unreachable.putIfAbsent(node, e.time());
            terminating.now().stream()
                    .filter(t -> t.node().equals(node) && !open.containsKey(t.uid()))
                    .forEach(t -> open(t, e));
        } else if (unreachable.remove(node) != null) {
            open.values().removeIf(s -> {
                boolean back = s.pod.node().equals(node);
                if (back) {
                    close(
                            s,
                            e,
                            node + " came back (Ready "
                                    + KubeObject.of(e)
                                            .condition("Ready")
                                            .path("status")
                                            .asText() + ")");
                }
                return back;
            });
        }
    }

    private void podChanged(Event e) {
        KubeObject pod = KubeObject.of(e);
        Stuck s = open.get(pod.uid());
        if (s != null && e.is(EventTypes.OBJECT_REMOVED)) {
            // a terminal phase ends nothing here: PodGC writes Failed right before its force delete
            open.remove(pod.uid());
            String by = deleters.get(e.causationId());
            close(s, e, "removed" + (by == null ? "" : " by a delete from " + by));
        } else if (s == null && terminating.contains(pod.uid())) {
            pod.nodeName()
                    .filter(unreachable::containsKey)
                    .ifPresent(node -> terminating.now().stream()
                            .filter(t -> t.uid().equals(pod.uid()))
                            .findFirst()
                            .ifPresent(t -> open(t, e)));
        }
    }

    private void open(Terminating pod, Event e) {
        Stuck s = new Stuck(pod, e.time());
        if (!e.id().equals(pod.eventId())) {
            s.eventIds.add(e.id());
        }
        open.put(pod.uid(), s);
        stuck.add(s);
    }

    private static void close(Stuck s, Event e, String end) {
        s.until = e.time();
        s.end = end;
        s.eventIds.add(e.id());
    }

    /** How long each pod was stuck, to what ended it or to {@code end}. */
    List<Duration> durations(Instant end) {
        return stuck.stream()
                .map(s -> Duration.between(s.since, s.until != null ? s.until : end))
                .toList();
    }

    List<Finding> findings(Instant end) {
        return stuck.stream()
                .map(s -> new Finding(
                        Level.WARNING,
                        "terminating-on-unreachable-node",
                        s.pod.subject(),
                        String.format(
                                "Terminating %d ms on %s while the node was unreachable or gone; %s",
                                Duration.between(s.since, s.until != null ? s.until : end)
                                        .toMillis(),
                                s.pod.node(),
                                s.end == null ? "still Terminating at the end of the log" : s.end),
                        List.copyOf(s.eventIds)))
                .toList();
    }
}
