package io.podfall.kubelet.podworkers;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.EventTypes;
import io.podfall.model.runtime.ContainerRef;
import java.time.Instant;

/**
 * A container that exited by itself while its pod should run: started again as the pod's restartPolicy says, at once
 * the first time and then after the crash-loop back-off ({@link ContainerBackOff}), or, once nothing runs and nothing
 * will be started again, a pod that ended by itself (pkg/kubelet/kuberuntime/kuberuntime_manager.go computePodActions,
 * SyncPod and doBackOff; pkg/kubelet/container/helpers.go ShouldContainerBeRestarted). The end of a back-off is a timer
 * ({@link PodWorkerTimer.BackOff}), stale unless it matches the container's wait.
 */
final class ContainerRestarts {
    private final Termination termination;

    ContainerRestarts(Termination termination) {
        this.termination = termination;
    }

    /**
     * SyncPod after a container of a pod that should run exited by itself (kuberuntime_manager.go computePodActions and
     * SyncPod): if the restart policy wants it back ({@link #shouldContainerBeRestarted}), it is started again at once
     * or once its back-off has passed ({@link #startOrBackOff}). Then the status: a pod whose phase is now Succeeded or
     * Failed (getPhase: nothing runs and nothing will be started again) is terminal, so its status is written and the
     * worker tears it down as for any terminal pod (SyncPod returns isTerminal, the worker moves on to TerminatingPod):
     * nothing to stop, its sandbox stopped, its volumes unmounted; the object stays on the API server, Completed or
     * Error, until someone deletes it. Otherwise the status shows the container terminated or in CrashLoopBackOff,
     * except when it is started again at once: then the status follows when the new container runs.
     */
    void syncPodAfterExit(PodWorkersState state, PodWorker w, RuntimeContainer c, Instant at, Effects.Builder out) {
        if (c.kind == RuntimeContainer.Kind.INIT && InitContainers.isDone(c)) {
            // A regular init container completed: the next one, or the main containers, start; the status shows it.
            InitContainers.startNext(w, out);
            PodStatuses.set(w, PodStatuses.generate(w, at, false), out);
            return;
        }
        if (shouldContainerBeRestarted(w.pod(), c) && startOrBackOff(w, c, at, out)) {
            return;
        }
        PodStatus status = PodStatuses.generate(w, at, false);
        if (!PodStatuses.isTerminal(status.getPhase())) {
            PodStatuses.set(w, status, out);
            return;
        }
        termination.requestFinalStatus(w, status, out);
        w.status.terminatingAt = at;
        termination.kill(state, w, true, KillPodOptions.NONE, at, out);
    }

    /**
     * pkg/kubelet/container/helpers.go ShouldContainerBeRestarted, for a container that exited: never once the pod is
     * marked for deletion; a sidecar always, whatever the pod's policy (its own restartPolicy is Always); a regular
     * init container only after a non-zero exit (computePodActions: a completed one is done), and not under Never (the
     * pod fails); otherwise with restartPolicy Never, never; with OnFailure, only after a non-zero exit; with Always
     * (the default), always.
     */
    static boolean shouldContainerBeRestarted(Pod pod, RuntimeContainer c) {
        if (pod.getMetadata().getDeletionTimestamp() != null || c.state != RuntimeContainer.State.EXITED) {
            return false;
        }
        if (c.kind == RuntimeContainer.Kind.SIDECAR) {
            return true;
        }
        if (c.kind == RuntimeContainer.Kind.INIT && c.exitCode != null && c.exitCode == 0) {
            return false;
        }
        String policy = pod.getSpec().getRestartPolicy();
        if ("Never".equals(policy)) {
            return false;
        }
        return !"OnFailure".equals(policy) || c.exitCode == null || c.exitCode != 0;
    }

    /**
     * doBackOff, then the start: a container in its back-off waits (state.waiting CrashLoopBackOff) until its exit plus
     * the back-off, when a timer wakes the worker; otherwise it is started again now, as the next attempt. Returns
     * whether it was started.
     */
    private boolean startOrBackOff(PodWorker w, RuntimeContainer c, Instant at, Effects.Builder out) {
        Instant exitedAt = c.finishedAt != null ? c.finishedAt : at;
        if (c.backOff.isInBackOffSince(exitedAt, at)) {
            c.backOffUntil = exitedAt.plus(c.backOff.current());
            out.timer(new PodWorkerTimer.BackOff(w.node, w.uid, c.name), c.backOffUntil);
            return false;
        }
        c.backOff.next(exitedAt, at);
        c.restarting();
        out.emit(
                w.source(),
                EventTypes.START_CONTAINER_REQUESTED,
                w.subject(),
                new ContainerRef(w.node, w.uid, c.name, c.attempt));
        return true;
    }

    /**
     * The back-off of a container in CrashLoopBackOff has passed: unless the pod began terminating meanwhile, the
     * container is started again. A timer that no longer matches the container's wait is stale.
     */
    void backOffEnded(PodWorkersState state, PodWorkerTimer.BackOff key, Timer timer, Effects.Builder out) {
        PodWorker w = state.workerOn(key.node(), key.uid());
        RuntimeContainer c = w == null ? null : w.container(key.container());
        if (c != null && !w.status.isTerminationRequested() && timer.at().equals(c.backOffUntil)) {
            startOrBackOff(w, c, timer.at(), out);
        }
    }
}
