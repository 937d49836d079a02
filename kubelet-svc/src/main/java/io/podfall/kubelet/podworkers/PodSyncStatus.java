package io.podfall.kubelet.podworkers;

import java.time.Instant;

/**
 * One pod's transitions through the three phases of a pod worker, field for field as upstream's {@code podSyncStatus}
 * in pkg/kubelet/pod_workers.go (the fields podfall has no use for, such as the context of the sync in flight, are left
 * out).
 */
public final class PodSyncStatus {
    /** syncedAt is the time at which the pod worker first observed this pod. */
    Instant syncedAt;
    /** startedAt is the time at which the pod worker allowed the pod to start (asked the runtime for its sandbox). */
    Instant startedAt;
    /** terminatingAt is set once the pod is requested to be killed; the termination deadline counts from it. */
    Instant terminatingAt;
    /** startedTerminating is true once the worker acted on the kill: from then on no container is started. */
    boolean startedTerminating;
    /** terminatedAt is set once every container and the sandbox of the pod are stopped. */
    Instant terminatedAt;
    /** finished is true once the terminated pod's final status is reported (syncTerminatedPod is done). */
    boolean finished;
    /** deleted is true if the pod was marked for deletion on the API server, or is gone from it. */
    boolean deleted;
    /** evicted is true if the kill was an eviction: the pod ends Failed with reason Evicted, and is not deleted. */
    boolean evicted;
    /**
     * restartRequested is true if a create of a pod with this UID came while the pod was terminating or after it
     * finished: upstream restarts such a pod after termination (a static pod reusing its UID); podfall records it and
     * never admits the UID again.
     */
    boolean restartRequested;
    /** gracePeriod is the effective grace period in seconds once terminatingAt is set; it only ever decreases. */
    long gracePeriod;
    /**
     * killDeadline is the deadline the kill in flight works toward: {@link #deadline()} once termination started. A
     * released kubelet never moves it; under {@link Compat#shortenedGraceKillsAgain()} each kill again sets it anew.
     */
    Instant killDeadline;
    /**
     * killCancelled is true under {@link Compat#shortenedGraceKillsAgain()} from a shortening until the kill again: the
     * cancelled kill waits for its running preStop hooks, and stops no container.
     */
    boolean killCancelled;

    PodSyncStatus(Instant syncedAt) {
        this.syncedAt = syncedAt;
    }

    public boolean isStarted() {
        return startedAt != null;
    }

    public boolean isTerminationRequested() {
        return terminatingAt != null;
    }

    public boolean isTerminationStarted() {
        return startedTerminating;
    }

    public boolean isTerminated() {
        return terminatedAt != null;
    }

    public boolean isFinished() {
        return finished;
    }

    public boolean isDeleted() {
        return deleted;
    }

    public boolean isEvicted() {
        return evicted;
    }

    public boolean isRestartRequested() {
        return restartRequested;
    }

    public long gracePeriod() {
        return gracePeriod;
    }

    /** When the containers must be gone: terminatingAt plus the grace period (the API server's deletionTimestamp). */
    public Instant deadline() {
        return terminatingAt.plusSeconds(gracePeriod);
    }

    public Instant killDeadline() {
        return killDeadline;
    }

    public PodWorkerState workType() {
        if (isTerminated()) {
            return PodWorkerState.TerminatedPod;
        }
        if (isTerminationRequested()) {
            return PodWorkerState.TerminatingPod;
        }
        return PodWorkerState.SyncPod;
    }
}
