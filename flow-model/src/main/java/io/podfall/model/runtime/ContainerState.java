package io.podfall.model.runtime;

import java.time.Instant;

/**
 * A container as the runtime reports it (CRI ContainerStatus): running, or exited with a code and a reason
 * ({@code Completed} for 0, {@code Error} otherwise, as containerd sets it). {@code attempt} is the one the kubelet
 * asked for ({@link ContainerRef#attempt()}): which restart of the container this is.
 */
public record ContainerState(
        String node,
        String podUid,
        String containerId,
        String containerName,
        String image,
        State state,
        Integer exitCode,
        String reason,
        Instant startedAt,
        Instant finishedAt,
        int attempt) {

    public enum State {
        RUNNING,
        EXITED
    }
}
