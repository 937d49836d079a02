package io.podfall.replay;

import static io.podfall.model.event.EventTypes.CONTAINER_SIGNALLED;
import static io.podfall.replay.Scenarios.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.kubelet.podworkers.Compat;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReplayTest {
    private static final Duration TOLERANCE = Duration.ofMillis(100);

    @Test
    void aLogWhoseEveryHopTookAFewMillisecondsReproducesWithinTheTolerance() {
        List<Event> live = withLatency(
                Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log(), Duration.ofMillis(3));

        Replay replay = Replay.of(live, TOLERANCE);

        assertEquals(List.of(), replay.divergences());
        assertTrue(replay.reproduces());
        assertEquals(live.size(), replay.replayed().size());
        Replay zero = Replay.of(live, Replay.start(live), null, Duration.ofMillis(1), Settings.NONE, Latency.ZERO);
        assertFalse(zero.divergences().isEmpty(), "3 ms per hop is more than 1 ms");
        assertTrue(
                zero.reproduces(),
                "but every step came in its recorded place: "
                        + zero.divergences().stream()
                                .filter(Divergences.Divergence::counts)
                                .toList());
    }

    @Test
    void aRecordingOfProbesReproducesTheirRunsKillsAndReadiness() {
        List<Event> live = withLatency(
                Scenarios.run(Scenarios.node1(), Scenarios.probedPodCrashLoopsThenIsDeleted())
                        .log(),
                Duration.ofMillis(3));
        assertTrue(
                live.stream()
                                .filter(e -> e.is(EventTypes.CONTAINER_PROBE_FAILED))
                                .count()
                        >= 2,
                "it crash-looped on its liveness probe");

        Replay replay = Replay.of(live, TOLERANCE);

        assertEquals(List.of(), replay.divergences());
        assertTrue(replay.reproduces());
        assertEquals(live.size(), replay.replayed().size());
    }

    /**
     * A recording with some flows cut out (one pod's, as a scenario is cut out of a shared topic) took revisions the
     * folded API server never counts; the kubelet saw them on its Lease and Node. Replayed over more than one renewal
     * interval, each renewal must still come after what the kubelet saw, or it takes it as old news and renews no more.
     */
    @Test
    void aLogWithFlowsCutOutKeepsRenewingTheLeaseInAWindowOfSeveralIntervals() {
        Set<String> cut = Set.of("00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000003");
        List<Event> recorded = Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log().stream()
                .filter(e -> !cut.contains(e.correlationId()))
                .toList();

        Replay replay = Replay.of(recorded, T0.plusSeconds(100), T0.plusSeconds(160), TOLERANCE);

        assertEquals(List.of(), replay.divergences());
        assertEquals(
                6,
                replay.replayed().stream()
                        .filter(e -> e.is(io.podfall.model.event.EventTypes.UPDATE_REQUESTED)
                                && e.subject().equals("namespaces/kube-node-lease/leases/node-1"))
                        .count(),
                "a renewal every 10 s");
    }

    @Test
    void aLogRecordedWithACompatSwitchReproducesWithIt() {
        List<Event> recorded = Scenarios.run(
                        List.of(new Engine.KubeletSettings(List.of("node-1"), new Compat(false, true))),
                        List.of(
                                new Input.ApiServerStart(T0),
                                new Input.KubeletStart(0, T0),
                                Scenarios.create(1, T0.plusSeconds(1), "stubborn", "podfall.io/on-sigterm", "ignore"),
                                Scenarios.delete(2, T0.plusSeconds(10), "stubborn", 0)))
                .log();

        assertEquals(List.of(), Replay.of(recorded, TOLERANCE).divergences());
    }

    @Test
    void untilStopsTheReplayAndTheComparisonThere() {
        List<Event> recorded =
                Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log();
        Instant beforeKill = T0.plusSeconds(12);

        Replay replay = Replay.of(recorded, Replay.start(recorded), beforeKill, TOLERANCE);

        assertTrue(replay.reproduces());
        assertTrue(replay.replayed().stream().noneMatch(e -> e.time().isAfter(beforeKill)));
        assertEquals(
                List.of("SIGTERM", "SIGTERM"),
                replay.replayed().stream()
                        .filter(e -> e.is(CONTAINER_SIGNALLED))
                        .map(e -> e.data().path("signal").asText())
                        .toList(),
                "the SIGKILL at 15 s is not yet due");
    }

    @Test
    void sinceReplaysFromTheStateTheRecordingLedToWithTheTimersThenPending() {
        List<Event> recorded =
                Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log();
        Instant midGrace = T0.plusSeconds(12);

        Replay replay = Replay.of(recorded, midGrace, Replay.end(recorded), TOLERANCE);

        assertEquals(List.of(), replay.divergences());
        assertTrue(replay.recording().inputs().isEmpty(), "every request came before");
        assertEquals(
                recorded.stream().filter(e -> !e.time().isBefore(midGrace)).toList(),
                replay.replayed(),
                "the kill the runtime had scheduled, and all it led to");
        assertTrue(replay.replayed().get(0).is(CONTAINER_SIGNALLED));
    }

    @Test
    void aRecordingThatKilledLaterThanTheReplayDoesIsATimingDivergenceOfThatStep() {
        List<Event> recorded = new ArrayList<>(
                Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log());
        // as if the recorded runtime had waited 30 s instead of 5 s before SIGKILL: its answers to StopContainer from
        // the
        // kill on, and all they caused, moved; what the nodes' timers did on their own (Lease renewals) did not. A kill
        // due at another time is another timer's: the ids derived from its due time, and all below them, differ.
        Event kill = recorded.stream()
                .filter(e -> e.is(CONTAINER_SIGNALLED)
                        && e.data().path("signal").asText().equals("SIGKILL"))
                .findFirst()
                .orElseThrow();
        Set<String> moved = new HashSet<>();
        for (int i = recorded.indexOf(kill); i < recorded.size(); i++) {
            Event e = recorded.get(i);
            if (kill.causationId().equals(e.causationId()) || moved.contains(e.causationId())) {
                moved.add(e.id());
                Event later = moved(e, Duration.ofSeconds(25));
                recorded.set(
                        i,
                        new Event(
                                "30s-" + e.id(),
                                e.source(),
                                e.type(),
                                e.subject(),
                                later.time(),
                                e.correlationId(),
                                moved.contains(e.causationId()) ? "30s-" + e.causationId() : e.causationId(),
                                e.traceparent(),
                                e.data()));
            }
        }

        List<Divergences.Divergence> found = Replay.of(recorded, TOLERANCE).divergences();

        // the kill and the exit it causes are both the runtime's answers to StopContainer; what follows them does
        // not move relative to its own cause, so it is no divergence again
        assertEquals(
                List.of(
                        "TIMING runtime.ContainerSignalled recorded 30.000s after runtime.StopContainerRequested, replayed 5.000s",
                        "TIMING runtime.ContainerExited recorded 30.000s after runtime.StopContainerRequested, replayed 5.000s"),
                found.stream()
                        .map(d -> d.kind() + " " + d.event().type() + " " + d.detail())
                        .toList());
        assertEquals("30s-" + kill.id(), found.get(0).recorded().id());
    }

    /**
     * A node's machine stopped and started (operator input on the log): the recording takes both as inputs, re-injected
     * at their time, and the replay reproduces what the kubelet held while the node was away and did at its start.
     */
    @Test
    void aLogWithANodeStoppedAndStartedReplaysWithNoDivergence() {
        List<Event> live = withLatency(
                Scenarios.run(Scenarios.node1(), Scenarios.nodeStoppedAndStarted())
                        .log(),
                Duration.ofMillis(3));
        Event started = live.stream()
                .filter(e -> e.is(EventTypes.NODE_STARTED))
                .findFirst()
                .orElseThrow();
        List<String> atStart = live.stream()
                .filter(e -> started.id().equals(e.causationId()))
                .map(Event::type)
                .toList();
        assertTrue(atStart.contains(EventTypes.ORPHANED_POD_FOUND), "the force-deleted pod is an orphan: " + atStart);
        assertTrue(atStart.contains(EventTypes.POD_TERMINATION_STARTED), "the deleted pod terminates: " + atStart);
        assertEquals(
                List.of(EventTypes.NODE_STOPPED, EventTypes.NODE_STARTED),
                Recording.of(live).inputs().stream()
                        .filter(i -> i instanceof Input.Request r
                                && r.event().source().startsWith("/host/"))
                        .map(i -> ((Input.Request) i).event().type())
                        .toList());

        Replay replay = Replay.of(live, TOLERANCE);

        assertEquals(List.of(), replay.divergences());
        assertTrue(replay.reproduces());
        assertEquals(live.size(), replay.replayed().size());
    }

    /** The log as live services would append it: every hop {@code perHop} later than its cause. */
    private static List<Event> withLatency(List<Event> log, Duration perHop) {
        Map<String, Duration> delay = new HashMap<>();
        List<Event> out = new ArrayList<>();
        for (Event e : log) {
            Duration d = e.causationId() == null
                    ? Duration.ZERO
                    : delay.get(e.causationId()).plus(perHop);
            delay.put(e.id(), d);
            out.add(moved(e, d));
        }
        return out;
    }

    private static Event moved(Event e, Duration by) {
        return new Event(
                e.id(),
                e.source(),
                e.type(),
                e.subject(),
                e.time().plus(by),
                e.correlationId(),
                e.causationId(),
                e.traceparent(),
                e.data());
    }
}
