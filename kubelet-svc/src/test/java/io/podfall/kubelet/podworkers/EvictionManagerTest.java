package io.podfall.kubelet.podworkers;

import static io.podfall.kubelet.podworkers.KubeletDriver.NODE;
import static io.podfall.kubelet.podworkers.KubeletDriver.T0;
import static io.podfall.kubelet.podworkers.KubeletDriver.only;
import static io.podfall.kubelet.podworkers.KubeletDriver.types;
import static io.podfall.model.event.EventTypes.DELETION_REQUESTED;
import static io.podfall.model.event.EventTypes.OBJECT_CREATED;
import static io.podfall.model.event.EventTypes.OBJECT_MARKED_TERMINATING;
import static io.podfall.model.event.EventTypes.OBJECT_UPDATED;
import static io.podfall.model.event.EventTypes.POD_EVICTED;
import static io.podfall.model.event.EventTypes.POD_TERMINATED;
import static io.podfall.model.event.EventTypes.POD_TERMINATION_STARTED;
import static io.podfall.model.event.EventTypes.STATUS_UPDATE_REQUESTED;
import static io.podfall.model.event.EventTypes.STOP_CONTAINER_REQUESTED;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.podfall.model.apiserver.StatusUpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.core.TimerKey;
import io.podfall.model.kubelet.PodEviction;
import io.podfall.model.kubelet.PodTerminationStart;
import io.podfall.model.runtime.StopContainer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Eviction under node pressure (pkg/kubelet/eviction/eviction_manager.go), driven by the Node's annotation. */
class EvictionManagerTest {
    private static final TimerKey TIMER = new PodWorkerTimer.Eviction(NODE);

    private final KubeletDriver kubelet =
            new KubeletDriver(new PodWorkers(List.of(NODE), Compat.NONE, 20, KubeletTiming.FAST));
    private final Pod older = pod("web-1", 0, 60, null);
    private final Pod newer = pod("web-2", 5, 60, null);
    private final Pod important = pod("web-3", 9, 60, 1000);
    private final Pod critical = pod("kube-proxy", 9, 60, EvictionManager.SYSTEM_CRITICAL_PRIORITY);

    EvictionManagerTest() {
        kubelet.apiserver(OBJECT_CREATED, node(1, null));
        List.of(older, newer, important, critical).forEach(kubelet::running);
    }

    private static Pod pod(String name, long createdAfter, long grace, Integer priority) {
        return new PodBuilder(aPod(name)
                        .withUid("uid-" + name)
                        .onNode(NODE)
                        .withGrace(grace)
                        .build())
                .editMetadata()
                .withCreationTimestamp(T0.plusSeconds(createdAfter).toString())
                .endMetadata()
                .editSpec()
                .withPriority(priority)
                .endSpec()
                .build();
    }

    private static Node node(long resourceVersion, String pressure) {
        NodeBuilder b = new NodeBuilder()
                .withNewMetadata()
                .withName(NODE)
                .withResourceVersion(Long.toString(resourceVersion))
                .endMetadata();
        if (pressure != null) {
            b.editMetadata()
                    .addToAnnotations(EvictionManager.PRESSURE_ANNOTATION, pressure)
                    .endMetadata();
        }
        return b.build();
    }

    private static Timer cycle(Effects effects) {
        return effects.timers().stream()
                .filter(t -> t.key().equals(TIMER))
                .findFirst()
                .orElseThrow();
    }

    /** Failed, reason Evicted, with the kubelet's DisruptionTarget condition, which it returns. */
    private static PodCondition assertEvicted(PodStatus status) {
        assertEquals("Failed", status.getPhase());
        assertEquals("Evicted", status.getReason());
        assertEquals("The node was low on resource: memory.", status.getMessage());
        PodCondition target = status.getConditions().stream()
                .filter(c -> c.getType().equals("DisruptionTarget"))
                .findFirst()
                .orElseThrow();
        assertEquals("True", target.getStatus());
        assertEquals("TerminationByKubelet", target.getReason());
        return target;
    }

    private static String evicted(Effects effects) {
        return only(effects, POD_EVICTED, PodEviction.class).name();
    }

