package io.podfall.cli.analysis;

import io.podfall.cli.analysis.Check.Finding;
import io.podfall.cli.analysis.Check.Level;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CheckTest {

    private static List<Event> cat(List<Event> a, List<Event> b) {
        List<Event> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    @Test
    void aGracefulAndAKilledDeletionAreClean() {
        List<Event> log = cat(new PodLog("a").created(0).deleted(1_000, 5, 1_000, false).events,
                new PodLog("b").created(0).deleted(10_000, 2, 0, true).events);
        assertEquals(List.of(), Check.of(log));
        assertFalse(Check.hasErrors(Check.of(log)));
    }

    /** The endpoints controller's patch stored before SIGTERM is fine; after it, a warning with the three events. */
    @Test
    void aPodStillInItsServicesEndpointsWhenItGotSigtermIsAWarning() {
        for (long updatedAt : new long[]{1_040, 1_090}) {
            PodLog p = new PodLog("a").created(0);
            p.delete(1_000, 5);
            Event marked = p.markedTerminating(1_017, 5);
            Event patch = Event.causedBy(marked.asCause(), "del-a", 90, "/controller/endpoint",
                    EventTypes.PATCH_REQUESTED, "namespaces/default/endpoints/web", PodLog.at(1_020), Map.of());
            Event updated = Event.causedBy(patch.asCause(), "del-a", 91, "/apiserver", EventTypes.OBJECT_UPDATED,
                    "namespaces/default/endpoints/web", PodLog.at(updatedAt), Map.of());
            p.events.add(patch);
            p.events.add(updated);
            Event sigterm = p.signalled(1_076, "SIGTERM");
            p.events.sort(java.util.Comparator.comparing(Event::time));
            List<Finding> f = Check.inEndpointsAfterSigterm(p.events);
            if (updatedAt < 1_076) {
                assertEquals(List.of(), f, "out of the endpoints before SIGTERM");
            } else {
                assertEquals(1, f.size());
                assertEquals(Check.Level.WARNING, f.get(0).level());
                assertEquals("in-endpoints-after-sigterm", f.get(0).rule());
                assertEquals(List.of(marked.id(), sigterm.id(), updated.id()), f.get(0).eventIds());
                assertTrue(f.get(0).message().contains("(+14 ms)"), f.get(0).message());
            }
        }
    }

    /** The ReplicaSet controller also patches on a pod's marking (its status): that is no endpoints change. */
    @Test
    void anotherControllersPatchOnThePodsMarkingIsNoEndpointsChange() {
        PodLog p = new PodLog("a").created(0);
        p.delete(1_000, 5);
        Event marked = p.markedTerminating(1_017, 5);
        p.signalled(1_076, "SIGTERM");
        Event patch = Event.causedBy(marked.asCause(), "del-a", 90, "/controller/replicaset",
                EventTypes.PATCH_REQUESTED, "namespaces/default/replicasets/web-1a2b", PodLog.at(1_020), Map.of());
        p.events.add(patch);
        p.events.add(Event.causedBy(patch.asCause(), "del-a", 91, "/apiserver", EventTypes.OBJECT_UPDATED,
                "namespaces/default/replicasets/web-1a2b", PodLog.at(1_090), Map.of()));
        assertEquals(List.of(), Check.inEndpointsAfterSigterm(p.events));
        assertEquals(0, Stats.of(p.events).inEndpoints());
    }

    @Test
    void removedWhileItsContainerRan() {
        PodLog p = new PodLog("a").created(0);
        Event started = p.events.get(2);
        p.delete(1_000, 5);
        p.markedTerminating(1_017, 5);
        Event removed = p.removed(1_100);
        Event exited = p.exited(1_200, 143);
        List<Finding> f = Check.removedWhileRunning(p.events);
        assertEquals(1, f.size());
        assertEquals(Level.ERROR, f.get(0).level());
        assertEquals("removed-while-running", f.get(0).rule());
        assertEquals(List.of(removed.id(), started.id(), exited.id()), f.get(0).eventIds());
        assertTrue(Check.hasErrors(Check.of(p.events)));
    }

    @Test
    void removedWhileRunningIsOnlyAWarningAfterAForceDeletion() {
        PodLog p = new PodLog("a").created(0);
        p.delete(1_000, 0);
        p.removed(1_010);
        p.exited(1_200, 137);
        List<Finding> f = Check.removedWhileRunning(p.events);
        assertEquals(Level.WARNING, f.get(0).level());
        assertTrue(f.get(0).message().contains("force deletion"));
    }

    @Test
    void removedAfterTheExitIsFine() {
        assertEquals(List.of(), Check.removedWhileRunning(new PodLog("a").created(0).deleted(1_000, 5, 10, false).events));
    }

    @Test
    void killedBeforeTheGracePeriodRanOut() {
        PodLog p = new PodLog("a").created(0);
        p.delete(1_000, 5);
        Event start = p.terminationStarted(1_051, 5);
        p.stopRequested(1_051, 5);
        p.signalled(1_076, "SIGTERM");
        Event kill = p.signalled(3_000, "SIGKILL");
        List<Finding> f = Check.killedBeforeGrace(p.events);
        assertEquals(1, f.size());
        assertEquals(List.of(kill.id(), start.id()), f.get(0).eventIds());
        assertTrue(f.get(0).message().contains("3051 ms before"), f.get(0).message());
    }

    @Test
    void killedBeforeTheStopTimeoutWhenNoDeadlineIsOnTheLog() {
        PodLog p = new PodLog("a").created(0);
        p.delete(1_000, 5);
        Event stop = p.stopRequested(1_051, 5);
        Event kill = p.signalled(6_050, "SIGKILL");
        assertEquals(List.of(kill.id(), stop.id()), Check.killedBeforeGrace(p.events).get(0).eventIds());
    }

    @Test
    void aKillAtTheDeadlineIsFine() {
        assertEquals(List.of(), Check.killedBeforeGrace(new PodLog("a").created(0).deleted(1_000, 2, 0, true).events));
    }

    @Test
    void aDeletionThatStalledSaysWhereAndWhatItWaitsFor() {
        PodLog p = new PodLog("a").created(0);
        Event request = p.delete(1_000, 5);
        p.markedTerminating(1_017, 5);
        p.terminationStarted(1_051, 5);
        p.stopRequested(1_051, 5);
        Event sigterm = p.signalled(1_076, "SIGTERM");
        List<Event> later = new PodLog("b").created(120_000).events;
        List<Finding> f = Check.incomplete(cat(p.events, later));
        assertEquals(1, f.size());
        assertEquals(Level.ERROR, f.get(0).level());
        assertEquals("no ObjectRemoved; last step runtime.ContainerSignalled from /runtime/node-1 at +76 ms "
                + "(container=app signal=SIGTERM), waits for runtime.ContainerExited", f.get(0).message());
        assertEquals(List.of(request.id(), sigterm.id()), f.get(0).eventIds());
    }

    @Test
    void aDeletionAtTheEndOfTheLogMayStillBeRunning() {
        PodLog p = new PodLog("a").created(0);
        p.delete(1_000, 5);
        p.markedTerminating(1_017, 5);
        List<Finding> f = Check.incomplete(p.events);
        assertEquals(Level.WARNING, f.get(0).level());
        assertTrue(f.get(0).message().contains("waits for kubelet.PodTerminationStarted"), f.get(0).message());
    }

    @Test
    void aStuckDeletionSaysWhyWhenItsFlowTells() {
        PodLog down = new PodLog("down");
        down.delete(1_000, 5);
        down.then(1_017, "/apiserver", EventTypes.OBJECT_MARKED_TERMINATING, PodLog.data("object", PodLog.data(
                "metadata", PodLog.data("deletionGracePeriodSeconds", 5), "spec", PodLog.data("nodeName", "node-7"))));
        assertEquals(Optional.of("no kubelet acted on it: is node node-7 (or its kubelet) down?"),
                Check.stuckBecause(DeletionFlow.all(down.events).get(0)));

        PodLog held = new PodLog("held").created(0).deleted(1_000, 5, 1_000, false);
        held.events.removeIf(e -> e.is(EventTypes.OBJECT_REMOVED) || e.is(EventTypes.REMOVE_POD_SANDBOX_REQUESTED)
                || e.is(EventTypes.CONTAINER_REMOVED) || e.is(EventTypes.SANDBOX_REMOVED));
        held.then(3_000, "/apiserver", EventTypes.OBJECT_UPDATED, PodLog.data("object", PodLog.data("metadata",
                PodLog.data("deletionGracePeriodSeconds", 0, "finalizers", List.of("example.com/block")))));
        List<Finding> f = Check.incomplete(cat(held.events, new PodLog("b").created(120_000).events));
        assertEquals(1, f.size());
        assertTrue(f.get(0).message().endsWith("; held by its finalizers [example.com/block] after the kubelet's final delete"),
                f.get(0).message());

        PodLog running = new PodLog("a").created(0);
        running.delete(1_000, 5);
        running.markedTerminating(1_017, 5);
        running.terminationStarted(1_051, 5);
        assertEquals(Optional.empty(), Check.stuckBecause(DeletionFlow.all(running.events).get(0)));
    }

    @Test
    void aSecondDeleteIsCompletedByTheFirstOnesRemoval() {
        PodLog p = new PodLog("a").created(0);
        p.delete(1_000, 30);
        p.markedTerminating(1_017, 30);
        PodLog again = new PodLog("a");
        again.request("del-a-again", 2_000, EventTypes.DELETION_REQUESTED,
                PodLog.data("options", PodLog.data("gracePeriodSeconds", 1)));
        List<Event> log = cat(p.events, again.events);
        log.add(p.removed(120_000));
        assertEquals(List.of(), Check.incomplete(log));
    }

    @Test
    void anIpNeverReleasedForARemovedPod() {
        PodLog p = new PodLog("a").created(0);
        Event allocated = p.events.get(1);
        p.delete(1_000, 5);
        p.exited(1_100, 143);
        p.sandboxStopped(1_120);
        Event removed = p.removed(1_200);
        List<Finding> f = Check.leakedIps(p.events);
        assertEquals(1, f.size());
        assertEquals(List.of(allocated.id(), removed.id()), f.get(0).eventIds());
        assertTrue(f.get(0).message().startsWith("IP 10.244.1.2 of sandbox sb-a on node-1 never released"));
    }

    @Test
    void anIpOfARunningPodIsNoLeak() {
        assertEquals(List.of(), Check.leakedIps(new PodLog("a").created(0).events));
    }

    @Test
    void twoSigtermsToOneContainer() {
        PodLog p = new PodLog("a").created(0);
        p.delete(1_000, 5);
        Event first = p.signalled(1_076, "SIGTERM");
        Event second = p.signalled(1_500, "SIGTERM");
        List<Finding> f = Check.duplicates(p.events);
        assertEquals(1, f.size());
        assertEquals("2 stop signals (SIGTERM) to container app", f.get(0).message());
        assertEquals(List.of(first.id(), second.id()), f.get(0).eventIds());
    }

    @Test
    void twoIpReleasesForOneSandbox() {
        PodLog p = new PodLog("a").created(0);
        p.delete(1_000, 5);
        Event first = p.ipReleased(1_100);
        Event second = p.ipReleased(1_150);
        List<Finding> f = Check.duplicates(p.events);
        assertEquals("2 PodIPReleased (CNI DEL) for sandbox sb-a", f.get(0).message());
        assertEquals(List.of(first.id(), second.id()), f.get(0).eventIds());
    }

    @Test
    void aSigtermAndASigkillAreNoDuplicate() {
        assertEquals(List.of(), Check.duplicates(new PodLog("a").created(0).deleted(1_000, 2, 0, true).events));
    }
}
