package io.podfall.kubelet.podworkers;

import static io.podfall.kubelet.podworkers.KubeletDriver.NODE;
import static io.podfall.kubelet.podworkers.KubeletDriver.T0;
import static io.podfall.model.event.EventTypes.OBJECT_REMOVED;
import static io.podfall.model.event.EventTypes.ORPHANED_POD_FOUND;
import static io.podfall.model.event.EventTypes.POD_TERMINATED;
import static io.podfall.model.event.EventTypes.POD_TERMINATION_STARTED;
import static io.podfall.model.event.EventTypes.REMOVE_POD_SANDBOX_REQUESTED;
import static io.podfall.model.event.EventTypes.STOP_CONTAINER_REQUESTED;
import static io.podfall.model.event.EventTypes.STOP_POD_SANDBOX_REQUESTED;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.core.TimerKey;
import io.podfall.model.event.Event;
import io.podfall.model.kubelet.OrphanedPod;
import io.podfall.model.kubelet.PodTerminationStart;
import io.podfall.model.runtime.SandboxRef;
import io.podfall.model.runtime.StopContainer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Housekeeping of pods only the runtime knows (pkg/kubelet/kubelet_pods.go HandlePodCleanups): a sandbox or container
 * the runtime reports for a pod the kubelet has no API object and no worker for is torn down.
 */
class OrphanedPodTest {
    private static final String UID = "uid-lost-1";
    private static final TimerKey HOUSEKEEPING = new PodWorkerTimer.Housekeeping("node-1", UID);

    private final KubeletDriver kubelet = new KubeletDriver();
    /** A pod the kubelet never heard of from the API server: only the runtime's facts name it. */
    private final Pod lost =
            aPod("lost").withUid(UID).onNode(NODE).withContainer("sidecar").build();

    private static List<String> types(Effects effects) {
        return effects.events().stream().map(Event::type).toList();
    }

