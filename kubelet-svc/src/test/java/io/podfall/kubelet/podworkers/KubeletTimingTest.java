package io.podfall.kubelet.podworkers;

import static io.podfall.kubelet.podworkers.KubeletDriver.NODE;
import static io.podfall.kubelet.podworkers.KubeletDriver.T0;
import static io.podfall.kubelet.podworkers.KubeletDriver.only;
import static io.podfall.kubelet.podworkers.KubeletDriver.types;
import static io.podfall.model.event.EventTypes.DELETION_REQUESTED;
import static io.podfall.model.event.EventTypes.OBJECT_MARKED_TERMINATING;
import static io.podfall.model.event.EventTypes.OBJECT_REMOVED;
import static io.podfall.model.event.EventTypes.POD_BOUND;
import static io.podfall.model.event.EventTypes.POD_TERMINATED;
import static io.podfall.model.event.EventTypes.POD_TERMINATION_STARTED;
import static io.podfall.model.event.EventTypes.REMOVE_POD_SANDBOX_REQUESTED;
import static io.podfall.model.event.EventTypes.START_CONTAINER_REQUESTED;
import static io.podfall.model.event.EventTypes.STATUS_UPDATE_REQUESTED;
import static io.podfall.model.event.EventTypes.STOP_CONTAINER_REQUESTED;
import static io.podfall.model.event.EventTypes.STOP_POD_SANDBOX_REQUESTED;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.podfall.model.apiserver.StatusUpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.core.TimerKey;
import io.podfall.model.kubelet.PodTerminationStart;
import io.podfall.model.runtime.StopContainer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * A released kubelet's waits (pod_workers.go, pleg/generic.go, kuberuntime_gc.go): the PLEG's relist every second, the
 * pod worker's wait for a pod cache newer than its last sync, the container GC every minute.
 */
class KubeletTimingTest {
    private static final KubeletTiming TIMING = KubeletTiming.UPSTREAM;
    private static final String UID = "uid-web-1";

    private final KubeletDriver kubelet = new KubeletDriver(new PodWorkers(List.of(NODE), Compat.NONE, 30, TIMING));
    private final Pod pod =
            aPod("web-1").withUid(UID).onNode(NODE).withGrace(30).build();

    @Nested
    class Periods {
        @Test
        void theRelistsOfANodeFallOnAGridOfItsOwnOneSecondApart() {
            Instant relist = TIMING.nextRelist(NODE, T0);
            assertTrue(relist.isAfter(T0) && !relist.isAfter(T0.plusSeconds(1)), relist.toString());
            assertEquals(
                    relist.plusSeconds(1),
                    TIMING.nextRelist(NODE, relist),
                    "strictly after: the cache a relist stamps at t is not newer than t");
            assertEquals(relist, TIMING.nextRelist(NODE, relist.minusNanos(1)));
            assertNotEquals(relist, TIMING.nextRelist("node-2", T0), "each node has its own phase");
            assertEquals(T0, KubeletTiming.FAST.nextRelist(NODE, T0), "no period, no wait");
            Instant gc = TIMING.nextContainerGc(NODE, T0);
            assertTrue(gc.isAfter(T0) && !gc.isAfter(T0.plusSeconds(60)), gc.toString());
        }

        @Test
        void theNodeAnnotationNamesBothPeriodsAndReadsBack() {
            assertEquals("pleg-relist-period=1s,container-gc-period=1m0s", TIMING.annotation());
            assertEquals(TIMING, KubeletTiming.ofAnnotation(TIMING.annotation()));
            assertEquals(
                    new KubeletTiming(Duration.ofMillis(500), Duration.ofSeconds(90)),
                    KubeletTiming.ofAnnotation("pleg-relist-period=500ms,container-gc-period=1m30s"));
            assertEquals("1.500s", KubeletTiming.format(Duration.ofMillis(1500)));
            assertEquals(Duration.ofMillis(1500), KubeletTiming.parse("1.5s"));
            assertEquals(Duration.ofSeconds(2), KubeletTiming.parse("2"));
            assertEquals(KubeletTiming.FAST, KubeletTiming.profile("fast"));
            assertThrows(IllegalArgumentException.class, () -> KubeletTiming.parse("soon"));
            assertThrows(IllegalArgumentException.class, () -> KubeletTiming.parse("-1s"));
            assertThrows(IllegalArgumentException.class, () -> KubeletTiming.profile("slow"));
        }
    }

