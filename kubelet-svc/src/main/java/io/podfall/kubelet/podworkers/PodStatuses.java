package io.podfall.kubelet.podworkers;

import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.podfall.kubelet.nodestatus.InitialNode;
import io.podfall.model.apiserver.StatusUpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.MetaTimes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The pod status the kubelet writes (pkg/kubelet/kubelet_pods.go generateAPIPodStatus, convertToAPIContainerStatuses
 * and getPhase; pkg/kubelet/status/status_manager.go TerminatePod): each container as the runtime last reported it, the
 * phase that follows from them and the pod's restart policy, and the kubelet's conditions.
 */
final class PodStatuses {
    static final String CONTAINER_ID_SCHEME = "podfall://";
    static final String SUCCEEDED = "Succeeded";
    static final String FAILED = "Failed";
    /** kubecontainer.ErrCrashLoopBackOff: the waiting reason of a container that waits out its back-off. */
    static final String CRASH_LOOP_BACK_OFF = "CrashLoopBackOff";
    /** pkg/kubelet/types/pod_status.go PodConditionsByKubelet: the conditions the kubelet owns and always writes. */
    private static final List<String> KUBELET_CONDITIONS =
            List.of("PodScheduled", "Ready", "Initialized", "ContainersReady", "PodReadyToStartContainers");

    private PodStatuses() {}

    /** The status manager writes the pod's status (status_manager.go SetPodStatus, then its PATCH). */
    static void set(PodWorker w, PodStatus status, Effects.Builder out) {
        Prober.statusWritten(w, status, out);
        out.emit(
                w.source(),
                EventTypes.STATUS_UPDATE_REQUESTED,
                w.subject(),
                new StatusUpdateRequest(w.namespace(), w.name(), w.uid, status));
    }

    /** Whether the pod, as the API server holds it, is in a terminal phase: Succeeded or Failed. */
    static boolean isTerminal(Pod pod) {
        return isTerminal(pod.getStatus() == null ? null : pod.getStatus().getPhase());
    }

    static boolean isTerminal(String phase) {
        return SUCCEEDED.equals(phase) || FAILED.equals(phase);
    }

    /**
     * generateAPIPodStatus. {@code podIsTerminal} once the pod's containers are all stopped for good (the final
     * status): a container the runtime never reported as exited (never started, because the pod was deleted first) is
     * then reported terminated with 137 and ContainerStatusUnknown, as TerminatePod does, "so that we do not
     * incorrectly describe the pod as successful". The worker's {@code podStatusFunc} (an eviction's) is applied last,
     * as syncTerminatingPod applies the kill's PodStatusFunc.
     */
    static PodStatus generate(PodWorker w, Instant now, boolean podIsTerminal) {
        List<ContainerStatus> containers = w.pod().getSpec().getContainers().stream()
                .map(spec ->
                        containerStatus(w, w.container(spec.getName()), spec.getName(), spec.getImage(), podIsTerminal))
                .toList();
        String phase = getPhase(w.pod().getSpec().getRestartPolicy(), containers, podIsTerminal);
        List<String> unready = containers.stream()
                .filter(c -> !Boolean.TRUE.equals(c.getReady()))
                .map(ContainerStatus::getName)
                .toList();
        List<PodCondition> conditions;
        if (SUCCEEDED.equals(phase) || FAILED.equals(phase)) {
            conditions = List.of(
                    condition("Initialized", "True", "PodCompleted", null, w.status.startedAt),
                    condition("Ready", "False", "PodCompleted", null, now),
                    condition("ContainersReady", "False", "PodCompleted", null, now),
                    condition("PodScheduled", "True", null, null, w.status.syncedAt));
        } else {
            // pkg/kubelet/status/generate.go GeneratePodReadyCondition / GenerateContainersReadyCondition.
            String ready = unready.isEmpty() ? "True" : "False";
            String reason = unready.isEmpty() ? null : "ContainersNotReady";
            String message =
                    unready.isEmpty() ? null : "containers with unready status: [" + String.join(" ", unready) + "]";
            conditions = List.of(
                    condition("Initialized", "True", null, null, w.status.startedAt),
                    condition("Ready", ready, reason, message, now),
                    condition("ContainersReady", ready, reason, message, now),
                    condition("PodScheduled", "True", null, null, w.status.syncedAt));
        }
        PodStatus status = status(w, phase, containers, conditions);
        if (w.podStatusFunc != null) {
            w.podStatusFunc.accept(status);
        }
        return status;
    }

