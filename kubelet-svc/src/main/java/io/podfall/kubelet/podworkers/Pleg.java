package io.podfall.kubelet.podworkers;

import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.runtime.ContainerState;
import io.podfall.model.runtime.Sandbox;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The kubelet's pod lifecycle event generator (pkg/kubelet/pleg/generic.go): the runtime's facts
 * ({@code SandboxStarted}, {@code ContainerStarted}, {@code ContainerExited}, {@code SandboxStopped}) taken into the
 * worker of their pod (its view of the sandbox and of each container, what the pod status is generated from) and handed
 * on as the worker's next step: the containers started in a new sandbox, the Running status, a kill of what started
 * after the termination began, a restart ({@link ContainerRestarts}), the teardown's next step ({@link Termination}). A
 * fact the worker knows already, or of an earlier container of the name, changes nothing. A fact of a pod the kubelet
 * has no worker for goes to housekeeping ({@link PodCleanups}).
 */
final class Pleg {
    private final Termination termination;
    private final ContainerRestarts restarts;
    private final PodCleanups cleanups;
    private final KubeletTiming timing;

    Pleg(Termination termination, ContainerRestarts restarts, PodCleanups cleanups, KubeletTiming timing) {
        this.termination = termination;
        this.restarts = restarts;
        this.cleanups = cleanups;
        this.timing = timing;
    }

    void sandboxStarted(PodWorkersState state, Event event, Effects.Builder out) {
        Sandbox sandbox = event.data(Sandbox.class);
        PodWorker w = cleanups.workerOrRuntimeOnly(state, event, sandbox.node(), sandbox.podUid(), out);
        if (w == null || w.sandbox != null) {
            return;
        }
        w.sandbox = PodWorker.SandboxState.READY;
        w.sandboxId = sandbox.sandboxId();
        w.podIP = sandbox.ip();
        // RunPodSandbox returned within SyncPod, which goes on to start the containers: no relist in between.
        w.lastSyncAt = event.time();
        if (w.status.isTerminationStarted()) {
            termination.stopPodSandboxOnceContainersExited(state, w, out);
            return;
        }
        if (w.runtimeOnly) {
            // Nothing to start: it has no spec. Housekeeping decides.
            return;
        }
        // The first init container, or without any, every main container in spec order.
        InitContainers.startNext(w, out);
    }

    void containerStarted(PodWorkersState state, Event event, Effects.Builder out) {
        ContainerState reported = event.data(ContainerState.class);
        PodWorker w = cleanups.workerOrRuntimeOnly(state, event, reported.node(), reported.podUid(), out);
        RuntimeContainer c = w == null ? null : runtimeContainer(w, reported);
        if (c == null || c.state != RuntimeContainer.State.CREATED) {
            return;
        }
        c.state = RuntimeContainer.State.RUNNING;
        c.containerId = reported.containerId();
        c.image = reported.image();
        c.startedAt = reported.startedAt();
        if (w.status.isTerminationStarted()) {
            // Its start was asked for before the kill: once terminating, every update is a kill.
            termination.killContainer(w, c, event.time(), out);
        } else if (!w.runtimeOnly
                && w.containers().stream().noneMatch(x -> x.state == RuntimeContainer.State.CREATED)) {
            // Every container the kubelet started has been heard of: the first time, the pod is Running; after a
            // restart, the status shows the new container and the restart count. The sync that reports it is the
            // one the PLEG's next relist triggers.
            w.runningStatusPending = true;
            atNextRelist(state, w, event, out);
        }
    }

    void containerExited(PodWorkersState state, Event event, Effects.Builder out) {
        ContainerState reported = event.data(ContainerState.class);
        PodWorker w = state.workerOn(reported.node(), reported.podUid());
        RuntimeContainer c = w == null ? null : runtimeContainer(w, reported);
        if (c == null || c.state == RuntimeContainer.State.EXITED) {
            return;
        }
        c.state = RuntimeContainer.State.EXITED;
        c.containerId = reported.containerId();
        c.exitCode = reported.exitCode();
        c.reason = reported.reason();
        c.startedAt = reported.startedAt();
        c.finishedAt = reported.finishedAt();
        if (w.status.isTerminationStarted()) {
            // The kill's StopContainer returns when the container is gone: no relist to wait for.
            termination.containerExited(state, w, c, event.time(), out);
        } else if (!w.runtimeOnly) {
            if (w.exitsPending == null) {
                w.exitsPending = new ArrayList<>(1);
            }
            w.exitsPending.add(c.name);
            if (Prober.killedByProbe(w, c)) {
                // A failed probe's kill: its StopContainer returned within SyncPod, which goes on at once.
                syncPod(state, w, event.time(), out);
            } else {
                atNextRelist(state, w, event, out);
            }
        }
    }

