package io.podfall.kubelet.proxy;

import java.time.Duration;
import java.time.Instant;

/**
 * When a node's kube-proxy may sync: upstream's BoundedFrequencyRunner (pkg/util/async/bounded_frequency_runner.go, as
 * the iptables Proxier builds it with {@code minSyncPeriod} and {@code burstSyncs} 2), reduced to its arithmetic.
 *
 * <p>A change asks for a run ({@code Run}); the runner's {@code tryRun} runs at once if its token bucket holds a token
 * (qps {@code 1/minSyncPeriod}, burst 2, full at the start: golang.org/x/time/rate), otherwise it waits until
 * {@code lastRun + minSyncPeriod}, lastRun being when the last run ended. So the first two changes in a row sync at
 * once, and a third within the period waits for the period to pass since the end of the second. A run takes a token
 * whoever asked for it. A change that arrives during a sync is taken by the next run, which the runner tries as the
 * sync returns. A period of zero is no limit at all (upstream's nullLimiter).
 *
 * <p>The bucket is kept exactly (no float): {@code emptyAt} is the instant from which it would have refilled to hold
 * what it holds, so it holds {@code min(burst, (t - emptyAt) / minSyncPeriod)} tokens at {@code t}.
 */
final class BoundedFrequencyRunner {
    private final Duration minInterval;
    private final int burst;
    /** null: the bucket is full. */
    private Instant emptyAt;
    /** When the last run ended (upstream sets lastRun once fn returned); null before any. */
    private Instant lastRun;

    BoundedFrequencyRunner(Duration minInterval, int burst) {
        this.minInterval = minInterval;
        this.burst = burst;
    }

    /** Whether a run may start at {@code t}: a token is there (TryAccept, without taking it). */
    boolean mayRun(Instant t) {
        return minInterval.isZero() || emptyAt == null || !t.isBefore(emptyAt.plus(minInterval));
    }

    /** A run starts at {@code t}: it takes a token (only after {@link #mayRun} said yes). */
    void started(Instant t) {
        if (minInterval.isZero()) {
            return;
        }
        Instant full = t.minus(minInterval.multipliedBy(burst));
        emptyAt = emptyAt == null || !emptyAt.isAfter(full) ? full.plus(minInterval) : emptyAt.plus(minInterval);
    }

    /** The run that started ended at {@code t}. */
    void ended(Instant t) {
        lastRun = t;
    }

    /** {@code t}, or the end of the last run if that is later. */
    Instant notBeforeLastRun(Instant t) {
        return lastRun != null && t.isBefore(lastRun) ? lastRun : t;
    }

    /**
     * When a run refused at a token's lack may be tried again: {@code lastRun + minInterval} (tryRun's nextPossible).
     */
    Instant nextPossible() {
        return lastRun.plus(minInterval);
    }
}
