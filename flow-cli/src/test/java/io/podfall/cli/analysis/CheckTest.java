package io.podfall.cli.analysis;

import static io.podfall.cli.analysis.PodLog.data;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.cli.analysis.Check.Finding;
import io.podfall.cli.analysis.Check.Level;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CheckTest {

    private static List<Event> cat(List<Event> a, List<Event> b) {
        List<Event> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    @Test
    void aGracefulAndAKilledDeletionAreClean() {
        List<Event> log = cat(
                new PodLog("a").created(0).deleted(1_000, 5, 1_000, false).events,
                new PodLog("b").created(0).deleted(10_000, 2, 0, true).events);
        assertEquals(List.of(), Check.of(log));
        assertFalse(Check.hasErrors(Check.of(log)));
    }

    /** The endpoints controller's patch stored before SIGTERM is fine; after it, a warning with the three events. */
    @Test
    void aPodStillInItsServicesEndpointsWhenItGotSigtermIsAWarning() {
        for (long updatedAt : new long[] {1_040, 1_090}) {
            PodLog p = new PodLog("a").created(0);
            p.delete(1_000, 5);
            Event marked = p.markedTerminating(1_017, 5);
            Event patch = Event.causedBy(
                    marked.asCause(),
                    "del-a",
                    90,
                    "/controller/endpoint",
                    EventTypes.PATCH_REQUESTED,
                    "namespaces/default/endpoints/web",
                    PodLog.at(1_020),
                    Map.of());
            Event updated = Event.causedBy(
                    patch.asCause(),
                    "del-a",
                    91,
                    "/apiserver",
                    EventTypes.OBJECT_UPDATED,
                    "namespaces/default/endpoints/web",
                    PodLog.at(updatedAt),
                    Map.of());
            p.events.add(patch);
            p.events.add(updated);
            Event sigterm = p.signalled(1_076, "SIGTERM");
            p.events.sort(java.util.Comparator.comparing(Event::time));
            List<Finding> f = InEndpointsAfterSigterm.of(p.events);
            if (updatedAt < 1_076) {
                assertEquals(List.of(), f, "out of the endpoints before SIGTERM");
            } else {
                assertEquals(1, f.size());
                assertEquals(Check.Level.WARNING, f.get(0).level());
                assertEquals("in-endpoints-after-sigterm", f.get(0).rule());
                assertEquals(
                        List.of(marked.id(), sigterm.id(), updated.id()),
                        f.get(0).eventIds());
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
        Event patch = Event.causedBy(
                marked.asCause(),
                "del-a",
                90,
                "/controller/replicaset",
                EventTypes.PATCH_REQUESTED,
                "namespaces/default/replicasets/web-1a2b",
                PodLog.at(1_020),
                Map.of());
        p.events.add(patch);
        p.events.add(Event.causedBy(
                patch.asCause(),
                "del-a",
                91,
                "/apiserver",
                EventTypes.OBJECT_UPDATED,
                "namespaces/default/replicasets/web-1a2b",
                PodLog.at(1_090),
                Map.of()));
        assertEquals(List.of(), InEndpointsAfterSigterm.of(p.events));
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
        List<Finding> f = RemovedWhileRunning.of(p.events);
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
        List<Finding> f = RemovedWhileRunning.of(p.events);
        assertEquals(Level.WARNING, f.get(0).level());
        assertTrue(f.get(0).message().contains("force deletion"));
    }

    @Test
    void removedAfterTheExitIsFine() {
        assertEquals(
                List.of(), RemovedWhileRunning.of(new PodLog("a").created(0).deleted(1_000, 5, 10, false).events));
    }

    @Test
    void aLogThatStartsAfterTheContainerStartedIsRead() {
        List<Event> all = new PodLog("a").created(0).deleted(1_000, 5, 10, false).events;
        List<Event> window =
                all.stream().filter(e -> !e.is(EventTypes.CONTAINER_STARTED)).toList();
        assertEquals(List.of(), RemovedWhileRunning.of(window), "an exit without its start is no finding");
    }

    @Test
    void killedBeforeTheGracePeriodRanOut() {
        PodLog p = new PodLog("a").created(0);
        p.delete(1_000, 5);
        Event start = p.terminationStarted(1_051, 5);
        p.stopRequested(1_051, 5);
        p.signalled(1_076, "SIGTERM");
        Event kill = p.signalled(3_000, "SIGKILL");
        List<Finding> f = KilledBeforeGrace.of(p.events);
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
        assertEquals(
                List.of(kill.id(), stop.id()),
                KilledBeforeGrace.of(p.events).get(0).eventIds());
    }

    @Test
    void aKillAtTheDeadlineIsFine() {
        assertEquals(List.of(), KilledBeforeGrace.of(new PodLog("a").created(0).deleted(1_000, 2, 0, true).events));
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
        List<Finding> f = DeletionIncomplete.of(cat(p.events, later));
        assertEquals(1, f.size());
        assertEquals(Level.ERROR, f.get(0).level());
        assertEquals(
                "no ObjectRemoved; last step runtime.ContainerSignalled from /runtime/node-1 at +76 ms "
                        + "(container=app signal=SIGTERM), waits for runtime.ContainerExited",
                f.get(0).message());
        assertEquals(List.of(request.id(), sigterm.id()), f.get(0).eventIds());
    }

    @Test
    void aDeletionAtTheEndOfTheLogMayStillBeRunning() {
        PodLog p = new PodLog("a").created(0);
        p.delete(1_000, 5);
        p.markedTerminating(1_017, 5);
        List<Finding> f = DeletionIncomplete.of(p.events);
        assertEquals(Level.WARNING, f.get(0).level());
        assertTrue(
                f.get(0).message().contains("waits for kubelet.PodTerminationStarted"),
                f.get(0).message());
    }

    @Test
    void aStuckDeletionSaysWhyWhenItsFlowTells() {
        PodLog down = new PodLog("down");
        down.delete(1_000, 5);
        down.then(
                1_017,
                "/apiserver",
                EventTypes.OBJECT_MARKED_TERMINATING,
                PodLog.data(
                        "object",
                        PodLog.data(
                                "metadata",
                                PodLog.data("deletionGracePeriodSeconds", 5),
                                "spec",
                                PodLog.data("nodeName", "node-7"))));
        assertEquals(
                Optional.of("no kubelet acted on it: is node node-7 (or its kubelet) down?"),
                DeletionIncomplete.stuckBecause(DeletionFlow.all(down.events).get(0)));

        PodLog held = new PodLog("held").created(0).deleted(1_000, 5, 1_000, false);
        held.events.removeIf(e -> e.is(EventTypes.OBJECT_REMOVED)
                || e.is(EventTypes.REMOVE_POD_SANDBOX_REQUESTED)
                || e.is(EventTypes.CONTAINER_REMOVED)
                || e.is(EventTypes.SANDBOX_REMOVED));
        held.then(
                3_000,
                "/apiserver",
                EventTypes.OBJECT_UPDATED,
                PodLog.data(
                        "object",
                        PodLog.data(
                                "metadata",
                                PodLog.data(
                                        "deletionGracePeriodSeconds", 0, "finalizers", List.of("example.com/block")))));
        List<Finding> f = DeletionIncomplete.of(cat(held.events, new PodLog("b").created(120_000).events));
        assertEquals(1, f.size());
        assertTrue(
                f.get(0)
                        .message()
                        .endsWith("; held by its finalizers [example.com/block] after the kubelet's final delete"),
                f.get(0).message());

        PodLog running = new PodLog("a").created(0);
        running.delete(1_000, 5);
        running.markedTerminating(1_017, 5);
        running.terminationStarted(1_051, 5);
        assertEquals(
                Optional.empty(),
                DeletionIncomplete.stuckBecause(DeletionFlow.all(running.events).get(0)));
    }

    @Test
    void aSecondDeleteIsCompletedByTheFirstOnesRemoval() {
        PodLog p = new PodLog("a").created(0);
        p.delete(1_000, 30);
        p.markedTerminating(1_017, 30);
        PodLog again = new PodLog("a");
        again.request(
                "del-a-again",
                2_000,
                EventTypes.DELETION_REQUESTED,
                PodLog.data("options", PodLog.data("gracePeriodSeconds", 1)));
        List<Event> log = cat(p.events, again.events);
        log.add(p.removed(120_000));
        assertEquals(List.of(), DeletionIncomplete.of(log));
    }

    @Test
    void anIpNeverReleasedForARemovedPod() {
        PodLog p = new PodLog("a").created(0);
        Event allocated = p.events.get(1);
        p.delete(1_000, 5);
        p.exited(1_100, 143);
        p.sandboxStopped(1_120);
        Event removed = p.removed(1_200);
        List<Finding> f = Leaks.ips(p.events);
        assertEquals(1, f.size());
        assertEquals(List.of(allocated.id(), removed.id()), f.get(0).eventIds());
        assertTrue(f.get(0).message().startsWith("IP 10.244.1.2 of sandbox sb-a on node-1 never released"));
    }

    @Test
    void anIpOfARunningPodIsNoLeak() {
        assertEquals(List.of(), Leaks.ips(new PodLog("a").created(0).events));
    }

    @Test
    void twoSigtermsToOneContainer() {
        PodLog p = new PodLog("a").created(0);
        p.delete(1_000, 5);
        Event first = p.signalled(1_076, "SIGTERM");
        Event second = p.signalled(1_500, "SIGTERM");
        List<Finding> f = DuplicateSideEffects.of(p.events);
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
        List<Finding> f = DuplicateSideEffects.of(p.events);
        assertEquals("2 PodIPReleased (CNI DEL) for sandbox sb-a", f.get(0).message());
        assertEquals(List.of(first.id(), second.id()), f.get(0).eventIds());
    }

    @Test
    void aSigtermAndASigkillAreNoDuplicate() {
        assertEquals(
                List.of(), DuplicateSideEffects.of(new PodLog("a").created(0).deleted(1_000, 2, 0, true).events));
    }

    private static final String EXIT_DELAY = "podfall.io/exit-delay-seconds";

    /** The kubelet kills a container that failed its liveness probe: ContainerProbeFailed, then StopContainer. */
    private static Event probeKill(PodLog p, long ms, long grace) {
        Event failed = p.then(
                ms,
                "/kubelet/" + p.node,
                EventTypes.CONTAINER_PROBE_FAILED,
                PodLog.data(
                        "node", p.node,
                        "podUid", p.uid,
                        "namespace", p.namespace,
                        "name", p.name,
                        "containerId", p.container,
                        "containerName", "app",
                        "probe", "liveness",
                        "message", "Container app failed liveness probe, will be restarted",
                        "gracePeriodSeconds", grace));
        p.stopRequested(ms, grace);
        return failed;
    }

    /** Spec 30 s, the liveness probe's 2 s: a process that ignores SIGTERM is killed 2 s after it, as it should be. */
    @Test
    void aLivenessKillWithTheProbesGracePeriodIsNoFindingEvenIfThePodBeginsTerminatingMeanwhile() {
        PodLog p = new PodLog("a").created(0);
        p.stored(150, EventTypes.OBJECT_UPDATED, 30, Map.of("podfall.io/on-sigterm", "ignore"));
        probeKill(p, 5_000, 2);
        p.signalled(5_010, "SIGTERM");
        p.delete(6_000, 30);
        p.markedTerminating(6_010, 30);
        p.terminationStarted(6_030, 30);
        p.stopRequested(6_030, 30);
        p.signalled(7_000, "SIGKILL");
        p.exited(7_000, 137);

        assertEquals(List.of(), KilledBeforeGrace.of(p.events));
        assertEquals(List.of(), KilledThoughExiting.of(p.events));
    }

    @Test
    void aLivenessKillBeforeTheProbesGracePeriodRanOutIsKilledBeforeGrace() {
        PodLog p = new PodLog("a").created(0);
        probeKill(p, 5_000, 2);
        p.signalled(5_010, "SIGTERM");
        p.signalled(6_000, "SIGKILL");

        List<Finding> f = KilledBeforeGrace.of(p.events);
        assertEquals(1, f.size());
        assertEquals("killed-before-grace", f.get(0).rule());
    }

    @Test
    void aProcessThatWouldHaveExitedWithinTheProbesGracePeriodButWasKilledIsKilledThoughExiting() {
        PodLog p = new PodLog("a").created(0);
        p.stored(150, EventTypes.OBJECT_UPDATED, 30, Map.of(EXIT_DELAY, "1"));
        probeKill(p, 5_000, 2);
        p.signalled(5_010, "SIGTERM");
        p.signalled(5_500, "SIGKILL");

        List<Finding> f = KilledThoughExiting.of(p.events);
        assertEquals(1, f.size());
        assertEquals(Level.ERROR, f.get(0).level());
        assertTrue(
                f.get(0).message().contains("within the 2 s grace period it was owed"),
                f.get(0).message());
    }

    /** A force deletion (grace 0) gives the node 1 s; a process that needed 3 of its spec's 30 s is killed. */
    @Test
    void aForceDeletionThatKillsAProcessWhichWouldHaveExitedIsAWarningThatSaysWhatWasOwedAndWhatHonoured() {
        PodLog p = new PodLog("a").created(0);
        Event spec = p.stored(150, EventTypes.OBJECT_UPDATED, 30, Map.of(EXIT_DELAY, "3"));
        p.delete(1_000, 0);
        p.markedTerminating(1_010, 0);
        Event started = p.terminationStarted(1_030, 1);
        Event stop = p.stopRequested(1_030, 1);
        Event sigterm = p.signalled(1_040, "SIGTERM");
        Event kill = p.signalled(2_030, "SIGKILL");
        p.exited(2_030, 137);
        List<Finding> f = KilledThoughExiting.of(p.events);
        assertEquals(1, f.size());
        assertEquals(Level.WARNING, f.get(0).level());
        assertEquals("killed-though-exiting", f.get(0).rule());
        assertEquals(
                "container app got SIGKILL 990 ms after SIGTERM, though its process "
                        + "(podfall.io/exit-delay-seconds=3) would have exited 3000 ms after StopContainer, within the 30 s grace period it "
                        + "was owed (spec.terminationGracePeriodSeconds; the delete requested 0 s: a force deletion); the kubelet "
                        + "honoured 1 s (kubelet.PodTerminationStarted)",
                f.get(0).message());
        assertEquals(
                List.of(kill.id(), sigterm.id(), stop.id(), spec.id(), started.id()),
                f.get(0).eventIds());
        assertFalse(Check.hasErrors(Check.of(p.events)), "a warning: the force deletion asked for it");
    }

    /**
     * A second delete shortened 12 s to 2 s: the process, which needed 5 s, is killed; RunPodSandbox told how it
     * behaves.
     */
    @Test
    void aShortenedGracePeriodThatKillsAProcessWhichWouldHaveExitedIsAWarning() {
        PodLog p = new PodLog("a").created(0);
        Event sandbox = p.sandboxRequested(20, Map.of(EXIT_DELAY, "5"));
        p.stored(150, EventTypes.OBJECT_UPDATED, 30, Map.of(EXIT_DELAY, "999"));
        p.delete(1_000, 12);
        Event marked = p.markedTerminating(1_010, 12);
        p.terminationStarted(1_030, 12);
        Event stop = p.stopRequested(1_030, 12);
        Event sigterm = p.signalled(1_040, "SIGTERM");
        Event shortened = p.graceShortened(2_000, 12, 2, null);
        p.stopRequested(2_000, 1);
        Event kill = p.signalled(3_030, "SIGKILL");
        List<Finding> f = KilledThoughExiting.of(p.events);
        assertEquals(1, f.size());
        assertEquals(Level.WARNING, f.get(0).level());
        assertTrue(
                f.get(0)
                        .message()
                        .endsWith("(podfall.io/exit-delay-seconds=5) would have exited 5000 ms after StopContainer, "
                                + "within the 12 s grace period it was owed (requested: deletionGracePeriodSeconds 12); the kubelet "
                                + "honoured 2 s (kubelet.GracePeriodShortened from 12 s)"),
                f.get(0).message());
        assertEquals(
                List.of(kill.id(), sigterm.id(), stop.id(), sandbox.id(), marked.id(), shortened.id()),
                f.get(0).eventIds());
    }

    /** Nothing shortened the 10 s, yet the process that needed 3 s got SIGKILL after 1 s: an error. */
    @Test
    void aKillOfAProcessThatWouldHaveExitedWithinAnUnshortenedGracePeriodIsAnError() {
        PodLog p = new PodLog("a").created(0);
        p.sandboxRequested(20, Map.of(EXIT_DELAY, "3"));
        p.delete(1_000, 10);
        p.markedTerminating(1_010, 10);
        p.terminationStarted(1_030, 10);
        p.stopRequested(1_030, 10);
        p.signalled(1_040, "SIGTERM");
        p.signalled(2_040, "SIGKILL");
        List<Finding> f = KilledThoughExiting.of(p.events);
        assertEquals(Level.ERROR, f.get(0).level());
        assertTrue(
                f.get(0).message().endsWith("the kubelet honoured 10 s (kubelet.PodTerminationStarted)"),
                f.get(0).message());
    }

    /** A kill is no cut-short exit for a process that ignores SIGTERM, or one that would not have exited in time. */
    @Test
    void aKillOfAProcessThatWouldNotHaveExitedWithinItsGracePeriodIsFine() {
        for (Map<String, String> annotations :
                List.of(Map.of("podfall.io/on-sigterm", "Ignore"), Map.of(EXIT_DELAY, "12.5"))) {
            PodLog p = new PodLog("a").created(0);
            p.sandboxRequested(20, annotations);
            p.delete(1_000, 12);
            p.markedTerminating(1_010, 12);
            p.terminationStarted(1_030, 12);
            p.stopRequested(1_030, 12);
            p.signalled(1_040, "SIGTERM");
            p.graceShortened(2_000, 12, 2, null);
            p.signalled(3_030, "SIGKILL");
            assertEquals(List.of(), KilledThoughExiting.of(p.events), annotations.toString());
        }
        assertEquals(
                List.of(),
                KilledThoughExiting.of(new PodLog("b").created(0).deleted(1_000, 2, 0, true).events),
                "no annotations on the log: the process is unknown");
    }

    /** A volume published into a pod that was removed, and no unpublish: an error once the log went on. */
    @Test
    void aVolumeNeverUnpublishedFromARemovedPod() {
        for (boolean logGoesOn : new boolean[] {true, false}) {
            PodLog p = new PodLog("a").created(0);
            Event published =
                    p.then(10, "/csi/node-1", EventTypes.VOLUME_PUBLISHED, volume(p, "data", "default/pgdata"));
            p.delete(1_000, 0);
            Event removed = p.removed(1_010);
            Event asked = p.then(
                    2_000,
                    "/kubelet/node-1",
                    EventTypes.NODE_UNPUBLISH_VOLUME_REQUESTED,
                    volume(p, "data", "default/pgdata"));
            List<Event> log = logGoesOn ? cat(p.events, new PodLog("b").created(40_000).events) : p.events;
            List<Finding> f = Leaks.volumes(log);
            assertEquals(1, f.size());
            assertEquals("volume-leaked", f.get(0).rule());
            assertEquals(logGoesOn ? Level.ERROR : Level.WARNING, f.get(0).level());
            assertTrue(
                    f.get(0)
                            .message()
                            .startsWith("volume data (default/pgdata) published into the pod on node-1 never "
                                    + "unpublished, though the pod was removed at 2026-11-29T10:00:01.010Z; "
                                    + "csi.NodeUnpublishVolumeRequested at 2026-11-29T10:00:02Z got no answer"),
                    f.get(0).message());
            assertEquals(logGoesOn, !f.get(0).message().contains("may still come"));
            assertEquals(
                    List.of(published.id(), removed.id(), asked.id()), f.get(0).eventIds());
        }
    }

    @Test
    void aVolumeUnpublishedOrOfARunningPodIsNoLeak() {
        PodLog running = new PodLog("a").created(0);
        running.then(10, "/csi/node-1", EventTypes.VOLUME_PUBLISHED, volume(running, "data", "default/pgdata"));
        PodLog gone = new PodLog("b").created(0);
        gone.then(10, "/csi/node-1", EventTypes.VOLUME_PUBLISHED, volume(gone, "data", "default/other"));
        gone.then(1_000, "/csi/node-1", EventTypes.VOLUME_UNPUBLISHED, volume(gone, "data", "default/other"));
        gone.removed(1_100);
        assertEquals(
                List.of(),
                Leaks.volumes(cat(cat(running.events, gone.events), new PodLog("c").created(90_000).events)));
    }

    /** Staged once on the node for two pods: unstaged only when both are gone; never unstaged after that is a leak. */
    @Test
    void aVolumeStagedForPodsThatWereAllRemovedAndNeverUnstaged() {
        PodLog a = new PodLog("a").created(0);
        Map<String, Object> device = data(
                "node",
                "node-1",
                "driver",
                "podfall.csi",
                "volumeId",
                "default/shared",
                "stagingTargetPath",
                "/var/lib/kubelet/plugins/shared");
        Event staged = a.then(5, "/csi/node-1", EventTypes.VOLUME_STAGED, device);
        a.then(10, "/csi/node-1", EventTypes.VOLUME_PUBLISHED, volume(a, "data", "default/shared"));
        PodLog b = new PodLog("b").created(20);
        b.then(30, "/csi/node-1", EventTypes.VOLUME_PUBLISHED, volume(b, "data", "default/shared"));
        a.then(1_000, "/csi/node-1", EventTypes.VOLUME_UNPUBLISHED, volume(a, "data", "default/shared"));
        a.removed(1_100);
        List<Event> later = new PodLog("c").created(90_000).events;
        assertEquals(List.of(), Leaks.volumes(cat(cat(a.events, b.events), later)), "b still uses it");

        b.then(2_000, "/csi/node-1", EventTypes.VOLUME_UNPUBLISHED, volume(b, "data", "default/shared"));
        Event last = b.removed(2_100);
        List<Finding> f = Leaks.volumes(cat(cat(a.events, b.events), later));
        assertEquals(1, f.size());
        assertEquals(Level.ERROR, f.get(0).level());
        assertEquals("namespaces/default/pods/b", f.get(0).subject());
        assertTrue(
                f.get(0)
                        .message()
                        .startsWith("volume default/shared staged on node-1 never unstaged, though no pod "
                                + "of the node uses it (2 pods published it), though the pod was removed at"),
                f.get(0).message());
        assertEquals(List.of(staged.id(), last.id()), f.get(0).eventIds());

        Event unstaged = b.then(2_200, "/csi/node-1", EventTypes.VOLUME_UNSTAGED, device);
        assertEquals(List.of(), Leaks.volumes(cat(cat(a.events, b.events), later)), "unstaged by " + unstaged.id());
    }

    /**
     * The kubelet's final delete found finalizers: the pod stays, held, until the update that takes the last one away.
     * Longer than the threshold is a warning naming them; within it, nothing.
     */
    @Test
    void aPodKeptByFinalizersLongerThanTheThresholdAfterTheKubeletsFinalDelete() {
        PodLog p = new PodLog("a").created(0);
        p.delete(1_000, 1);
        p.markedTerminating(1_017, 1);
        Event finalDelete = p.then(
                2_100,
                "/kubelet/node-1",
                EventTypes.DELETION_REQUESTED,
                data(
                        "resource",
                        "pods",
                        "namespace",
                        "default",
                        "name",
                        "a",
                        "options",
                        data("gracePeriodSeconds", 0, "preconditions", data("uid", p.uid))));
        Event marked = p.then(
                2_200, "/apiserver", EventTypes.OBJECT_MARKED_TERMINATING, held(p, "example.com/a", "example.com/b"));
        Event one = p.then(12_200, "/apiserver", EventTypes.OBJECT_UPDATED, held(p, "example.com/b"));
        List<Event> stillHeld = new ArrayList<>(p.events);
        Event removed = p.then(47_200, "/apiserver", EventTypes.OBJECT_REMOVED, held(p));

        List<Finding> f = FinalizerBlocking.of(p.events, Duration.ofSeconds(30));
        assertEquals(1, f.size());
        assertEquals(Level.WARNING, f.get(0).level());
        assertEquals("finalizer-blocking", f.get(0).rule());
        assertEquals(
                "kept by its finalizers [example.com/a, example.com/b] 45000 ms after its final delete by "
                        + "/kubelet/node-1 (longer than 30000 ms): example.com/a taken away at +10000 ms, example.com/b taken "
                        + "away at +45000 ms (removed)",
                f.get(0).message());
        assertEquals(
                List.of(finalDelete.id(), marked.id(), one.id(), removed.id()),
                f.get(0).eventIds());
        assertEquals(List.of(), FinalizerBlocking.of(p.events, Duration.ofSeconds(45)), "45 s is not longer than 45 s");

        stillHeld.addAll(new PodLog("b").created(40_000).events);
        List<Finding> open = FinalizerBlocking.of(stillHeld, Duration.ofSeconds(30));
        assertTrue(
                open.get(0)
                        .message()
                        .endsWith("example.com/a taken away at +10000 ms; still held by [example.com/b] "
                                + "when the log ends"),
                open.get(0).message());
        assertEquals(List.of(), FinalizerBlocking.of(stillHeld, Duration.ofSeconds(40)));
    }

    /** Finalizers during the graceful part of a deletion hold nothing yet: only grace 0 is a hold. */
    @Test
    void finalizersOfAPodStillInItsGracePeriodHoldNothing() {
        PodLog p = new PodLog("a").created(0);
        p.delete(1_000, 60);
        p.then(
                1_010,
                "/apiserver",
                EventTypes.OBJECT_MARKED_TERMINATING,
                data(
                        "resource",
                        "pods",
                        "object",
                        data(
                                "metadata",
                                data(
                                        "uid",
                                        p.uid,
                                        "deletionTimestamp",
                                        PodLog.at(61_010).toString(),
                                        "deletionGracePeriodSeconds",
                                        60,
                                        "finalizers",
                                        List.of("example.com/a")))));
        p.events.addAll(new PodLog("b").created(100_000).events);
        assertEquals(List.of(), FinalizerBlocking.of(p.events, Duration.ofSeconds(30)));
    }

    private static Map<String, Object> volume(PodLog p, String name, String id) {
        return data(
                "node",
                p.node,
                "podUid",
                p.uid,
                "volumeName",
                name,
                "driver",
                "podfall.csi",
                "volumeId",
                id,
                "targetPath",
                "/var/lib/kubelet/pods/" + p.uid + "/volumes/" + name);
    }

    /** The pod as stored at grace 0 with these finalizers left. */
    private static Map<String, Object> held(PodLog p, String... finalizers) {
        return data(
                "resource",
                "pods",
                "object",
                data(
                        "metadata",
                        data(
                                "uid",
                                p.uid,
                                "deletionTimestamp",
                                PodLog.at(2_200).toString(),
                                "deletionGracePeriodSeconds",
                                0,
                                "finalizers",
                                List.of(finalizers))));
    }
}