    /**
     * getPhase (kubelet_pods.go), for a pod without init containers: Pending while a container waits to start for the
     * first time; Running while one runs; once none runs, Succeeded or Failed if the pod is terminal or its restart
     * policy will not start them again (Never; OnFailure once all exited 0), else Running (they are being restarted). A
     * container waiting to be started again counts as stopped, not as waiting.
     */
    static String getPhase(String restartPolicy, List<ContainerStatus> containers, boolean podIsTerminal) {
        int unknown = 0;
        int running = 0;
        int waiting = 0;
        int stopped = 0;
        int succeeded = 0;
        for (ContainerStatus c : containers) {
            ContainerState state = c.getState();
            if (state.getRunning() != null) {
                running++;
            } else if (state.getTerminated() != null) {
                stopped++;
                if (state.getTerminated().getExitCode() == 0) {
                    succeeded++;
                }
            } else if (state.getWaiting() != null) {
                if (c.getLastState() != null && c.getLastState().getTerminated() != null) {
                    stopped++;
                } else {
                    waiting++;
                }
            } else {
                unknown++;
            }
        }
        if (waiting > 0) {
            return "Pending";
        }
        if (running > 0 && unknown == 0) {
            return "Running";
        }
        if (running == 0 && stopped > 0 && unknown == 0) {
            if (podIsTerminal) {
                return stopped == succeeded ? SUCCEEDED : FAILED;
            }
            if (restartPolicy == null || restartPolicy.equals("Always")) {
                return "Running";
            }
            if (stopped == succeeded) {
                return SUCCEEDED;
            }
            return restartPolicy.equals("Never") ? FAILED : "Running";
        }
        return "Pending";
    }

    /**
     * eviction_manager.go evictPod's PodStatusFunc: Failed, reason Evicted, and the DisruptionTarget condition
     * (TerminationByKubelet), whatever the containers' exit codes.
     */
    static void evicted(PodStatus status, String message, Instant since) {
        status.setPhase(FAILED);
        status.setReason("Evicted");
        status.setMessage(message);
        status.getConditions().removeIf(c -> c.getType().equals("DisruptionTarget"));
        status.getConditions()
                .add(new PodConditionBuilder()
                        .withType("DisruptionTarget")
                        .withStatus("True")
                        .withReason("TerminationByKubelet")
                        .withMessage(message)
                        .withLastTransitionTime(time(since))
                        .build());
    }

