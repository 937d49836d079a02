package io.podfall.kubelet.podworkers;

import java.time.Duration;
import java.time.Instant;

/**
 * The crash-loop back-off of one container of a pod: the kubelet's entry for the container's stable key in its
 * {@code flowcontrol.Backoff} (pkg/kubelet/kubelet.go: {@code NewBackOff(backOffPeriod, MaxContainerBackOff)}), as
 * {@code doBackOff} in pkg/kubelet/kuberuntime/kuberuntime_manager.go consults it before starting an exited container
 * again.
 *
 * <p>The first restart is not held back: there is no entry yet, so the container starts at once and the entry begins at
 * {@link #INITIAL}. From then on the container waits until its last exit plus the entry's back-off, and each start
 * doubles the back-off up to {@link #MAX}: restarts come 0, 10, 20, 40, … s after the exits, then every 300 s. A
 * container that ran long enough ({@link #STABLE} between the start and the exit: client-go's {@code hasExpired},
 * "consider stable if it's ok for twice the maxDuration") starts at once and its back-off is reset. Times are simulated
 * ones taken from the log, so a rebuild decides the same.
 */
final class ContainerBackOff {
    /** pkg/kubelet/kubelet.go backOffPeriod. */
    static final Duration INITIAL = Duration.ofSeconds(10);
    /** pkg/kubelet/kubelet.go MaxContainerBackOff. */
    static final Duration MAX = Duration.ofSeconds(300);
    /** Twice {@link #MAX}: a container that ran this long before exiting is stable, and its back-off starts over. */
    static final Duration STABLE = MAX.multipliedBy(2);

    /** The entry's current back-off; null while there is no entry (before the first restart). */
    private Duration backOff;
    /** When the entry was last moved on: the last start of the container. */
    private Instant lastUpdate;

    /** Backoff.IsInBackOffSince: whether, at {@code now}, the container that exited at {@code exitedAt} must wait. */
    boolean isInBackOffSince(Instant exitedAt, Instant now) {
        if (backOff == null || hasExpired(exitedAt)) {
            return false;
        }
        return Duration.between(exitedAt, now).compareTo(backOff) < 0;
    }

    /** Backoff.Next, as the container is started again at {@code now} after its exit at {@code exitedAt}. */
    void next(Instant exitedAt, Instant now) {
        if (backOff == null || hasExpired(exitedAt)) {
            backOff = INITIAL;
        } else {
            Duration doubled = backOff.multipliedBy(2);
            backOff = doubled.compareTo(MAX) > 0 ? MAX : doubled;
        }
        lastUpdate = now;
    }

    /** The back-off the container waits out now (doBackOff's message says it). */
    Duration current() {
        return backOff;
    }

    private boolean hasExpired(Instant exitedAt) {
        return Duration.between(lastUpdate, exitedAt).compareTo(STABLE) > 0;
    }
}