    /**
     * What the runtime did to a running pod, the kubelet sees at its PLEG's next relist, and syncs the pod then: now,
     * when it waits for no relist.
     */
    private void atNextRelist(PodWorkersState state, PodWorker w, Event event, Effects.Builder out) {
        Instant relist = timing.nextRelist(w.node, event.time());
        if (!relist.isAfter(event.time())) {
            syncPod(state, w, event.time(), out);
        } else if (!relist.equals(w.relistDueAt)) {
            w.relistDueAt = relist;
            out.timer(new PodWorkerTimer.Relist(w.node, w.uid), relist);
        }
    }

    /** The relist a running pod's worker waited for: the pod is synced. A timer that no longer matches is stale. */
    void relist(PodWorkersState state, PodWorkerTimer.Relist key, Timer timer, Effects.Builder out) {
        PodWorker w = state.workerOn(key.node(), key.uid());
        if (w != null && timer.at().equals(w.relistDueAt)) {
            w.relistDueAt = null;
            syncPod(state, w, timer.at(), out);
        }
    }

    /**
     * SyncPod for what the relist saw: each container that exited by itself is restarted or ends the pod
     * ({@link ContainerRestarts}); the next init container, or the main containers, start once what came before runs
     * ({@link InitContainers}); if every container runs, the status manager reports it, and a pod with init containers
     * has its progress reported at each step (Init:N/M). A pod whose termination began meanwhile has its kill see to
     * all of it.
     */
    private void syncPod(PodWorkersState state, PodWorker w, Instant at, Effects.Builder out) {
        List<String> exited = w.exitsPending == null ? List.of() : w.exitsPending;
        w.exitsPending = null;
        boolean running = w.runningStatusPending;
        w.runningStatusPending = false;
        if (w.status.isTerminationRequested()) {
            return;
        }
        w.lastSyncAt = at;
        for (String name : exited) {
            RuntimeContainer c = w.container(name);
            if (c != null && c.state == RuntimeContainer.State.EXITED && !w.status.isTerminationRequested()) {
                restarts.syncPodAfterExit(state, w, c, at, out);
            }
        }
        if (!running || w.status.isTerminationRequested()) {
            return;
        }
        if (InitContainers.hasInitContainers(w.pod())) {
            // A sidecar runs: the next init container may start (computePodActions). The status shows each step.
            InitContainers.startNext(w, out);
            if (exited.isEmpty()) {
                // (An exit's sync above has written the status already: the same one.)
                PodStatuses.set(w, PodStatuses.generate(w, out.now(), false), out);
            }
        } else if (w.containers().stream().allMatch(c -> c.state == RuntimeContainer.State.RUNNING)) {
            PodStatuses.set(w, PodStatuses.generate(w, out.now(), false), out);
        }
    }

    void sandboxStopped(PodWorkersState state, Event event, Effects.Builder out) {
        Sandbox sandbox = event.data(Sandbox.class);
        PodWorker w = state.workerOn(sandbox.node(), sandbox.podUid());
        if (w == null || w.sandbox != PodWorker.SandboxState.READY) {
            return;
        }
        w.sandbox = PodWorker.SandboxState.NOTREADY;
        if (w.status.isTerminationStarted() && !w.status.isTerminated()) {
            termination.killPodReturned(state, w, out);
        }
    }

    /**
     * The container a runtime fact is about: one the worker asked for, or, for a pod only the runtime knows, any the
     * runtime reports (a container runs only in a ready sandbox, so that one is taken as ready too).
     */
    private static RuntimeContainer runtimeContainer(PodWorker w, ContainerState reported) {
        RuntimeContainer c = w.container(reported.containerName());
        if (c != null && c.attempt != reported.attempt()) {
            // A fact of an earlier container of the name (a redelivery), or of one not asked for yet.
            return null;
        }
        if (c == null && w.runtimeOnly && reported.containerName() != null) {
            c = new RuntimeContainer(reported.containerName(), reported.image());
            c.attempt = reported.attempt();
            w.putContainer(c);
            if (w.sandbox == null) {
                w.sandbox = PodWorker.SandboxState.READY;
            }
        }
        return c;
    }
}
