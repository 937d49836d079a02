package io.podfall.kubelet.podworkers;

import io.fabric8.kubernetes.api.model.Container;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.runtime.ContainerRef;
import io.podfall.model.runtime.ContainerState;
import io.podfall.model.runtime.Sandbox;

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

    Pleg(Termination termination, ContainerRestarts restarts, PodCleanups cleanups) {
        this.termination = termination;
        this.restarts = restarts;
        this.cleanups = cleanups;
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
        if (w.status.isTerminationStarted()) {
            termination.stopPodSandboxOnceContainersExited(state, w, out);
            return;
        }
        if (w.runtimeOnly) {
            // Nothing to start: it has no spec. Housekeeping decides.
            return;
        }
        for (Container c : w.pod().getSpec().getContainers()) {
            w.putContainer(new RuntimeContainer(c.getName(), c.getImage()));
            out.emit(
                    w.source(),
                    EventTypes.START_CONTAINER_REQUESTED,
                    w.subject(),
                    new ContainerRef(w.node, w.uid, c.getName(), 0));
        }
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
            // restart, the status shows the new container and the restart count.
            PodStatuses.set(w, PodStatuses.generate(w, out.now(), false), out);
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
            termination.containerExited(state, w, c, event.time(), out);
        } else if (!w.runtimeOnly) {
            restarts.syncPodAfterExit(state, w, c, event.time(), out);
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
