package io.podfall.kubelet.podworkers;

import java.time.Instant;

/** One container of a pod as the kubelet has heard of it from the runtime's facts (CRI ContainerStatus). */
public final class RuntimeContainer {

    /** CRI ContainerState, as far as the kubelet knows: CREATED from the start request until the runtime reports it. */
    public enum State { CREATED, RUNNING, EXITED }

    final String name;
    String image;
    State state = State.CREATED;
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

    RuntimeContainer(String name, String image) {
        this.name = name;
        this.image = image;
    }

    /** Whether the container may still run: asked to start and not seen to exit. */
    boolean couldBeRunning() {
        return state != State.EXITED;
    }

    boolean isInPreStop() {
        return preStop != null;
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
}
