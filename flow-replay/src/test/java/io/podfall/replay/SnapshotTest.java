package io.podfall.replay;

import static io.podfall.replay.Scenarios.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SnapshotTest {
    private static final Duration TOLERANCE = Duration.ofMillis(100);
    private static final Snapshot.Selection INCIDENT = new Snapshot.Selection("incident", null, null, null);

    private static List<Event> recorded() {
        return Scenarios.run(Scenarios.node1(), Scenarios.podDeletedInANamespaceOfItsOwn())
                .log();
    }

    @Test
    void aNamespaceSliceBeginsWithWhatItsFlowsReadAndThenHoldsTheNamespacesEvents() {
        List<Event> log = recorded();

        List<Event> slice = Snapshot.slice(log, INCIDENT);

        int listed = Snapshot.length(slice);
        List<String> subjects =
                slice.subList(0, listed).stream().map(Event::subject).toList();
        assertTrue(
                subjects.containsAll(List.of(
                        "nodes/node-1",
                        "namespaces/kube-node-lease/leases/node-1",
                        "namespaces/default",
                        "namespaces/kube-node-lease")),
                subjects.toString());
        assertTrue(
                subjects.stream().noneMatch(s -> s.startsWith("namespaces/default/")), "not the slice's: " + subjects);
        // from the namespace's first event on: its own events, and those of what every namespace shares
        Snapshot.Selection held = INCIDENT.startingIn(log);
        assertEquals(
                log.stream()
                        .filter(e -> e.subject().startsWith("namespaces/incident"))
                        .findFirst()
                        .orElseThrow()
                        .time(),
                held.since());
        assertEquals(log.stream().filter(held).toList(), slice.subList(listed, slice.size()));
        assertTrue(
                slice.stream()
                        .anyMatch(e -> e.is(EventTypes.UPDATE_REQUESTED)
                                && e.subject().equals("namespaces/kube-node-lease/leases/node-1")),
                "the node's Lease renewals");
        Event first = slice.get(listed);
        assertTrue(slice.subList(0, listed).stream()
                .allMatch(e -> e.time().equals(first.time().minusNanos(1))
                        && e.source().equals("/apiserver")
                        && e.causationId() == null));
        assertEquals(slice, Snapshot.slice(log, INCIDENT), "the same ids, the same file");
        assertEquals(java.util.Optional.of(held), Snapshot.selection(slice));
    }

    /** The acceptance of issue #31 item 3, in process: the slice's replay reproduces it, without MISSING or EXTRA. */
    @Test
    void aPodDeletedInANamespaceOfItsOwnReplaysFromItsSliceAlone() {
        List<Event> slice = Snapshot.slice(recorded(), INCIDENT);

        Replay replay = Replay.ofExport(slice, Replay.start(slice), null, TOLERANCE, Settings.NONE, Latency.RECORDED);

        assertEquals(List.of(), replay.divergences());
        assertEquals(slice.size() - Snapshot.length(slice), replay.recorded().size());
        assertEquals(replay.recorded().size(), replay.replayed().size());
        assertTrue(replay.replayed().stream()
                .anyMatch(e -> e.is(EventTypes.OBJECT_REMOVED)
                        && e.subject().equals(Subjects.of("incident", "pods", "victim"))));
        assertEquals(
                List.of(),
                replay.recording().inputs().stream()
                        .filter(i -> !(i instanceof Input.Request))
                        .toList(),
                "the API server and node-1's kubelet run from the start");
        assertEquals(
                List.of(new Engine.KubeletSettings(List.of("node-1"), io.podfall.kubelet.podworkers.Compat.NONE)),
                replay.recording().kubelets());
        assertEquals(List.of(), replay.recording().notes());
    }

    @Test
    void withoutItsSnapshotTheSliceDoesNotReproduce() {
        List<Event> slice = Snapshot.slice(recorded(), INCIDENT);

        Replay replay = Replay.of(slice.subList(Snapshot.length(slice), slice.size()), TOLERANCE);

        assertFalse(replay.reproduces(), "no node to schedule the pod on");
    }

    @Test
    void aSliceReplaysFromAMomentWithinItAndItsStateIsRebuiltFromItsSnapshot() {
        List<Event> slice = Snapshot.slice(recorded(), INCIDENT);

        Replay replay = Replay.ofExport(slice, T0.plusSeconds(30), null, TOLERANCE, Settings.NONE, Latency.RECORDED);
        String state = StateReport.text(StateReport.rebuild(slice, T0.plusMillis(30_500)));

        assertEquals(List.of(), replay.divergences());
        assertTrue(state.contains("  nodes/node-1 "), state);
        assertTrue(
                state.lines()
                        .anyMatch(l -> l.startsWith("  namespaces/incident/pods/victim phase=Running node=node-1 ")
                                && l.contains(" grace=5s")),
                state);
        assertTrue(
                state.lines()
                        .anyMatch(l -> l.startsWith("  namespaces/incident/pods/victim uid=")
                                && l.contains(" TerminatingPod grace=5s ")),
                state);
    }

    /** Listed objects are state, not news: folding them, no core decides anything the recording would not hold. */
    @Test
    void foldingASnapshotDecidesNothing() {
        List<Event> slice = Snapshot.slice(recorded(), INCIDENT);
        Engine engine = new Engine(Scenarios.node1());

        slice.subList(0, Snapshot.length(slice)).forEach(engine::fold);
        engine.goLive();

        assertEquals(List.of(), engine.log());
        assertEquals(List.of(), engine.skipped());
        assertTrue(engine.apiServer().contains(io.podfall.model.k8s.ResourceType.NODES, "", "node-1"));
    }

    @Test
    void aWholeLogNeedsNoSnapshotAndReplaysAsBefore() {
        List<Event> log = recorded();

        assertEquals(log, Snapshot.slice(log, new Snapshot.Selection(null, null, null, null)));
        assertEquals(0, Snapshot.length(log));
        Replay replay = Replay.ofExport(log, Replay.start(log), null, TOLERANCE, Settings.NONE, Latency.RECORDED);
        assertEquals(
                Replay.of(log, Replay.start(log), null, TOLERANCE, Settings.NONE, Latency.RECORDED)
                        .replayed(),
                replay.replayed());
    }
}