    @Test
    void pressureEvictsTheNewestPodOfTheLowestPriorityAtOnceWithTheOverrideGrace() {
        Effects effects = kubelet.after(2).apiserver(OBJECT_UPDATED, node(2, "memory"));

        assertEquals(
                List.of(POD_EVICTED, POD_TERMINATION_STARTED, STATUS_UPDATE_REQUESTED, STOP_CONTAINER_REQUESTED),
                types(effects));
        PodEviction eviction = only(effects, POD_EVICTED, PodEviction.class);
        assertEquals("web-2", eviction.name());
        assertEquals("uid-web-2", eviction.podUid());
        assertEquals(NODE, eviction.node());
        assertEquals("memory.available", eviction.signal());
        assertEquals("memory", eviction.resource());
        assertEquals(20, eviction.gracePeriodSeconds(), "the configured maximum, shorter than the pod's 60 s");
        assertEquals(
                20,
                only(effects, POD_TERMINATION_STARTED, PodTerminationStart.class)
                        .gracePeriodSeconds());
        assertEquals(
                20, only(effects, STOP_CONTAINER_REQUESTED, StopContainer.class).timeoutSeconds());
        assertEquals(T0.plusSeconds(12), cycle(effects).at(), "the next cycle one monitoring interval later");
        assertTrue(kubelet.worker(newer).status().isEvicted());
    }

    @Test
    void oneMorePodIsEvictedEachCycleWhileThePressureLastsAndCriticalPodsNever() {
        Effects first = kubelet.apiserver(OBJECT_UPDATED, node(2, "memory"));

        Effects second = kubelet.fire(cycle(first));
        Effects third = kubelet.fire(cycle(second));
        Effects fourth = kubelet.fire(cycle(third));

        assertEquals(List.of("web-2", "web-1", "web-3"), List.of(evicted(first), evicted(second), evicted(third)));
        assertEquals(List.of(), types(fourth), "only a critical pod is left");
        assertEquals(T0.plusSeconds(40), cycle(fourth).at(), "the manager keeps watching while the pressure lasts");
    }

    @Test
    void aPodWhoseOwnGracePeriodIsShorterKeepsIt() {
        KubeletDriver k = new KubeletDriver(new PodWorkers(List.of(NODE), Compat.NONE, 30, KubeletTiming.FAST));
        k.apiserver(OBJECT_CREATED, node(1, null));
        k.running(pod("short", 0, 10, null));

        Effects effects = k.apiserver(OBJECT_UPDATED, node(2, "memory"));

        assertEquals(10, only(effects, POD_EVICTED, PodEviction.class).gracePeriodSeconds());
    }

    @Test
    void theEvictedPodEndsFailedEvictedWithTheDisruptionTargetAndIsNotDeleted() {
        kubelet.apiserver(OBJECT_UPDATED, node(2, "memory"));
        kubelet.after(1).containerExited(newer, "app", 143);

        Effects stopped = kubelet.sandboxStopped(newer);

        assertEquals(List.of(STATUS_UPDATE_REQUESTED, POD_TERMINATED), types(stopped));
        assertEvicted(only(stopped, STATUS_UPDATE_REQUESTED, StatusUpdateRequest.class)
                .status());
        assertEquals(
                List.of(),
                types(kubelet.statusWritten(newer, stopped)),
                "not marked for deletion: the status manager does not delete it");
    }

    @Test
    void theEvictedStatusIsWrittenAsTerminationStartsWhileTheContainersStillRun() {
        Effects effects = kubelet.after(2).apiserver(OBJECT_UPDATED, node(2, "memory"));

        PodStatus status = only(effects, STATUS_UPDATE_REQUESTED, StatusUpdateRequest.class)
                .status();
        assertEquals(T0.plusSeconds(2).toString(), assertEvicted(status).getLastTransitionTime());
        assertEquals("nginx:1.27", status.getContainerStatuses().get(0).getImage());
        assertTrue(
                status.getContainerStatuses().get(0).getState().getRunning() != null,
                "the container is still being stopped: the status says so, as upstream's does");
    }

