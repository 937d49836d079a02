package io.podfall.replay;

import static io.podfall.model.event.EventTypes.CONTAINER_SIGNALLED;
import static io.podfall.replay.Scenarios.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.kubelet.podworkers.Compat;
import io.podfall.model.event.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A live replay's arithmetic and comparison, with the engine standing in for the target suite: a suite that started an
 * hour after the recording, did work of its own, and was sent the recording's client requests.
 */
class LiveReplayTest {
    private static final Duration TOLERANCE = Duration.ofMillis(100);
    /** When the target suite started. */
    private static final Instant T1 = T0.plus(Duration.ofHours(1));
    /** When the first input was appended to it. */
    private static final Instant FIRST = T1.plusSeconds(20);

    @Test
    void theInputsAreTheClientRequestsOfTheWindowWithoutTheServicesStarts() {
        List<Event> recorded =
                Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log();

        assertEquals(List.of(1, 2, 3, 4), numbers(LiveReplay.inputs(recorded, T0, null)));
        assertEquals(List.of(3, 4), numbers(LiveReplay.inputs(recorded, T0.plusSeconds(5), null)));
        assertEquals(List.of(1, 2), numbers(LiveReplay.inputs(recorded, T0, T0.plusSeconds(10))), "until is exclusive");
    }

    @Test
    void anInputIsDueAtItsRecordedOffsetDividedByTheSpeed() {
        assertEquals(Duration.ofSeconds(10), LiveReplay.due(Duration.ofSeconds(10), 1));
        assertEquals(Duration.ofMillis(2500), LiveReplay.due(Duration.ofSeconds(10), 4));
        assertEquals(Duration.ofSeconds(20), LiveReplay.due(Duration.ofSeconds(10), 0.5));
        assertEquals(Duration.ZERO, LiveReplay.due(Duration.ofSeconds(10), 0), "0: as fast as possible");
        assertThrows(IllegalArgumentException.class, () -> LiveReplay.due(Duration.ofSeconds(10), -1));
    }

    @Test
    void aTargetSuiteSentTheRecordedRequestsLaterReproducesTheRecordingAndOnlyTheirFlowsAreCompared() {
        List<Event> recorded =
                Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log();
        List<Event> inputs = LiveReplay.inputs(recorded, T0, null);
        List<Event> appended = appended(inputs, 1);
        List<Input> ownWork =
                List.of(Scenarios.create(9, T1.plusSeconds(5), "its-own", "podfall.io/exit-delay-seconds", "0"));

        Replay replay = LiveReplay.compare(
                recorded, inputs, target(Scenarios.node1(), ownWork, appended), TOLERANCE, List.of("live"));

        assertEquals(List.of(), replay.divergences());
        assertEquals(
                flowsOf(inputs),
                replay.replayed().stream().map(Event::correlationId).collect(Collectors.toSet()),
                "the target's start, Lease renewals and own client's pod are not compared");
        assertEquals(T0.plusSeconds(2), replay.replayed().get(0).time(), "the report reads in the recording's time");
        assertTrue(
                ReplayReport.text(replay).startsWith("inputs: 4 client requests\nnote: live\n"),
                ReplayReport.text(replay));
        assertTrue(
                ReplayReport.text(replay)
                        .endsWith("reproduced: no divergence in 4 flows from " + T0.plusSeconds(2) + " to "
                                + replay.until() + "\ndigest: " + replay.digest() + " of the 59 replayed events\n"),
                ReplayReport.text(replay));
    }

    /**
     * At speed 2 the deletions reach a suite at scale 1 after 4 s of running instead of 7 s; the pods are running by
     * then either way, so each step comes as long after its cause as recorded.
     */
    @Test
    void atAnotherSpeedEachStepIsStillComparedWithItsCause() {
        List<Event> recorded =
                Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log();
        List<Event> inputs = LiveReplay.inputs(recorded, T0, null);
        List<Event> appended = appended(inputs, 2);

        assertEquals(FIRST.plusSeconds(4), appended.get(2).time());
        assertTrue(LiveReplay.compare(
                        recorded, inputs, target(Scenarios.node1(), List.of(), appended), TOLERANCE, List.of())
                .reproduces());
    }

    @Test
    void aTargetWhoseKubeletHasTheSeedDefectDivergesAtTheKill() {
        List<Event> recorded =
                Scenarios.run(Scenarios.node1(), Scenarios.graceShortened()).log();
        List<Event> inputs = LiveReplay.inputs(recorded, T0, null);
        List<Engine.KubeletSettings> defective =
                List.of(new Engine.KubeletSettings(List.of("node-1"), new Compat(true, false)));

        Replay replay = LiveReplay.compare(
                recorded, inputs, target(defective, List.of(), appended(inputs, 1)), TOLERANCE, List.of());

        assertFalse(replay.reproduces());
        assertTrue(
                replay.divergences().stream().anyMatch(d -> d.event().is(CONTAINER_SIGNALLED)),
                replay.divergences().toString());
    }

    @Test
    void theFlowsShouldEndAsLongAfterTheirRequestsAsTheyDidWhenRecorded() {
        List<Event> recorded =
                Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log();
        List<Event> inputs = LiveReplay.inputs(recorded, T0, null);
        Set<String> flows = flowsOf(inputs);
        Instant recordedEnd = Replay.end(
                recorded.stream().filter(e -> flows.contains(e.correlationId())).toList());

        assertEquals(
                recordedEnd.plus(Duration.between(T0.plusSeconds(2), FIRST)),
                LiveReplay.expectedEnd(recorded, appended(inputs, 1)),
                "not the recording's end: its Lease renewals go on to " + Replay.end(recorded));
    }

    /** The inputs as appended at {@code speed}, the first at {@link #FIRST}. */
    private static List<Event> appended(List<Event> inputs, double speed) {
        Instant first = inputs.get(0).time();
        return inputs.stream()
                .map(e -> e.at(FIRST.plus(LiveReplay.due(Duration.between(first, e.time()), speed))))
                .toList();
    }

    /** A suite started at {@link #T1}, given {@code ownWork} and the appended inputs: its whole log. */
    private static List<Event> target(
            List<Engine.KubeletSettings> kubelets, List<Input> ownWork, List<Event> appended) {
        List<Input> inputs = new ArrayList<>(List.of(new Input.ApiServerStart(T1), new Input.KubeletStart(0, T1)));
        inputs.addAll(ownWork);
        appended.forEach(e -> inputs.add(new Input.Request(e)));
        Engine engine = new Engine(kubelets);
        engine.schedule(inputs);
        engine.runUntil(T1.plusSeconds(600));
        return engine.log();
    }

    private static Set<String> flowsOf(List<Event> inputs) {
        return inputs.stream().map(Event::id).collect(Collectors.toSet());
    }

    /** The numbers Scenarios gave the requests: the last digits of their ids. */
    private static List<Integer> numbers(List<Event> requests) {
        return requests.stream()
                .map(e -> Integer.parseInt(e.id().substring(e.id().length() - 3)))
                .toList();
    }
}
