package io.podfall.kubelet.podworkers;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.podfall.kubelet.nodestatus.InitialNode;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The pod status the kubelet writes: running once every container runs, terminal once the pod is terminated
 * (pkg/kubelet/kubelet_pods.go generateAPIPodStatus and getPhase; pkg/kubelet/status/status_manager.go
 * TerminatePod).
 */
final class PodStatuses {
    static final String CONTAINER_ID_SCHEME = "podfall://";
    /** pkg/kubelet/types/pod_status.go PodConditionsByKubelet: the conditions the kubelet owns and always writes. */
    private static final List<String> KUBELET_CONDITIONS = List.of("PodScheduled", "Ready", "Initialized",
            "ContainersReady", "PodReadyToStartContainers");

    private PodStatuses() {
    }

    static PodStatus running(PodWorker w, Instant now) {
        List<ContainerStatus> containers = w.containers.values().stream()
                .map(c -> base(c).withReady(true).withStarted(true)
                        .withNewState().withNewRunning().withStartedAt(time(c.startedAt)).endRunning().endState()
                        .build())
                .toList();
        return status(w, "Running", containers, List.of(
                condition("Initialized", "True", null, w.status.startedAt),
                condition("Ready", "True", null, now),
                condition("ContainersReady", "True", null, now),
                condition("PodScheduled", "True", null, w.status.syncedAt)));
    }

    /**
     * The final status. A container the runtime never reported as exited (never started, because the pod was
     * deleted first) is reported terminated with 137 and ContainerStatusUnknown, as status_manager.go
     * TerminatePod does, "so that we do not incorrectly describe the pod as successful". Phase Succeeded only
     * if every container exited 0, else Failed: a terminated pod is never left Pending or Running.
     */
    static PodStatus terminal(PodWorker w, Instant now) {
        List<ContainerStatus> containers = w.pod.getSpec().getContainers().stream()
                .map(spec -> {
                    RuntimeContainer c = w.containers.get(spec.getName());
                    if (c == null || c.state != RuntimeContainer.State.EXITED) {
                        return new ContainerStatusBuilder().withName(spec.getName()).withImage(spec.getImage())
                                .withImageID("").withReady(false).withRestartCount(0).withStarted(false)
                                .withNewState().withNewTerminated()
                                .withExitCode(137).withReason("ContainerStatusUnknown")
                                .withMessage("The container could not be located when the pod was terminated")
                                .endTerminated().endState()
                                .build();
                    }
                    return base(c).withReady(false).withStarted(false)
                            .withNewState().withNewTerminated()
                            .withExitCode(c.exitCode).withReason(c.reason)
                            .withStartedAt(time(c.startedAt)).withFinishedAt(time(c.finishedAt))
                            .withContainerID(CONTAINER_ID_SCHEME + c.containerId)
                            .endTerminated().endState()
                            .build();
                })
                .toList();
        boolean succeeded = containers.stream().allMatch(c -> c.getState().getTerminated().getExitCode() == 0);
        List<PodCondition> conditions = new ArrayList<>(List.of(
                condition("Initialized", "True", "PodCompleted", w.status.startedAt),
                condition("Ready", "False", "PodCompleted", now),
                condition("ContainersReady", "False", "PodCompleted", now),
                condition("PodScheduled", "True", null, w.status.syncedAt)));
        if (!w.status.isEvicted()) {
            return status(w, succeeded ? "Succeeded" : "Failed", containers, conditions);
        }
        // eviction_manager.go evictPod: Failed, reason Evicted, and the DisruptionTarget condition, whatever the
        // containers' exit codes.
        conditions.add(new PodConditionBuilder().withType("DisruptionTarget").withStatus("True")
                .withReason("TerminationByKubelet").withMessage(w.evictionMessage)
                .withLastTransitionTime(time(w.status.terminatingAt)).build());
        PodStatus status = status(w, "Failed", containers, conditions);
        status.setReason("Evicted");
        status.setMessage(w.evictionMessage);
        return status;
    }

    /**
     * The kubelet's conditions, and after them those it does not own that the API server holds (generateAPIPodStatus
     * keeps every condition not in kubetypes.PodConditionByKubelet, and the status manager merges DisruptionTarget
     * unless the kubelet sets its own): an eviction's DisruptionTarget stays on the pod to its end.
     */
    private static PodStatus status(PodWorker w, String phase, List<ContainerStatus> containers,
                                    List<PodCondition> kubelets) {
        List<PodCondition> conditions = new ArrayList<>(kubelets);
        List<PodCondition> held = w.pod.getStatus() == null ? List.of() : w.pod.getStatus().getConditions();
        held.stream().filter(c -> !KUBELET_CONDITIONS.contains(c.getType())
                        && conditions.stream().noneMatch(own -> own.getType().equals(c.getType())))
                .forEach(conditions::add);
        String hostIP = InitialNode.internalIP(w.node);
        PodStatusBuilder b = new PodStatusBuilder().withPhase(phase)
                .withHostIP(hostIP).addNewHostIP(hostIP)
                .withStartTime(time(w.status.startedAt))
                .withConditions(conditions)
                .withContainerStatuses(containers);
        if (w.podIP != null) {
            b.withPodIP(w.podIP).withPodIPs(new PodIP(w.podIP));
        }
        return b.build();
    }

    private static ContainerStatusBuilder base(RuntimeContainer c) {
        return new ContainerStatusBuilder().withName(c.name).withImage(c.image).withImageID("")
                .withContainerID(CONTAINER_ID_SCHEME + c.containerId).withRestartCount(0);
    }

    private static PodCondition condition(String type, String status, String reason, Instant since) {
        return new PodConditionBuilder().withType(type).withStatus(status).withReason(reason)
                .withLastTransitionTime(time(since)).build();
    }

    /** RFC 3339, as metav1.Time is written; null stays absent. */
    private static String time(Instant t) {
        return t == null ? null : t.toString();
    }
}
