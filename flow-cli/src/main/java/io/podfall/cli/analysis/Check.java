package io.podfall.cli.analysis;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The invariants of pod deletion, checked over a whole log. Each finding names the events that prove it, so it can be
 * looked up on the topic ({@code kcat}) or in an export. Each family of invariants is a class of its own; this runs
 * them in a fixed order and collects what they find.
 */
public final class Check {
    /** How long after a flow's last step (or its deadline) a log must go on before a stalled flow is an error. */
    static final Duration STALL = Duration.ofSeconds(30);
    /** How long finalizers may keep an object after its final delete before {@code finalizer-blocking} warns. */
    public static final Duration FINALIZER_THRESHOLD = Duration.ofSeconds(30);

    public enum Level {
        ERROR,
        WARNING,
        /** Nothing wrong: what a rule found worth knowing (a race the log shows did no harm). */
        NOTE
    }

    public record Finding(Level level, String rule, String subject, String message, List<String> eventIds) {
        public String render() {
            return level + " " + rule + " " + subject + ": " + message + " [events " + String.join(", ", eventIds)
                    + "]";
        }
    }

    private Check() {}

    public static List<Finding> of(List<Event> log) {
        return of(log, FINALIZER_THRESHOLD);
    }

    /** Every rule over the log; {@code finalizerThreshold} is how long finalizers may hold an object. */
    public static List<Finding> of(List<Event> log, Duration finalizerThreshold) {
        List<Finding> findings = new ArrayList<>();
        findings.addAll(RemovedWhileRunning.of(log));
        findings.addAll(KilledBeforeGrace.of(log));
        findings.addAll(KilledThoughExiting.of(log));
        findings.addAll(InEndpointsAfterSigterm.of(log));
        findings.addAll(DeletionIncomplete.of(log));
        findings.addAll(FinalizerBlocking.of(log, finalizerThreshold));
        findings.addAll(Leaks.ips(log));
        findings.addAll(Leaks.volumes(log));
        findings.addAll(DuplicateSideEffects.of(log));
        findings.addAll(ClusterIncidents.of(log));
        return findings;
    }

    public static boolean hasErrors(List<Finding> findings) {
        return findings.stream().anyMatch(f -> f.level() == Level.ERROR);
    }

    public static ArrayNode json(List<Finding> findings) {
        ArrayNode a = Json.MAPPER.createArrayNode();
        findings.forEach(f -> a.add(Json.tree(f)));
        return a;
    }

    /** The time the log reaches: its latest event's. */
    static Instant end(List<Event> log) {
        return log.stream().map(Event::time).max(Instant::compareTo).orElse(Instant.EPOCH);
    }

    /**
     * Whether what should follow {@code settled} may simply not be on the log yet: it ends less than {@link #STALL}
     * after it. Such a finding is a warning, not an error.
     */
    static boolean mayStillCome(Instant end, Instant settled) {
        return end.isBefore(settled.plus(STALL));
    }

    /** A container's identity on the runtime's events: its id, or its name where an event lacks the id. */
    static String container(String containerId, String containerName) {
        return containerId != null ? containerId : containerName;
    }
}
