package io.podfall.kubelet.podworkers;

import io.fabric8.kubernetes.api.model.Container;
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
import java.util.stream.Stream;

/**
 * The pod status the kubelet writes (pkg/kubelet/kubelet_pods.go generateAPIPodStatus, convertToAPIContainerStatuses
 * and getPhase; pkg/kubelet/status/status_manager.go TerminatePod): each container as the runtime last reported it, the
 * phase that follows from them and the pod's restart policy, and the kubelet's conditions. Init containers have
 * statuses of their own (initContainerStatuses) and hold the pod Pending, Initialized False, until they are done.
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
        boolean hasInit = InitContainers.hasInitContainers(w.pod());
        List<ContainerStatus> init = InitContainers.of(w.pod()).stream()
                .map(spec -> containerStatus(w, w.container(spec.getName()), spec, hasInit, podIsTerminal))
                .toList();
        List<ContainerStatus> containers = w.pod().getSpec().getContainers().stream()
                .map(spec -> containerStatus(w, w.container(spec.getName()), spec, hasInit, podIsTerminal))
                .toList();
        String phase = getPhase(w.pod(), init, containers, podIsTerminal);
        // GenerateContainersReadyCondition: the sidecars, then the main containers.
        List<String> unready = Stream.concat(
                        init.stream().filter(c -> InitContainers.isSidecar(InitContainers.spec(w.pod(), c.getName()))),
                        containers.stream())
                .filter(c -> !Boolean.TRUE.equals(c.getReady()))
                .map(ContainerStatus::getName)
                .toList();
        PodCondition initialized = initialized(w, init, containers, phase);
        List<PodCondition> conditions;
        if (SUCCEEDED.equals(phase) || FAILED.equals(phase)) {
            conditions = List.of(
                    initialized,
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
                    initialized,
                    condition("Ready", ready, reason, message, now),
                    condition("ContainersReady", ready, reason, message, now),
                    condition("PodScheduled", "True", null, null, w.status.syncedAt));
        }
        PodStatus status = status(w, phase, init, containers, conditions);
        if (w.podStatusFunc != null) {
            w.podStatusFunc.accept(status);
        }
        return status;
    }

    /**
     * pkg/kubelet/status/generate.go GeneratePodInitializedCondition: True without init containers (PodCompleted once
     * the pod is terminal, as before init containers were run), once the pod Succeeded, or once a main container has
     * started (a sidecar restarting later does not make the pod uninitialized); else False, ContainersNotInitialized,
     * while a regular init container has not exited 0 or a sidecar has not started. It turned True when the last init
     * container was done: the latest exit of a regular one or start of a sidecar.
     */
    private static PodCondition initialized(
            PodWorker w, List<ContainerStatus> init, List<ContainerStatus> containers, String phase) {
        boolean terminal = isTerminal(phase);
        if (init.isEmpty()) {
            return condition("Initialized", "True", terminal ? "PodCompleted" : null, null, w.status.startedAt);
        }
        List<String> incomplete = new ArrayList<>();
        Instant doneAt = w.status.startedAt;
        for (ContainerStatus c : init) {
            RuntimeContainer known = w.container(c.getName());
            if (known == null || !InitContainers.isDone(known)) {
                incomplete.add(c.getName());
            } else {
                Instant at = known.kind == RuntimeContainer.Kind.SIDECAR ? known.startedAt : known.finishedAt;
                doneAt = at != null && (doneAt == null || at.isAfter(doneAt)) ? at : doneAt;
            }
        }
        if (SUCCEEDED.equals(phase) || incomplete.isEmpty() || hasAnyRegularContainerStarted(containers)) {
            return condition("Initialized", "True", terminal ? "PodCompleted" : null, null, doneAt);
        }
        return condition(
                "Initialized",
                "False",
                "ContainersNotInitialized",
                "containers with incomplete status: [" + String.join(" ", incomplete) + "]",
                w.status.startedAt);
    }

    /** pkg/kubelet/container/helpers.go HasAnyRegularContainerStarted: a main container runs or has run. */
    private static boolean hasAnyRegularContainerStarted(List<ContainerStatus> containers) {
        return containers.stream()
                .anyMatch(c -> c.getState().getRunning() != null
                        || c.getState().getTerminated() != null
                        || (c.getLastState() != null && c.getLastState().getTerminated() != null));
    }

    /**
     * getPhase (kubelet_pods.go) with init containers. A regular init container still to complete keeps the pod Pending
     * (unless a main container has started already); one that failed fails the pod under restartPolicy Never. A sidecar
     * counts as a running container while it runs, but a stopped one is not counted at all. One difference: once every
     * main container has terminated, a running sidecar no longer counts. Upstream gets there in two syncs
     * (computePodActions kills the sidecars of a pod whose main containers are done, then getPhase finds none running);
     * podfall in one, so the phase that ends the pod is the same.
     */
    static String getPhase(Pod pod, List<ContainerStatus> init, List<ContainerStatus> containers, boolean terminal) {
        int pendingInitialization = 0;
        int failedInitialization = 0;
        int sidecarsRunning = 0;
        int sidecarsWaiting = 0;
        for (ContainerStatus c : init) {
            ContainerState state = c.getState();
            boolean restarted = c.getLastState() != null && c.getLastState().getTerminated() != null;
            if (InitContainers.isSidecar(InitContainers.spec(pod, c.getName()))) {
                if (state.getRunning() != null) {
                    sidecarsRunning++;
                    if (!Boolean.TRUE.equals(c.getStarted())) {
                        pendingInitialization++;
                    }
                } else if (state.getWaiting() != null && !restarted) {
                    pendingInitialization++;
                    sidecarsWaiting++;
                }
            } else if (state.getTerminated() != null) {
                if (state.getTerminated().getExitCode() != 0) {
                    failedInitialization++;
                }
            } else if (state.getWaiting() != null && restarted) {
                if (c.getLastState().getTerminated().getExitCode() != 0) {
                    failedInitialization++;
                }
            } else {
                pendingInitialization++;
            }
        }
        String restartPolicy = pod.getSpec().getRestartPolicy();
        if (failedInitialization > 0 && "Never".equals(restartPolicy)) {
            return FAILED;
        }
        if (pendingInitialization > 0 && !hasAnyRegularContainerStarted(containers)) {
            return "Pending";
        }
        boolean mainsTerminated = !containers.isEmpty()
                && containers.stream().allMatch(c -> c.getState().getTerminated() != null);
        return getPhase(restartPolicy, containers, mainsTerminated ? 0 : sidecarsRunning, sidecarsWaiting, terminal);
    }

    /**
     * getPhase (kubelet_pods.go), for a pod without init containers: Pending while a container waits to start for the
     * first time; Running while one runs; once none runs, Succeeded or Failed if the pod is terminal or its restart
     * policy will not start them again (Never; OnFailure once all exited 0), else Running (they are being restarted). A
     * container waiting to be started again counts as stopped, not as waiting.
     */
    static String getPhase(String restartPolicy, List<ContainerStatus> containers, boolean podIsTerminal) {
        return getPhase(restartPolicy, containers, 0, 0, podIsTerminal);
    }

    /** The main containers' part of getPhase, after the sidecars counted their running and waiting ones. */
    private static String getPhase(
            String restartPolicy,
            List<ContainerStatus> containers,
            int sidecarsRunning,
            int sidecarsWaiting,
            boolean podIsTerminal) {
        int unknown = 0;
        int running = sidecarsRunning;
        int waiting = sidecarsWaiting;
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
            PodWorker w, RuntimeContainer c, Container spec, boolean hasInit, boolean podIsTerminal) {
        String name = spec.getName();
        String image = spec.getImage();
        // A regular init container is ready once it completed, never while it runs (prober_manager.go UpdatePodStatus).
        boolean regularInit = InitContainers.of(w.pod()).contains(spec) && !InitContainers.isSidecar(spec);
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
            // prober_manager.go UpdatePodStatus: started and ready as the probes say (at once without probes); a
            // regular init container is ready only once it completed.
            return b.withReady(!regularInit && Prober.ready(w, c))
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
            return b.withReady(regularInit && c.exitCode != null && c.exitCode == 0)
                    .withState(exited)
                    .build();
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
                // convertToAPIContainerStatuses: PodInitializing in a pod with init containers.
                .withReason(hasInit ? "PodInitializing" : "ContainerCreating")
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
            PodWorker w,
            String phase,
            List<ContainerStatus> init,
            List<ContainerStatus> containers,
            List<PodCondition> kubelets) {
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
        if (!init.isEmpty()) {
            b.withInitContainerStatuses(init);
        }
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
