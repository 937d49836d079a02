package io.podfall.kubelet.nodestatus;

import java.time.Duration;
import java.time.Instant;

/**
 * When a periodic heartbeat (a lease renewal, a node status report) is next due. A heartbeat runs on the grid of its
 * last beat: {@code last + k × interval}, the first such instant after the fact that showed it. Taken from the log, so
 * a kubelet rebuilding its state finds the very instants it used live and recognises the heartbeats it sent; and a
 * kubelet back from a long stop beats once, then goes on from now, instead of catching up every beat it missed.
 */
public final class Heartbeat {

    private Heartbeat() {}

    /** The first {@code last + k × interval} (k ≥ 1) after {@code seen}. */
    public static Instant nextDue(Instant last, Duration interval, Instant seen) {
        Instant due = last.plus(interval);
        if (due.isAfter(seen)) {
            return due;
        }
        long missed = Duration.between(last, seen).toNanos() / interval.toNanos();
        return last.plus(interval.multipliedBy(missed + 1));
    }
}
