package io.podfall.runtime;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Optional;

/**
 * How long the simulated node takes for something, as a pod annotation gives it ({@code podfall.io/exit-delay-seconds},
 * {@code podfall.io/unmount-seconds}): decimal seconds. A value that cannot be read is no value, so its default holds:
 * a typo in a manifest must not stop the node.
 */
public final class SimulatedDurations {
    /**
     * The longest the node waits for anything. Longer values are cut to it: far beyond any grace period in use, the
     * same as waiting forever, and it keeps every timer within what a clock can represent.
     */
    public static final Duration LONGEST_WAIT = Duration.ofDays(3650);

    private SimulatedDurations() {}

    /**
     * The duration the value gives in decimal seconds, cut to {@link #LONGEST_WAIT}; empty if absent, unreadable or
     * negative.
     */
    public static Optional<Duration> seconds(String value) {
        if (value == null) {
            return Optional.empty();
        }
        try {
            BigDecimal seconds = new BigDecimal(value.trim());
            if (seconds.signum() < 0) {
                return Optional.empty();
            }
            return Optional.of(
                    seconds.compareTo(BigDecimal.valueOf(LONGEST_WAIT.getSeconds())) >= 0
                            ? LONGEST_WAIT
                            : Duration.ofNanos(seconds.movePointRight(9).longValue()));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
