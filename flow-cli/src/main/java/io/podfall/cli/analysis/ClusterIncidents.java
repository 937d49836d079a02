package io.podfall.cli.analysis;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.cli.analysis.Check.Finding;
import io.podfall.cli.analysis.Stats.Summary;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The cluster's share of deletion incidents, read from a log in one pass: pods Pending for lack of room while others
 * were Terminating ({@link PendingWhileTerminating}), evictions a disruption budget refused ({@link EvictionsRefused}),
 * pods stuck Terminating on an unreachable node ({@link TerminatingOnUnreachableNode}). {@code check} reports each as a
 * finding, {@code stats} counts them.
 */
public final class ClusterIncidents implements Consumer<Event> {
    private final TerminatingPods terminating = new TerminatingPods();
    private final PendingWhileTerminating pending = new PendingWhileTerminating(terminating);
    private final EvictionsRefused evictions = new EvictionsRefused();
    private final TerminatingOnUnreachableNode unreachable = new TerminatingOnUnreachableNode(terminating);
    private Instant end = Instant.EPOCH;

    /** The figures {@code stats} prints; durations in milliseconds. */
    public record Figures(
            Summary pendingWhileTerminating,
            int evictionsRefused,
            int podsRefused,
            Summary evictedAfterRefusal,
            Summary terminatingOnUnreachableNode) {
        boolean any() {
            return pendingWhileTerminating.n() + evictionsRefused + terminatingOnUnreachableNode.n() > 0;
        }

        String render() {
            if (!any()) {
                return "";
            }
            return String.format(
                    "pending for lack of room while pods were Terminating: %s%n"
                            + "evictions refused by a disruption budget: %d (%d pods; evicted later: %s)%n"
                            + "Terminating on an unreachable or deleted node: %s%n",
                    pods(pendingWhileTerminating),
                    evictionsRefused,
                    podsRefused,
                    pods(evictedAfterRefusal),
                    pods(terminatingOnUnreachableNode));
        }

        private static String pods(Summary s) {
            return s.n() == 0 ? "0 pods" : s.n() + " pods, p50 " + s.p50() + " ms, max " + s.max() + " ms";
        }

        ObjectNode json() {
            ObjectNode o = Json.MAPPER.createObjectNode();
            o.set("pendingWhileTerminating", Json.tree(pendingWhileTerminating));
            o.put("evictionsRefused", evictionsRefused);
            o.put("podsRefused", podsRefused);
            o.set("evictedAfterRefusal", Json.tree(evictedAfterRefusal));
            o.set("terminatingOnUnreachableNode", Json.tree(terminatingOnUnreachableNode));
            return o;
        }
    }

    public static List<Finding> of(List<Event> log) {
        ClusterIncidents incidents = new ClusterIncidents();
        log.forEach(incidents);
        return incidents.findings();
    }

    @Override
    public void accept(Event e) {
        if (e.time().isAfter(end)) {
            end = e.time();
        }
        terminating.accept(e);
        pending.accept(e);
        evictions.accept(e);
        unreachable.accept(e);
    }

    /** Every finding, open incidents measured to the latest time read. */
    public List<Finding> findings() {
        List<Finding> out = new ArrayList<>(pending.findings(end));
        out.addAll(evictions.findings());
        out.addAll(unreachable.findings(end));
        return out;
    }

    public Figures figures() {
        return new Figures(
                summary(pending.durations(end)),
                evictions.refusals(),
                evictions.pods(),
                summary(evictions.waits()),
                summary(unreachable.durations(end)));
    }

    private static Summary summary(List<Duration> durations) {
        return Summary.of(durations.stream().map(Duration::toMillis).toList());
    }
}