    /**
     * One container's status (convertToAPIContainerStatuses): running, terminated, or waiting, to start for the first
     * time or again; the last state is how the container before it ended, or, while it waits out its back-off, how it
     * ended itself; the restart count is its attempt.
     */
    private static ContainerStatus containerStatus(
            PodWorker w, RuntimeContainer c, String name, String image, boolean podIsTerminal) {
        ContainerStatusBuilder b = new ContainerStatusBuilder()
                .withName(name)
                .withImage(c == null ? image : c.image)
                .withImageID("")
                .withReady(false)
                .withStarted(false)
                .withRestartCount(c == null ? 0 : c.attempt);
        if (c != null && c.lastTerminated != null) {
            b.withLastState(terminated(c.lastTerminated));
        }
        if (c != null && c.state == RuntimeContainer.State.RUNNING) {
            // prober_manager.go UpdatePodStatus: started and ready as the probes say (at once without probes).
            return b.withReady(Prober.ready(w, c))
                    .withStarted(Prober.started(w, c))
                    .withContainerID(CONTAINER_ID_SCHEME + c.containerId)
                    .withNewState()
                    .withNewRunning()
                    .withStartedAt(time(c.startedAt))
                    .endRunning()
                    .endState()
                    .build();
        }
        if (c != null && c.state == RuntimeContainer.State.EXITED) {
            ContainerState exited = terminated(
                    new RuntimeContainer.Exit(c.containerId, c.exitCode, c.reason, c.startedAt, c.finishedAt));
            b.withContainerID(CONTAINER_ID_SCHEME + c.containerId);
            if (c.isInCrashLoopBackOff() && !podIsTerminal) {
                return b.withLastState(exited)
                        .withNewState()
                        .withNewWaiting()
                        .withReason(CRASH_LOOP_BACK_OFF)
                        .withMessage("back-off " + c.backOff.current().getSeconds() + "s restarting failed container="
                                + name + " pod=" + w.name() + "_" + w.namespace() + "(" + w.uid + ")")
                        .endWaiting()
                        .endState()
                        .build();
            }
            return b.withState(exited).build();
        }
        if (podIsTerminal) {
            return b.withNewState()
                    .withNewTerminated()
                    .withExitCode(137)
                    .withReason("ContainerStatusUnknown")
                    .withMessage("The container could not be located when the pod was terminated")
                    .endTerminated()
                    .endState()
                    .build();
        }
        return b.withNewState()
                .withNewWaiting()
                .withReason("ContainerCreating")
                .endWaiting()
                .endState()
                .build();
    }

    private static ContainerState terminated(RuntimeContainer.Exit exit) {
        return new ContainerStateBuilder()
                .withNewTerminated()
                .withExitCode(exit.exitCode())
                .withReason(exit.reason())
                .withStartedAt(time(exit.startedAt()))
                .withFinishedAt(time(exit.finishedAt()))
                .withContainerID(CONTAINER_ID_SCHEME + exit.containerId())
                .endTerminated()
                .build();
    }

    /**
     * The kubelet's conditions, and after them those it does not own that the API server holds (generateAPIPodStatus
     * keeps every condition not in kubetypes.PodConditionByKubelet, and the status manager merges DisruptionTarget
     * unless the kubelet sets its own): an eviction's DisruptionTarget stays on the pod to its end.
     */
    private static PodStatus status(
            PodWorker w, String phase, List<ContainerStatus> containers, List<PodCondition> kubelets) {
        List<PodCondition> conditions = new ArrayList<>(kubelets);
        List<PodCondition> held =
                w.pod().getStatus() == null ? List.of() : w.pod().getStatus().getConditions();
        held.stream()
                .filter(c -> !KUBELET_CONDITIONS.contains(c.getType())
                        && conditions.stream().noneMatch(own -> own.getType().equals(c.getType())))
                .forEach(conditions::add);
        String hostIP = InitialNode.internalIP(w.node);
        PodStatusBuilder b = new PodStatusBuilder()
                .withPhase(phase)
                .withHostIP(hostIP)
                .addNewHostIP(hostIP)
                .withStartTime(time(w.status.startedAt))
                .withConditions(conditions)
                .withContainerStatuses(containers);
        if (w.podIP != null) {
            b.withPodIP(w.podIP).withPodIPs(new PodIP(w.podIP));
        }
        return b.build();
    }

    private static PodCondition condition(String type, String status, String reason, String message, Instant since) {
        return new PodConditionBuilder()
                .withType(type)
                .withStatus(status)
                .withReason(reason)
                .withMessage(message)
                .withLastTransitionTime(time(since))
                .build();
    }

    /** A metav1.Time, in whole seconds as upstream's kubelet writes it ({@link MetaTimes}); null stays absent. */
    private static String time(Instant t) {
        return t == null ? null : MetaTimes.format(t);
    }
}
