package io.podfall.replay;

import static io.podfall.replay.Scenarios.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StateReportTest {

    @Test
    void theStateAtAMomentOfTheLogIsWhatTheCoresHeldWhenTheyGotThere() {
        List<Event> log =
                Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log();
        Instant midGrace = T0.plusSeconds(12);
        Engine there = new Engine(Scenarios.node1());
        there.schedule(Scenarios.twoPodsDeleted());
        there.runUntil(midGrace);

        String text = StateReport.text(StateReport.rebuild(log, midGrace));

        assertEquals(StateReport.text(there), text);
        List<String> lines = text.lines().toList();
        assertTrue(
                lines.stream()
                        .anyMatch(l -> l.startsWith("  namespaces/default/pods/stubborn phase=Running node=node-1 ")
                                && l.contains(" deletionTimestamp=2026-03-01T10:00:15Z grace=5s")),
                text);
        assertTrue(lines.stream().noneMatch(l -> l.contains("pods/graceful phase")), "removed at 10.5 s: " + text);
        assertTrue(
                lines.stream()
                        .anyMatch(l -> l.startsWith("  namespaces/default/pods/stubborn uid=")
                                && l.contains(" TerminatingPod grace=5s ")
                                && l.endsWith(" sandbox=READY app=RUNNING")),
                text);
        assertTrue(
                lines.stream()
                        .anyMatch(l -> l.startsWith("  node-1 namespaces/default/pods/stubborn sandbox READY ")
                                && l.endsWith(" app=RUNNING signalled at 2026-03-01T10:00:10.001Z")),
                text);
        assertTrue(lines.stream().noneMatch(l -> l.startsWith("  node-1 namespaces/default/pods/graceful")), text);
    }

    /**
     * Live, the front door appends a request milliseconds before the API server handles it; the store, and what a GET
     * or a watch serves, changes when it answers. In between, the state is what it served before.
     */
    @Test
    void aRequestToTheApiServerTakesEffectAtItsAnswerNotWhenItWasAppended() {
        List<Event> log = new ArrayList<>(
                Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log());
        int i = indexOf(
                log,
                e -> e.is(EventTypes.DELETION_REQUESTED)
                        && e.causationId() == null
                        && e.subject().equals(EngineTest.subject("graceful")));
        Event request = log.get(i);
        Event answer = log.stream()
                .filter(e -> request.id().equals(e.causationId()))
                .findFirst()
                .orElseThrow();
        Instant appended = answer.time().minusMillis(3);
        log.set(
                i,
                new Event(
                        request.id(),
                        request.source(),
                        request.type(),
                        request.subject(),
                        appended,
                        request.correlationId(),
                        null,
                        request.traceparent(),
                        request.data()));
        List<Instant> moments = List.of(appended, answer.time().minusNanos(1000), answer.time());
        List<String> graceful = new ArrayList<>();

        StateReport.walk(
                log,
                moments,
                (at, engine) -> graceful.add(engine.apiServer().list(ResourceType.PODS, null).stream()
                        .filter(p -> p.getMetadata().getName().equals("graceful"))
                        .map(p -> p.getMetadata().getResourceVersion()
                                + (p.getMetadata().getDeletionTimestamp() == null ? "" : " terminating"))
                        .findFirst()
                        .orElseThrow()));

        String served = log.stream()
                .filter(e -> e.time().isBefore(appended)
                        && e.subject().equals(EngineTest.subject("graceful"))
                        && e.source().equals("/apiserver")
                        && e.causationId() != null)
                .reduce((a, b) -> b)
                .orElseThrow()
                .data()
                .path("object")
                .path("metadata")
                .path("resourceVersion")
                .asText();
        assertEquals(
                List.of(
                        served,
                        served,
                        answer.data()
                                        .path("object")
                                        .path("metadata")
                                        .path("resourceVersion")
                                        .asText() + " terminating"),
                graceful);
    }

    /**
     * A topic of several partitions reads back with the partitions interleaved as they were polled: an answer can come
     * after an event of another namespace stamped later. At the answer's time the change was served all the same.
     */
    @Test
    void anEventReadBackAfterALaterOneHasTakenEffectAtItsOwnTime() {
        List<Event> log = new ArrayList<>(
                Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log());
        Event answer = log.get(indexOf(
                log,
                e -> e.is(EventTypes.OBJECT_MARKED_TERMINATING) && e.subject().equals(EngineTest.subject("graceful"))));
        Event later = log.get(indexOf(
                log,
                e -> e.is(EventTypes.OBJECT_MARKED_TERMINATING) && e.subject().equals(EngineTest.subject("stubborn"))));
        log.remove(answer);
        log.add(log.indexOf(later) + 1, answer);

        Engine there = StateReport.rebuild(log, answer.time());

        assertTrue(later.time().isAfter(answer.time()));
        assertTrue(
                there.apiServer()
                                .get(ResourceType.PODS, "default", "graceful")
                                .orElseThrow()
                                .getMetadata()
                                .getDeletionTimestamp()
                        != null,
                "served at its answer's time, though read back after a later event");
        assertEquals(
                null,
                there.apiServer()
                        .get(ResourceType.PODS, "default", "stubborn")
                        .orElseThrow()
                        .getMetadata()
                        .getDeletionTimestamp());
    }

    private static int indexOf(List<Event> log, java.util.function.Predicate<Event> p) {
        for (int i = 0; i < log.size(); i++) {
            if (p.test(log.get(i))) {
                return i;
            }
        }
        throw new AssertionError("not on the log");
    }

    @Test
    void aKubeletSaysWhichOfItsNodesAreStopped() {
        List<Event> log = Scenarios.run(Scenarios.node1(), Scenarios.nodeStoppedAndStarted())
                .log();

        assertTrue(StateReport.text(StateReport.rebuild(log, T0.plusSeconds(30)))
                .contains("pod workers, node-1 stopped\n"));
        assertFalse(
                StateReport.text(StateReport.rebuild(log, T0.plusSeconds(90))).contains("stopped"));
    }

    @Test
    void atTheEndEveryPodIsGoneFromEveryComponent() {
        List<Event> log =
                Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log();

        String text = StateReport.text(StateReport.rebuild(log, Replay.end(log)));

        assertTrue(text.contains("\nruntime: 0 sandboxes\n"), text);
        assertTrue(text.lines().noneMatch(l -> l.contains("/pods/")), text);
    }
}