    @Test
    void theRunningStatusIsReportedAtTheRelistThatSeesTheContainerStarted() {
        kubelet.apiserver(POD_BOUND, pod);
        kubelet.sandboxStarted(pod);
        Effects started = kubelet.containerStarted(pod, "app");
        assertEquals(List.of(), types(started), "StartContainer returned; the PLEG has not relisted yet");
        Timer relist = timer(started, PodWorkerTimer.Relist.class);
        assertEquals(TIMING.nextRelist(NODE, T0), relist.at());

        Effects synced = kubelet.fire(relist);
        assertEquals(
                "Running",
                only(synced, STATUS_UPDATE_REQUESTED, StatusUpdateRequest.class)
                        .status()
                        .getPhase());
    }

    @Test
    void aPodSyncedLongAgoIsKilledAtOnceAndItsWorkerFinishesAtTheRelistAfterTheKillReturned() {
        running();
        kubelet.after(10);
        Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));
        assertEquals(
                List.of(POD_TERMINATION_STARTED, STOP_CONTAINER_REQUESTED),
                types(kill),
                "a relist stamped the cache since the last sync: no wait");
        assertEquals(List.of(STOP_POD_SANDBOX_REQUESTED), types(kubelet.containerExited(pod, "app", 0)));

        Effects stopped = kubelet.sandboxStopped(pod);
        assertEquals(
                List.of(STATUS_UPDATE_REQUESTED),
                types(stopped),
                "SyncTerminatingPod writes the terminal phase when the kill returns; SyncTerminatedPod waits");
        Timer sync = timer(stopped, PodWorkerTimer.Sync.class);
        assertEquals(TIMING.nextRelist(NODE, kubelet.now), sync.at());
        assertEquals(List.of(), types(kubelet.statusWritten(pod, stopped)), "the worker has not finished");

        assertEquals(List.of(POD_TERMINATED, DELETION_REQUESTED), types(kubelet.fire(sync)));
    }

    @Test
    void aPodDeletedRightAfterItsLastSyncIsKilledAtTheNextRelistWithTheGracePeriodItHasThen() {
        Instant lastSync = running();
        kubelet.at(lastSync.plusMillis(100));
        Effects deleted = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));
        assertEquals(List.of(), types(deleted), "the worker waits for a cache newer than its last sync");
        Timer sync = timer(deleted, PodWorkerTimer.Sync.class);
        assertEquals(lastSync.plusSeconds(1), sync.at());
        assertEquals(
                List.of(),
                types(kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 5))),
                "no kill is in flight to shorten");

        Effects kill = kubelet.fire(sync);
        PodTerminationStart started = only(kill, POD_TERMINATION_STARTED, PodTerminationStart.class);
        assertEquals(5, started.gracePeriodSeconds());
        assertEquals(sync.at().plusSeconds(5), started.deadline(), "the kill counts the grace period from its start");
        assertEquals(
                5, only(kill, STOP_CONTAINER_REQUESTED, StopContainer.class).timeoutSeconds());
    }

    @Test
    void aContainerThatExitsByItselfIsSeenAndRestartedAtTheNextRelist() {
        running();
        kubelet.after(5);
        Effects exited = kubelet.containerExited(pod, "app", 1);
        assertEquals(List.of(), types(exited));
        Effects restarted = kubelet.fire(timer(exited, PodWorkerTimer.Relist.class));
        assertTrue(
                types(restarted).contains(START_CONTAINER_REQUESTED),
                types(restarted).toString());
    }

    @Test
    void theSandboxOfADeletedPodIsRemovedByTheNextRunOfTheContainerGc() {
        running();
        kubelet.after(10);
        kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));
        kubelet.containerExited(pod, "app", 0);
        Effects stopped = kubelet.sandboxStopped(pod);
        kubelet.statusWritten(pod, stopped);
        kubelet.fire(timer(stopped, PodWorkerTimer.Sync.class));

        Effects removed = kubelet.apiserver(OBJECT_REMOVED, kubelet.markedTerminating(pod, 0));
        assertEquals(List.of(), types(removed));
        Timer gc = timer(removed, PodWorkerTimer.ContainerGc.class);
        assertEquals(TIMING.nextContainerGc(NODE, kubelet.now), gc.at());
        assertEquals(List.of(REMOVE_POD_SANDBOX_REQUESTED), types(kubelet.fire(gc)));
    }

    /** Binds and runs the pod, and fires the relist that reports it Running: the worker's last sync, returned. */
    private Instant running() {
        kubelet.apiserver(POD_BOUND, pod);
        kubelet.sandboxStarted(pod);
        Timer relist = timer(kubelet.containerStarted(pod, "app"), PodWorkerTimer.Relist.class);
        kubelet.fire(relist);
        return relist.at();
    }

    private static Timer timer(Effects effects, Class<? extends TimerKey> kind) {
        List<Timer> all =
                effects.timers().stream().filter(t -> kind.isInstance(t.key())).toList();
        assertEquals(1, all.size(), () -> "one " + kind.getSimpleName() + " timer in " + effects.timers());
        return all.get(0);
    }
}
