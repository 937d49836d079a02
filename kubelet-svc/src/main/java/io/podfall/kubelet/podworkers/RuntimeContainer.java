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

    RuntimeContainer(String name, String image) {
        this.name = name;
        this.image = image;
    }

    /** Whether the container may still run: asked to start and not seen to exit. */
    boolean couldBeRunning() {
        return state != State.EXITED;
    }

    public State state() {
        return state;
    }

    public Integer exitCode() {
        return exitCode;
    }
}
