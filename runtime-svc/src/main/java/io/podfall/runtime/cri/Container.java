package io.podfall.runtime.cri;

import static io.podfall.model.SharedStrings.shared;

import io.podfall.model.runtime.ContainerState;
import java.time.Instant;

/**
 * One container of a sandbox and its simulated process: created and started in one step (CRI CreateContainer +
 * StartContainer), so it is RUNNING from the first fact about it, then EXITED, then removed with its sandbox. A
 * container the kubelet starts again is a new one of the same name with the next attempt. Changed only by
 * {@link ContainerRuntime}.
 */
public final class Container {
    /** The CRI container id: {@code Ids.derived("container", podUid, name)}, with the attempt after a restart. */
    private final String id;

    private final String name;
    private final String image;
    private final Instant startedAt;
    /** CRI ContainerMetadata.attempt: 0 for the first container of its name, then the kubelet's restart count. */
    private final int attempt;
    /** When the process exits by itself ({@code podfall.io/run-seconds}); null if it runs until it is stopped. */
    private Instant runEndsAt;
    /** RUNNING until the process exits, EXITED after; never back. */
    private ContainerState.State state = ContainerState.State.RUNNING;
    /** When the stop signal was delivered; null until the first StopContainer with a timeout. Sent once. */
    private Instant stopSignalledAt;
    /** When the process exits by itself after the stop signal; null if it ignores the signal or is not stopping. */
    private Instant exitDueAt;
    /** When SIGKILL is due: stop signal + timeout; only ever moved earlier. Null when no kill is pending. */
    private Instant killDueAt;
    /** Set once, when the process exits. */
    private Integer exitCode;

    private Instant finishedAt;

    Container(String id, String name, String image, Instant startedAt, int attempt, Instant runEndsAt) {
        this.id = id;
        this.name =
                shared(name); // as its sandbox's specs: the containers of a ReplicaSet's pods share a name and image
        this.image = shared(image);
        this.startedAt = startedAt;
        this.attempt = attempt;
        this.runEndsAt = runEndsAt;
    }

    public String id() {
        return id;
    }

    public String name() {
        return name;
    }

    public String image() {
        return image;
    }

    public ContainerState.State state() {
        return state;
    }

    public boolean isRunning() {
        return state == ContainerState.State.RUNNING;
    }

    public boolean isStopSignalled() {
        return stopSignalledAt != null;
    }

    public Instant startedAt() {
        return startedAt;
    }

    public int attempt() {
        return attempt;
    }

    public Instant runEndsAt() {
        return runEndsAt;
    }

    public Instant stopSignalledAt() {
        return stopSignalledAt;
    }

    public Instant exitDueAt() {
        return exitDueAt;
    }

    public Instant killDueAt() {
        return killDueAt;
    }

    public Integer exitCode() {
        return exitCode;
    }

    public Instant finishedAt() {
        return finishedAt;
    }

    void stopSignalled(Instant at, Instant exitDue, Instant killDue) {
        stopSignalledAt = at;
        exitDueAt = exitDue;
        killDueAt = killDue;
    }

    void killDue(Instant at) {
        killDueAt = at;
    }

    void exited(int code, Instant at) {
        state = ContainerState.State.EXITED;
        exitCode = code;
        finishedAt = at;
        exitDueAt = null;
        killDueAt = null;
        runEndsAt = null;
    }

    /** As CRI ContainerStatus reports it; the reason is containerd's: Completed for 0, Error otherwise. */
    ContainerState status(String node, String podUid) {
        String reason = exitCode == null ? null : exitCode == 0 ? "Completed" : "Error";
        return new ContainerState(
                node, podUid, id, name, image, state, exitCode, reason, startedAt, finishedAt, attempt);
    }
}
