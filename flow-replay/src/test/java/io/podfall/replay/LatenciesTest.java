package io.podfall.replay;

import static io.podfall.replay.Scenarios.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.model.event.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Races resolve in a replay as in its recording. The recordings here are made as live services make them: by the engine
 * with each service taking its time to read the log (a runtime slower than the rest), so a pod deleted while its
 * container is still being started meets its deletion at another step than in an engine where nothing takes time.
 */
class LatenciesTest {
    /** How long each kind of service takes to react, as a loaded machine's services might. */
    private static final Map<String, Duration> HOPS = Map.of(
            "apiserver",
            Duration.ofMillis(2),
            "controller",
            Duration.ofMillis(5),
            "kubelet",
            Duration.ofMillis(9),
            "runtime",
            Duration.ofMillis(120));

    @Test
    void aPodDeletedWhileItsContainerStartsReplaysAsRecordedAndNotAsAtZeroLatency() {
        for (long afterMs : new long[] {0, 50, 150, 300}) {
            List<Event> recording = live(createdThenDeleted(afterMs));

            Replay replay = replay(recording, Latency.RECORDED);

            assertEquals(List.of(), replay.divergences(), "deleted " + afterMs + " ms after its creation");
            assertEquals(
                    recording.stream().map(Event::id).toList(),
                    replay.replayed().stream().map(Event::id).toList(),
                    "the same events in the same order, deleted " + afterMs + " ms after its creation");
            assertEquals(
                    recording.stream().map(Event::time).toList(),
                    replay.replayed().stream().map(Event::time).toList());
        }
    }

    @Test
    void atZeroLatencyTheSameRaceResolvesTheOtherWay() {
        List<Event> recording = live(createdThenDeleted(50));

        Replay zero = replay(recording, Latency.ZERO);

        assertTrue(
                zero.divergences().stream().anyMatch(d -> d.kind() != Divergences.Kind.TIMING),
                zero.divergences().stream()
                        .map(d -> d.kind() + " " + d.event().type())
                        .toList()
                        .toString());
    }

    @Test
    void theModelGivesEachServiceTheMedianOfItsRecordedDelaysForAType() {
        List<Event> recording = live(createdThenDeleted(300));
        Replay modelled = replay(recording, Latency.MODEL);

        // every hop of this recording took its service's time, so the model is the recording
        assertEquals(
                List.of(),
                modelled.divergences().stream()
                        .filter(d -> d.kind() != Divergences.Kind.TIMING)
                        .toList());
        assertNotEquals(List.of(), replay(recording, Latency.ZERO).divergences());
    }

    @Test
    void whatATimerDecidedCarriesTheTimeItRangLiveWhereThatWasLater() {
        Event cause = Event.request(
                "00000000-0000-4000-8000-000000000001",
                "/apiserver",
                "apiserver.DeletionRequested",
                "namespaces/default/pods/p",
                T0,
                null,
                Map.of());
        Event rang = Event.causedBy(
                cause.asCause(),
                cause.id() + "/timer/k@" + T0.plusSeconds(5),
                0,
                "/kubelet/node-1",
                "runtime.StopContainerRequested",
                "namespaces/default/pods/p",
                T0.plusMillis(5_190),
                Map.of());
        List<Event> recording = List.of(cause, rang);

        Event due = rang.at(T0.plusSeconds(5));
        Latencies.Appended late = Latencies.of(recording, Latency.RECORDED).decided(due, true);
        Latencies.Appended read = Latencies.of(recording, Latency.RECORDED).decided(due, false);
        Latencies.Appended zero = Latencies.of(recording, Latency.ZERO).decided(due, true);

        assertEquals(T0.plusMillis(5_190), late.event().time(), "the timer rang 190 ms late live");
        assertEquals(late.event().time(), late.at());
        assertEquals(T0.plusSeconds(5), read.event().time(), "not a timer's: decided when it was read");
        assertEquals(T0.plusSeconds(5), zero.event().time());
    }

    private static Replay replay(List<Event> recording, Latency latency) {
        return Replay.of(recording, Replay.start(recording), null, Duration.ZERO, Settings.NONE, latency);
    }

    private static List<Input> createdThenDeleted(long afterMs) {
        Instant created = T0.plusSeconds(2);
        return List.of(
                new Input.ApiServerStart(T0),
                new Input.KubeletStart(0, T0.plusMillis(40)),
                Scenarios.create(1, created, "graceful", "podfall.io/exit-delay-seconds", "0.5"),
                Scenarios.delete(2, created.plusMillis(afterMs), "graceful", 5));
    }

    /** A recording as live services make it: every service reads each event {@link #HOPS} after it was appended. */
    private static List<Event> live(List<Input> inputs) {
        Engine engine = new Engine(
                Scenarios.node1(),
                Latencies.of(hops(Scenarios.run(Scenarios.node1(), inputs).log()), Latency.MODEL));
        engine.schedule(inputs);
        engine.runUntil(T0.plusSeconds(600));
        return engine.log();
    }

    /** A log whose every reaction came {@link #HOPS} after its cause: what the model is fitted on. */
    private static List<Event> hops(List<Event> log) {
        Map<String, Instant> times = new HashMap<>();
        List<Event> out = new ArrayList<>();
        for (Event e : log) {
            Instant at = e.causationId() == null || !times.containsKey(e.causationId())
                    ? e.time()
                    : times.get(e.causationId()).plus(HOPS.get(Latencies.kind(e.source())));
            times.put(e.id(), at);
            out.add(e.at(at));
        }
        return out;
    }
}
