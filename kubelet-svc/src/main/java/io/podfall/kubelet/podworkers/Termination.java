package io.podfall.kubelet.podworkers;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import io.podfall.model.kubelet.GracePeriodShortened;
import io.podfall.model.kubelet.PodTermination;
import io.podfall.model.kubelet.PodTerminationStart;
import io.podfall.model.kubelet.PreStopHookResult;
import io.podfall.model.kubelet.PreStopHookStart;
import io.podfall.model.runtime.SandboxRef;
import io.podfall.model.runtime.StopContainer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A pod worker's teardown of its pod, from the kill to the forgotten UID: pkg/kubelet/kubelet.go SyncTerminatingPod and
 * SyncTerminatedPod, the container kill of pkg/kubelet/kuberuntime/kuberuntime_container.go (killContainer,
 * executePreStopHook) and the status manager's final status and delete (pkg/kubelet/status/status_manager.go). Whoever
 * kills a pod (the API server's deletion, a terminal phase, an eviction, housekeeping) comes through {@link #kill}; the
 * runtime's facts move it on from there.
 */
final class Termination {
    /**
     * The least time StopContainer ever gets (pkg/kubelet/kuberuntime/kuberuntime_container.go
     * minimumGracePeriodInSeconds): "always give containers a minimal shutdown window to avoid unnecessary SIGKILLs",
     * also after a preStop hook used up the grace period, and also for a force delete's 1 s.
     */
    static final long MINIMUM_GRACE_PERIOD_SECONDS = 2;

    private final Compat compat;
    private final KubeletTiming timing;

    Termination(Compat compat, KubeletTiming timing) {
        this.compat = compat;
        this.timing = timing;
    }

    /**
     * A kill of a terminating pod: the first time, starts the termination, once the pod worker may sync again
     * ({@link KubeletTiming#syncAllowed}: it waits for a pod cache newer than its last sync, unless the pod is one only
     * the runtime knows, which upstream's worker kills without that wait); when the grace period got shorter, records
     * it ({@link #gracePeriodShortened}); any other kill changes nothing. {@code options} are the kubelet's own (an
     * eviction's). A kill that waits takes the grace period the pod has when it starts.
     */
    void kill(
            PodWorkersState state,
            PodWorker w,
            boolean becameTerminating,
            KillPodOptions options,
            Instant at,
            Effects.Builder out) {
        if (becameTerminating) {
            Instant syncAt = w.runtimeOnly ? at : timing.syncAllowed(w.node, w.lastSyncAt, at);
            if (syncAt.isAfter(at)) {
                w.pendingKill = options;
                awaitSync(w, syncAt, out);
            } else {
                syncTerminatingPod(state, w, options, at, out);
            }
            return;
        }
        if (!w.status.isTerminationStarted()) {
            return; // the terminating sync has not begun: it will take the grace period the pod has then
        }
        long previous = w.status.gracePeriod;
        PodWorkers.EffectiveGracePeriod grace =
                PodWorkers.calculateEffectiveGracePeriod(w.status, w.pod(), options.gracePeriodOverride(), compat);
        w.status.gracePeriod = grace.seconds();
        if (grace.shortened()) {
            gracePeriodShortened(w, previous, at, out);
        }
    }

    /** The worker waits for the PLEG's next relist before its next sync ({@link #syncDue}). */
    private static void awaitSync(PodWorker w, Instant syncAt, Effects.Builder out) {
        w.syncDueAt = syncAt;
        out.timer(new PodWorkerTimer.Sync(w.node, w.uid), syncAt);
    }

    /**
     * The PLEG relisted: the worker's sync that waited for it runs, the terminating pod's (its kill starts) or the
     * terminated pod's (once the volumes are unmounted too). A timer that no longer matches the wait is stale.
     */
    void syncDue(PodWorkersState state, PodWorkerTimer.Sync key, Timer timer, Effects.Builder out) {
        PodWorker w = state.workerOn(key.node(), key.uid());
        if (w == null || !timer.at().equals(w.syncDueAt)) {
            return;
        }
        w.syncDueAt = null;
        if (!w.status.isTerminationStarted()) {
            KillPodOptions options = w.pendingKill;
            w.pendingKill = null;
            syncTerminatingPod(state, w, options, timer.at(), out);
        } else if (w.status.isTerminated() && state.volumeManager.isUnmounted(w.uid)) {
            syncTerminatedPod(state, w, out);
        }
    }

    /**
     * SyncTerminatingPod: records the effective grace period, announces the termination with its deadline, counted from
     * now, and kills every running container. A kill with a PodStatusFunc (an eviction) first has the status manager
     * write the status it sets; any other kill leaves the status as it is until the kill returns.
     */
    private void syncTerminatingPod(
            PodWorkersState state, PodWorker w, KillPodOptions options, Instant at, Effects.Builder out) {
        PodWorkers.EffectiveGracePeriod grace =
                PodWorkers.calculateEffectiveGracePeriod(w.status, w.pod(), options.gracePeriodOverride(), compat);
        w.status.gracePeriod = grace.seconds();
        w.podStatusFunc = options.podStatusFunc();
        w.status.startedTerminating = true;
        w.status.killDeadline = at.plusSeconds(w.status.gracePeriod);
        w.lastSyncAt = at;
        // What the PLEG would have shown the running pod, the kill sees for itself.
        w.relistDueAt = null;
        w.runningStatusPending = false;
        w.exitsPending = null;
        out.emit(
                w.source(),
                EventTypes.POD_TERMINATION_STARTED,
                w.subject(),
                new PodTerminationStart(
                        w.node,
                        w.uid,
                        w.namespace(),
                        w.name(),
                        w.status.gracePeriod,
                        w.status.killDeadline,
                        grace.compat()));
        if (w.podStatusFunc != null) {
            PodStatuses.set(w, PodStatuses.generate(w, at, false), out);
        }
        // kubelet.go SyncTerminatingPod: liveness and startup stop before killPod; readiness goes on probing.
        Prober.stopLivenessAndStartup(w, out);
        w.containers().stream()
                .filter(c -> c.state == RuntimeContainer.State.RUNNING)
                .forEach(c -> killContainer(w, c, at, out));
        stopPodSandboxOnceContainersExited(state, w, out);
    }

    /**
     * The grace period got shorter while the pod terminates. In a released kubelet the kill in flight never hears of it
     * (see {@link Compat#shortenedGraceKillsAgain()}): the containers keep the deadline they were stopped with, and the
     * event says when the kill will end. Under the fix, the kill in flight returns at once, or, while preStop hooks
     * run, once the last of them has returned; then the worker kills again ({@link #killAgain}).
     */
    private void gracePeriodShortened(PodWorker w, long previous, Instant at, Effects.Builder out) {
        boolean killsAgain = compat.shortenedGraceKillsAgain();
        Instant returnsAt = killsAgain ? killInFlightReturnsAt(w, at) : null;
        out.emit(
                w.source(),
                EventTypes.GRACE_PERIOD_SHORTENED,
                w.subject(),
                new GracePeriodShortened(
                        w.node,
                        w.uid,
                        w.namespace(),
                        w.name(),
                        previous,
                        w.status.gracePeriod,
                        w.status.deadline(),
                        killsAgain ? returnsAt.plusSeconds(w.status.gracePeriod) : w.status.killDeadline,
                        killsAgain ? Compat.SHORTENED_GRACE_KILLS_AGAIN : null));
        if (!killsAgain) {
            return;
        }
        w.status.killCancelled = true;
        if (returnsAt.equals(at)) {
            killAgain(w, at, out);
        }
    }

    /**
     * When the kill in flight returns once cancelled: now, unless preStop hooks run; those are not interrupted
     * (executePreStopHook does not watch the context), so it returns when the last of them is due.
     */
    private static Instant killInFlightReturnsAt(PodWorker w, Instant at) {
        Instant returnsAt = at;
        for (RuntimeContainer c : w.containers()) {
            if (c.state == RuntimeContainer.State.RUNNING && c.isInPreStop() && c.preStopDueAt.isAfter(returnsAt)) {
                returnsAt = c.preStopDueAt;
            }
        }
        return returnsAt;
    }

    /**
     * The fix's second SyncTerminatingPod: killPod again with the shorter grace period, counted from now, each running
     * container through a fresh killContainer, so its preStop hook, if it has one, runs again.
     */
    private void killAgain(PodWorker w, Instant at, Effects.Builder out) {
        w.status.killCancelled = false;
        w.status.killDeadline = at.plusSeconds(w.status.gracePeriod);
        for (RuntimeContainer c : w.containers()) {
            if (c.state == RuntimeContainer.State.RUNNING) {
                if (c.isWaitingForTurn()) {
                    // The new killContainer waits for its turn afresh, bounded by the new deadline.
                    out.cancelTimer(new PodWorkerTimer.Turn(w.node, w.uid, c.name));
                    c.turnDueAt = null;
                }
                c.preStopDone = false;
                killContainer(w, c, at, out);
            }
        }
    }

    /**
     * killContainer (pkg/kubelet/kuberuntime/kuberuntime_container.go): the preStop hook first, if the container has
     * one and there is time left for it; then StopContainer.
     */
    void killContainer(PodWorker w, RuntimeContainer c, Instant at, Effects.Builder out) {
        Optional<PreStopHook> hook = c.preStopDone ? Optional.empty() : PreStopHook.of(w.pod(), c.name);
        c.preStopDone = true;
        if (hook.isEmpty() || !w.status.killDeadline.isAfter(at)) {
            stopWhenItsTurnComes(w, c, at, out);
            return;
        }
        c.preStop = hook.get();
        c.preStopStartedAt = at;
        out.emit(
                w.source(),
                EventTypes.PRE_STOP_HOOK_STARTED,
                w.subject(),
                new PreStopHookStart(
                        w.node,
                        w.uid,
                        w.namespace(),
                        w.name(),
                        c.containerId,
                        c.name,
                        c.preStop.handler(),
                        remainingSeconds(w.status, at),
                        at));
        awaitPreStopHook(w, c, at, out);
    }

    /**
     * executePreStopHook waits for the hook, but no longer than the grace period: the timer is due at the hook's end or
     * at the kill deadline, whichever comes first. Due already (a hook of no time, a deadline passed): finished at
     * once.
     */
    private void awaitPreStopHook(PodWorker w, RuntimeContainer c, Instant at, Effects.Builder out) {
        Instant end = c.preStopStartedAt.plus(c.preStop.duration());
        Instant due = end.isBefore(w.status.killDeadline) ? end : w.status.killDeadline;
        if (!due.isAfter(at)) {
            c.preStopDueAt = at;
            finishPreStopHook(w, c, out);
        } else if (!due.equals(c.preStopDueAt)) {
            c.preStopDueAt = due;
            out.timer(new PodWorkerTimer.PreStop(w.node, w.uid, c.name), due);
        }
    }

    /**
     * The end of a preStop hook, or the deadline that cuts it short: the hook is finished and the container stopped.
     * The runtime keeps the kill deadline of each container it stops. A timer that no longer matches the container's
     * hook is stale.
     */
    void preStopDue(PodWorkersState state, PodWorkerTimer.PreStop key, Timer timer, Effects.Builder out) {
        PodWorker w = state.workerOn(key.node(), key.uid());
        RuntimeContainer c = w == null ? null : w.container(key.container());
        if (c != null
                && c.state == RuntimeContainer.State.RUNNING
                && c.isInPreStop()
                && timer.at().equals(c.preStopDueAt)) {
            finishPreStopHook(w, c, out);
        }
    }

    /**
     * The hook ended, or the kubelet stopped waiting for it: the time it took counts against the grace period, and the
     * container is stopped with what is left (at least the minimum). A hook cut short is not killed; it ends with its
     * container.
     */
    private void finishPreStopHook(PodWorker w, RuntimeContainer c, Effects.Builder out) {
        Instant finishedAt = c.preStopDueAt;
        boolean exhausted = c.preStopStartedAt.plus(c.preStop.duration()).isAfter(finishedAt);
        preStopHookFinished(w, c, finishedAt, exhausted, null, out);
        if (!w.status.killCancelled) {
            stopWhenItsTurnComes(w, c, finishedAt, out);
        } else if (w.containers().stream().noneMatch(RuntimeContainer::isInPreStop)) {
            // The cancelled kill's StopContainer returns at once, and so does the kill: the worker kills again.
            killAgain(w, finishedAt, out);
        }
    }

    private void preStopHookFinished(
            PodWorker w, RuntimeContainer c, Instant finishedAt, boolean exhausted, String error, Effects.Builder out) {
        out.emit(
                w.source(),
                EventTypes.PRE_STOP_HOOK_FINISHED,
                w.subject(),
                new PreStopHookResult(
                        w.node,
                        w.uid,
                        w.namespace(),
                        w.name(),
                        c.containerId,
                        c.name,
                        c.preStop.handler(),
                        Duration.between(c.preStopStartedAt, finishedAt).getSeconds(),
                        exhausted,
                        c.preStopStartedAt,
                        finishedAt,
                        error));
        c.preStop = null;
        c.preStopDueAt = null;
    }

    /**
     * A container of the terminating pod exited. If its preStop hook still ran, the hook ends with its container,
     * failed (an exec in a stopped container fails): nothing is left to wait for, and no StopContainer follows for a
     * container that is gone. Then the sandbox, if that was the last one.
     */
    void containerExited(PodWorkersState state, PodWorker w, RuntimeContainer c, Instant at, Effects.Builder out) {
        if (c.isInPreStop()) {
            out.cancelTimer(new PodWorkerTimer.PreStop(w.node, w.uid, c.name));
            Instant exitedAt = c.finishedAt != null ? c.finishedAt : at;
            preStopHookFinished(
                    w,
                    c,
                    exitedAt,
                    false,
                    "the container exited with code " + c.exitCode + " while its preStop hook ran",
                    out);
            if (w.status.killCancelled && w.containers().stream().noneMatch(RuntimeContainer::isInPreStop)) {
                killAgain(w, exitedAt, out);
            }
        }
        if (c.isWaitingForTurn()) {
            out.cancelTimer(new PodWorkerTimer.Turn(w.node, w.uid, c.name));
            c.turnDueAt = null;
        }
        wakeSidecars(w, at, out);
        stopPodSandboxOnceContainersExited(state, w, out);
    }

    /**
     * After its preStop hook, a container is stopped, but a sidecar first waits for its turn
     * (pkg/kubelet/kuberuntime/kuberuntime_termination_order.go, used by killContainer when the pod has a restartable
     * init container): until every main container and every sidecar declared after it have exited, so main containers
     * stop first and sidecars in reverse order. A container that does not run is not waited for (upstream closes the
     * channel of a container not running when the kill began). The wait is bounded by what is left of the grace period
     * (no wait when nothing is left): a timer at the end, woken earlier by the exits it waits for
     * ({@link #containerExited}). Then StopContainer gets what is left after the hook and the wait, never less than the
     * minimum.
     */
    private void stopWhenItsTurnComes(PodWorker w, RuntimeContainer c, Instant at, Effects.Builder out) {
        long left = remainingSeconds(w.status, at);
        if (c.kind != RuntimeContainer.Kind.SIDECAR || left <= 0 || isTurnOf(w, c)) {
            stopContainer(w, c, at, out);
            return;
        }
        // waitForTurn(name, gracePeriod): a time.After of the grace period left, in whole seconds.
        c.turnDueAt = at.plusSeconds(left);
        out.timer(new PodWorkerTimer.Turn(w.node, w.uid, c.name), c.turnDueAt);
    }

    /**
     * Whether the sidecar's turn has come: no main container, and no sidecar declared after it, runs any more (a
     * regular init container is not waited for).
     */
    private static boolean isTurnOf(PodWorker w, RuntimeContainer sidecar) {
        List<String> later = new ArrayList<>();
        boolean after = false;
        for (Container spec : InitContainers.of(w.pod())) {
            if (after && InitContainers.isSidecar(spec)) {
                later.add(spec.getName());
            }
            after |= spec.getName().equals(sidecar.name);
        }
        return w.containers().stream()
                .noneMatch(x -> x.state == RuntimeContainer.State.RUNNING
                        && (x.kind == RuntimeContainer.Kind.MAIN || later.contains(x.name)));
    }

    /** The sidecars whose turn came with an exit stop now: containerTerminated closed the channel they waited on. */
    private void wakeSidecars(PodWorker w, Instant at, Effects.Builder out) {
        for (RuntimeContainer c : w.containers()) {
            if (c.isWaitingForTurn() && c.state == RuntimeContainer.State.RUNNING && isTurnOf(w, c)) {
                out.cancelTimer(new PodWorkerTimer.Turn(w.node, w.uid, c.name));
                c.turnDueAt = null;
                stopContainer(w, c, at, out);
            }
        }
    }

    /**
     * The end of a sidecar's wait: the grace period is spent, so it is stopped now with the minimum. A timer that no
     * longer matches the wait is stale.
     */
    void turnDue(PodWorkersState state, PodWorkerTimer.Turn key, Timer timer, Effects.Builder out) {
        PodWorker w = state.workerOn(key.node(), key.uid());
        RuntimeContainer c = w == null ? null : w.container(key.container());
        if (c != null && c.state == RuntimeContainer.State.RUNNING && timer.at().equals(c.turnDueAt)) {
            c.turnDueAt = null;
            stopContainer(w, c, timer.at(), out);
        }
    }

    private void stopContainer(PodWorker w, RuntimeContainer c, Instant at, Effects.Builder out) {
        c.stopRequested = true;
        out.emit(
                w.source(),
                EventTypes.STOP_CONTAINER_REQUESTED,
                w.subject(),
                new StopContainer(
                        w.node,
                        w.uid,
                        c.containerId,
                        c.name,
                        Math.max(remainingSeconds(w.status, at), MINIMUM_GRACE_PERIOD_SECONDS)));
    }

    /**
     * The whole seconds left now until the kill deadline, rounded up so that no container is killed before the deadline
     * the API server announced; 0 once it has passed. At the start of a termination this is exactly the grace period.
     */
    static long remainingSeconds(PodSyncStatus status, Instant now) {
        Duration left = Duration.between(now, status.killDeadline);
        long seconds = left.getSeconds() + (left.getNano() > 0 ? 1 : 0);
        return Math.max(seconds, 0);
    }

    /**
     * Once no container can be running any more: stop the sandbox; or, if the pod never got as far as asking for one,
     * it is terminated already. A sandbox asked for but not reported yet is stopped when it is reported.
     */
    void stopPodSandboxOnceContainersExited(PodWorkersState state, PodWorker w, Effects.Builder out) {
        if (w.hasContainersThatCouldBeRunning()) {
            return;
        }
        if (w.sandbox == PodWorker.SandboxState.READY && !w.sandboxStopRequested) {
            w.sandboxStopRequested = true;
            out.emit(w.source(), EventTypes.STOP_POD_SANDBOX_REQUESTED, w.subject(), new SandboxRef(w.node, w.uid));
        } else if (!w.status.isStarted()
                || (w.sandbox == PodWorker.SandboxState.NOTREADY && !w.status.isTerminated())) {
            // Never started, or (a pod only the runtime knows) its sandbox seen stopped before the kill.
            killPodReturned(state, w, out);
        }
    }

    /**
     * killPod returned: every container and the sandbox are stopped (or the pod never got any). SyncTerminatingPod's
     * last step has the status manager write the terminal status at once, from the stopped containers (kubelet.go:
     * generateAPIPodStatus with podIsTerminal, "to capture the exit codes"), so the API server shows the pod Failed or
     * Succeeded before its volumes are unmounted. A pod the kubelet never started whose phase is terminal already has
     * nothing new to report; an orphan has nothing to write to. The pod is terminated (completeTerminating), and the
     * volume manager starts to unmount its volumes; SyncTerminatedPod runs once the worker may sync again (the PLEG's
     * next relist) and the volumes are unmounted, whichever is later.
     */
    void killPodReturned(PodWorkersState state, PodWorker w, Effects.Builder out) {
        Instant at = out.causeTime();
        if (!w.orphan && w.finalStatusRequestId == null && (w.status.isStarted() || !PodStatuses.isTerminal(w.pod()))) {
            requestFinalStatus(w, PodStatuses.generate(w, out.now(), true), out);
        }
        // kubelet.go SyncTerminatingPod: every probe is removed once killPod returned.
        Prober.removePod(w, out);
        w.status.terminatedAt = at;
        w.lastSyncAt = at;
        Instant syncAt = w.runtimeOnly ? at : timing.syncAllowed(w.node, at, at);
        boolean unmounted = state.volumeManager.waitForUnmount(w.uid, out);
        if (syncAt.isAfter(at)) {
            awaitSync(w, syncAt, out);
        } else if (unmounted) {
            syncTerminatedPod(state, w, out);
        }
    }

    /**
     * The last volume of a terminated pod was unmounted: SyncTerminatedPod, unless the worker still waits for the
     * PLEG's relist ({@link #syncDue} runs it then).
     */
    void volumesUnmounted(PodWorkersState state, PodWorker w, Effects.Builder out) {
        if (w.status.isTerminated() && !w.status.isFinished() && w.syncDueAt == null) {
            syncTerminatedPod(state, w, out);
        }
    }

    /**
     * SyncTerminatedPod, once the volumes are unmounted (kubelet.go: WaitForUnmount): the worker is finished, the
     * status manager's TerminatePod. The final delete waits for the API server to hold the terminal status
     * ({@link #deleteIfReclaimed}); an orphan is forgotten at once.
     */
    void syncTerminatedPod(PodWorkersState state, PodWorker w, Effects.Builder out) {
        out.emit(
                w.source(),
                EventTypes.POD_TERMINATED,
                w.subject(),
                new PodTermination(w.node, w.uid, w.namespace(), w.name(), w.status.gracePeriod, w.status.deadline()));
        w.status.finished = true;
        if (w.orphan) {
            forget(state, w, out);
        } else {
            deleteIfReclaimed(w, out);
        }
    }

    /** The status manager writes the pod's final status; the final delete waits until the API server holds it. */
    void requestFinalStatus(PodWorker w, PodStatus status, Effects.Builder out) {
        PodStatuses.set(w, status, out);
        w.finalStatusRequestId = out.lastEventId();
        w.finalStatusPending = true;
    }

    /**
     * The status manager's final delete, grace 0, only for this UID (pkg/kubelet/status/status_manager.go syncPod and
     * canBeDeleted): the pod is marked for deletion, its worker finished (podIsFinished: the volumes are unmounted),
     * and its terminal phase is on the API server. Upstream sends the DELETE after the status PATCH returned; here it
     * follows the fact that the status was written, so it never overtakes the status on the log. The UID precondition
     * keeps a new pod of the same name safe. A pod not marked for deletion (torn down because its phase is terminal) is
     * not deleted by the kubelet, until someone marks it.
     */
    void deleteIfReclaimed(PodWorker w, Effects.Builder out) {
        if (w.orphan
                || !w.status.isFinished()
                || !w.status.isDeleted()
                || w.finalStatusPending
                || w.finalDeleteRequested) {
            return;
        }
        w.finalDeleteRequested = true;
        out.emit(
                w.source(),
                EventTypes.DELETION_REQUESTED,
                w.subject(),
                new DeletionRequest(
                        ResourceType.PODS.plural(),
                        w.namespace(),
                        w.name(),
                        new DeleteOptionsBuilder()
                                .withGracePeriodSeconds(0L)
                                .withNewPreconditions()
                                .withUid(w.uid)
                                .endPreconditions()
                                .build()));
    }

    /**
     * The pod is gone from the API server and its worker finished: the UID is forgotten, and the container garbage
     * collector removes its sandbox on its next run (kuberuntime_gc.go evictSandboxes: a deleted pod's dead sandboxes).
     */
    void forget(PodWorkersState state, PodWorker w, Effects.Builder out) {
        if (w.status.isStarted()) {
            Instant at = out.causeTime();
            Instant gc = timing.nextContainerGc(w.node, at);
            if (gc.isAfter(at)) {
                out.timer(new PodWorkerTimer.ContainerGc(w.node, w.uid, w.namespace(), w.name()), gc);
            } else {
                removePodSandbox(w.node, w.uid, w.subject(), out);
            }
        }
        state.workers.remove(w.uid);
        state.recent.forget(w.uid);
        state.forgotten.add(w.uid);
        state.volumeManager.forget(w.uid);
    }

    /** The container garbage collector's run: the forgotten pod's sandbox is removed. */
    void containerGc(PodWorkerTimer.ContainerGc key, Effects.Builder out) {
        removePodSandbox(
                key.node(), key.uid(), Subjects.of(key.namespace(), ResourceType.PODS.plural(), key.name()), out);
    }

    private static void removePodSandbox(String node, String uid, String subject, Effects.Builder out) {
        out.emit("/kubelet/" + node, EventTypes.REMOVE_POD_SANDBOX_REQUESTED, subject, new SandboxRef(node, uid));
    }
}