    @Test
    void theFinalStatusOfAnEvictedPodKeepsTheEvictionsConditionFromItsStart() {
        Effects started = kubelet.after(2).apiserver(OBJECT_UPDATED, node(2, "memory"));
        kubelet.statusWritten(newer, started);
        kubelet.after(5).containerExited(newer, "app", 143);

        PodStatus status = only(kubelet.sandboxStopped(newer), STATUS_UPDATE_REQUESTED, StatusUpdateRequest.class)
                .status();

        assertEquals(
                List.of(T0.plusSeconds(2).toString()),
                status.getConditions().stream()
                        .filter(c -> c.getType().equals("DisruptionTarget"))
                        .map(PodCondition::getLastTransitionTime)
                        .toList(),
                "one DisruptionTarget, from when the eviction began");
        assertEquals(
                143,
                status.getContainerStatuses().get(0).getState().getTerminated().getExitCode());
    }

    @Test
    void theDisruptionTargetOfAnApiEvictionStaysInTheKubeletsFinalStatus() {
        PodCondition byApi = new PodConditionBuilder()
                .withType("DisruptionTarget")
                .withStatus("True")
                .withReason("EvictionByEvictionAPI")
                .build();
        Pod evicting = new PodBuilder(kubelet.markedTerminating(older, 30))
                .editOrNewStatus()
                .withPhase("Running")
                .withConditions(byApi)
                .endStatus()
                .build();
        kubelet.apiserver(OBJECT_MARKED_TERMINATING, evicting);
        kubelet.containerExited(older, "app", 143);

        PodStatus status = only(kubelet.sandboxStopped(older), STATUS_UPDATE_REQUESTED, StatusUpdateRequest.class)
                .status();

        assertEquals("Failed", status.getPhase());
        assertEquals(
                List.of(byApi),
                status.getConditions().stream()
                        .filter(c -> c.getType().equals("DisruptionTarget"))
                        .toList());
    }

    @Test
    void anEvictedPodIsDeletedOnceSomeoneMarksItForDeletion() {
        kubelet.apiserver(OBJECT_UPDATED, node(2, "memory"));
        kubelet.containerExited(newer, "app", 143);
        Effects stopped = kubelet.sandboxStopped(newer);
        kubelet.statusWritten(newer, stopped);
        Pod failed = kubelet.worker(newer).pod();

        Effects deleted = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(failed, 0));

        assertEquals(List.of(DELETION_REQUESTED), types(deleted));
    }

    @Test
    void whenThePressureEndsNoMorePodIsEvicted() {
        Effects first = kubelet.apiserver(OBJECT_UPDATED, node(2, "memory"));

        Effects ended = kubelet.after(3).apiserver(OBJECT_UPDATED, node(3, null));

        assertEquals(List.of(), types(ended));
        assertEquals(List.of(TIMER), ended.cancelledTimers());
        assertEquals(List.of(), types(kubelet.fire(cycle(first))), "a cycle still due finds no pressure");
    }

    @Test
    void aRedeliveredNodeFactEmitsNothing() {
        Effects first = kubelet.apiserver(OBJECT_UPDATED, node(2, "memory"));

        Effects again = kubelet.redeliver(kubelet.delivered.get(kubelet.delivered.size() - 1));

        assertEquals(List.of(), types(again));
        assertEquals(List.of(), again.timers());
        assertEquals("web-2", evicted(first));
    }

    @Test
    void aRebuildFromTheLogDecidesTheSameEvictions() {
        Effects first = kubelet.apiserver(OBJECT_UPDATED, node(2, "memory"));
        Effects second = kubelet.fire(cycle(first));

        KubeletDriver rebuilt = new KubeletDriver(new PodWorkers(List.of(NODE), Compat.NONE, 20, KubeletTiming.FAST));
        List<Effects> replayed = kubelet.delivered.stream()
                .map(e -> rebuilt.core.handle(rebuilt.state, e, e.time()))
                .toList();
        Effects rebuiltFirst = replayed.get(replayed.size() - 1);
        Effects rebuiltSecond = rebuilt.fire(cycle(rebuiltFirst));

        assertEquals(first.events(), rebuiltFirst.events());
        assertEquals(first.timers(), rebuiltFirst.timers());
        assertEquals(second.events(), rebuiltSecond.events());
    }
}
