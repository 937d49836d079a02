package io.podfall.kubelet.podworkers;

import static io.podfall.model.SharedStrings.shared;

import java.time.Instant;

/**
 * One container of a pod as the kubelet has heard of it from the runtime's facts (CRI ContainerStatus): the latest
 * attempt of the container of this name, and how the one before it ended.
 */
public final class RuntimeContainer {

    /** CRI ContainerState, as far as the kubelet knows: CREATED from the start request until the runtime reports it. */
    public enum State {
        CREATED,
        RUNNING,
        EXITED
    }

    /**
     * Which list of the pod's spec the container comes from, and how it is run (pkg/kubelet/types/pod_update.go
     * IsRestartableInitContainer): a regular init container runs to completion before the next one starts; a sidecar
     * (an init container with restartPolicy Always) keeps running beside the main containers and stops after them.
     */
    public enum Kind {
        INIT,
        SIDECAR,
        MAIN
    }

    /** How an earlier container of the name ended: the status's lastState.terminated. */
    record Exit(String containerId, int exitCode, String reason, Instant startedAt, Instant finishedAt) {}

    final String name;
    final Kind kind;
    String image;
    State state = State.CREATED;
    /** CRI attempt of the latest container: how often the kubelet started it again, the status's restartCount. */
    int attempt;
    /** The container before the latest one, as it ended; null until the first restart. */
    Exit lastTerminated;
    /** The crash-loop back-off of the container's restarts. */
    final ContainerBackOff backOff = new ContainerBackOff();
    /** While the exited container waits out its back-off (state.waiting CrashLoopBackOff): when it is started again. */
    Instant backOffUntil;

    String containerId;
    Integer exitCode;
    String reason;
    Instant startedAt;
    Instant finishedAt;
    /** The preStop hook while it runs (null before and after): its handler and how long it would run. */
    PreStopHook preStop;
    /** When the running preStop hook began. */
    Instant preStopStartedAt;
    /** When the kubelet stops waiting for the running hook: its end, or the kill deadline if that comes first. */
    Instant preStopDueAt;
    /** The hook ran (or was skipped): it runs at most once per container, as killContainer runs it once. */
    boolean preStopDone;
    /** StopContainer was asked for: from then on a shortened grace period re-issues it. */
    boolean stopRequested;
    /**
     * A sidecar of a terminating pod waits for its turn to be stopped (kuberuntime_termination_order.go waitForTurn):
     * until then, the end of its wait, bounded by the grace period; null while it does not wait.
     */
    Instant turnDueAt;

    RuntimeContainer(String name, String image) {
        this(name, image, Kind.MAIN);
    }

    RuntimeContainer(String name, String image, Kind kind) {
        this.name = shared(name);
        this.image = shared(image);
        this.kind = kind;
    }

    /**
     * The exited container is started again: its exit becomes the last state, and the next attempt is CREATED until the
     * runtime reports it.
     */
    void restarting() {
        lastTerminated = new Exit(containerId, exitCode, reason, startedAt, finishedAt);
        attempt++;
        state = State.CREATED;
        containerId = null;
        exitCode = null;
        reason = null;
        startedAt = null;
        finishedAt = null;
        backOffUntil = null;
    }

    /** Whether the container may still run: asked to start and not seen to exit. */
    boolean couldBeRunning() {
        return state != State.EXITED;
    }

    boolean isInPreStop() {
        return preStop != null;
    }

    boolean isWaitingForTurn() {
        return turnDueAt != null;
    }

    public Kind kind() {
        return kind;
    }

    public String name() {
        return name;
    }

    public State state() {
        return state;
    }

    public Integer exitCode() {
        return exitCode;
    }

    public boolean isInCrashLoopBackOff() {
        return backOffUntil != null;
    }
}