    private static Timer housekeeping(Effects effects) {
        return effects.timers().stream()
                .filter(t -> t.key().equals(HOUSEKEEPING))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void aPodTheRuntimeRunsThatTheKubeletDoesNotKnowIsStoppedWithTheDefaultGraceThenRemoved() {
        Effects found = kubelet.sandboxStarted(lost);
        assertTrue(found.events().isEmpty(), "nothing is started for a pod without a spec: " + types(found));
        assertEquals(
                T0.plus(PodCleanups.HOUSEKEEPING_PERIOD), housekeeping(found).at());
        assertTrue(kubelet.containerStarted(lost, "app").events().isEmpty());
        assertTrue(kubelet.containerStarted(lost, "sidecar").events().isEmpty(), "no Running status for it");

        Effects cleanup = kubelet.fire(housekeeping(found));
        assertEquals(
                List.of(
                        ORPHANED_POD_FOUND,
                        POD_TERMINATION_STARTED,
                        STOP_CONTAINER_REQUESTED,
                        STOP_CONTAINER_REQUESTED),
                types(cleanup));
        OrphanedPod orphan = cleanup.events().get(0).data(OrphanedPod.class);
        assertEquals(new OrphanedPod(NODE, UID, "default", "lost", List.of("app", "sidecar"), 1), orphan);
        assertEquals("namespaces/default/pods/lost", cleanup.events().get(0).subject());
        assertEquals(1, cleanup.events().get(1).data(PodTerminationStart.class).gracePeriodSeconds());
        List<StopContainer> stops = cleanup.events().stream()
                .filter(e -> e.is(STOP_CONTAINER_REQUESTED))
                .map(e -> e.data(StopContainer.class))
                .toList();
        assertEquals(
                List.of(KubeletDriver.containerId(lost, "app"), KubeletDriver.containerId(lost, "sidecar")),
                stops.stream().map(StopContainer::containerId).toList());
        assertTrue(
                stops.stream().allMatch(s -> s.timeoutSeconds() == 2),
                "SyncTerminatingRuntimePod's 1 s, raised to killContainer's minimum of 2 s");

        kubelet.containerExited(lost, "app", 143);
        assertEquals(List.of(STOP_POD_SANDBOX_REQUESTED), types(kubelet.containerExited(lost, "sidecar", 143)));
        Effects stopped = kubelet.sandboxStopped(lost);
        assertEquals(
                List.of(POD_TERMINATED, REMOVE_POD_SANDBOX_REQUESTED),
                types(stopped),
                "no status and no delete: the API server has nothing of it");
        assertEquals(new SandboxRef(NODE, UID), stopped.events().get(1).data(SandboxRef.class));
        assertTrue(kubelet.state.isForgotten(UID));
    }

    @Test
    void housekeepingRunsOnceAndRepeatedFactsFindNothingNew() {
        Effects found = kubelet.sandboxStarted(lost);
        kubelet.containerStarted(lost, "app");
        assertSame(Effects.NONE, kubelet.redeliver(kubelet.delivered.get(0)), "a repeated SandboxStarted");
        assertSame(Effects.NONE, kubelet.redeliver(kubelet.delivered.get(1)), "a repeated ContainerStarted");

        assertEquals(
                ORPHANED_POD_FOUND,
                kubelet.fire(housekeeping(found)).events().get(0).type());
        assertSame(Effects.NONE, kubelet.fire(housekeeping(found)), "the same housekeeping again");
    }

    @Test
    void aContainerReportedWithoutItsSandboxIsEnoughToFindThePod() {
        Effects found = kubelet.containerStarted(lost, "app");
        Effects cleanup = kubelet.fire(housekeeping(found));
        assertEquals(List.of(ORPHANED_POD_FOUND, POD_TERMINATION_STARTED, STOP_CONTAINER_REQUESTED), types(cleanup));
        assertEquals(
                List.of(STOP_POD_SANDBOX_REQUESTED),
                types(kubelet.containerExited(lost, "app", 137)),
                "a container runs only in a ready sandbox, so that one is stopped");
    }

    @Test
    void anOrphanWhoseSandboxStoppedAlreadyIsOnlyRemoved() {
        Effects found = kubelet.sandboxStarted(lost);
        kubelet.sandboxStopped(lost);

        Effects cleanup = kubelet.fire(housekeeping(found));
        assertEquals(
                List.of(ORPHANED_POD_FOUND, POD_TERMINATION_STARTED, POD_TERMINATED, REMOVE_POD_SANDBOX_REQUESTED),
                types(cleanup));
    }

    @Test
    void aPodOfAnotherNodeIsNoneOfThisKubeletsBusiness() {
        Pod elsewhere = aPod("elsewhere").withUid("uid-other").onNode("node-2").build();
        assertSame(Effects.NONE, kubelet.sandboxStarted(elsewhere));
        assertSame(Effects.NONE, kubelet.containerStarted(elsewhere, "app"));
    }

    @Test
    void aPodTheKubeletFinishedAndForgotIsNotFoundAgain() {
        Pod pod = kubelet.running(aPod("done").withUid("uid-done").onNode(NODE).build());
        kubelet.apiserver(OBJECT_REMOVED, pod);
        kubelet.containerExited(pod, "app", 137);
        kubelet.sandboxStopped(pod);
        assertTrue(kubelet.state.isForgotten("uid-done"));

        assertSame(Effects.NONE, kubelet.sandboxStarted(pod), "a late fact of a forgotten pod");
        assertSame(Effects.NONE, kubelet.containerStarted(pod, "app"));
    }

    @Test
    void aPodTheApiServerKnowsIsNeverAnOrphan() {
        Pod pod =
                kubelet.running(aPod("known").withUid("uid-known").onNode(NODE).build());
        assertTrue(kubelet.delivered.stream().noneMatch(e -> e.is(ORPHANED_POD_FOUND)));
        assertTrue(
                kubelet.worker(pod).containers().stream().allMatch(c -> c.state() == RuntimeContainer.State.RUNNING));
        assertEquals(false, kubelet.worker(pod).isRuntimeOnly());
    }
}
