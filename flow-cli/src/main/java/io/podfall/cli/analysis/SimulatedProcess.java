package io.podfall.cli.analysis;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;

/**
 * What a container's simulated process does on its stop signal, as a reader of the log tells it from the pod's
 * annotations: the two that decide whether and when it exits. The runtime owns the rule (runtime-svc
 * {@code ProcessBehaviour}, the README's "How a simulated process behaves"); this reads it the same way, a value that
 * cannot be read meaning its default: {@code podfall.io/on-sigterm} {@code exit} unless {@code ignore} (any case),
 * {@code podfall.io/exit-delay-seconds} non-negative decimal seconds, else 0.
 *
 * @param exits whether the process exits on the stop signal (else only SIGKILL ends it)
 * @param exitDelay from the stop signal to that exit
 */
record SimulatedProcess(boolean exits, Duration exitDelay) {
    static final String ON_SIGTERM = "podfall.io/on-sigterm";
    static final String EXIT_DELAY_SECONDS = "podfall.io/exit-delay-seconds";
    /** Longer delays are this, as the runtime cuts them: far beyond any grace period, the same as never. */
    private static final Duration LONGEST = Duration.ofDays(3650);

    /** From a pod's annotations (a null value, like a missing one, means none). */
    static SimulatedProcess of(Map<String, String> annotations) {
        String onSigterm = annotations.get(ON_SIGTERM);
        boolean exits = !"ignore".equalsIgnoreCase(onSigterm == null ? "" : onSigterm.trim());
        return new SimulatedProcess(exits, seconds(annotations.get(EXIT_DELAY_SECONDS)));
    }

    /** The annotations that described it, as they read in a finding. */
    static String describe(Map<String, String> annotations) {
        String delay = annotations.get(EXIT_DELAY_SECONDS);
        return delay == null ? "no " + EXIT_DELAY_SECONDS + ": it exits at once" : EXIT_DELAY_SECONDS + "=" + delay;
    }

    private static Duration seconds(String value) {
        if (value == null) {
            return Duration.ZERO;
        }
        try {
            BigDecimal s = new BigDecimal(value.trim());
            if (s.signum() < 0) {
                return Duration.ZERO;
            }
            return s.compareTo(BigDecimal.valueOf(LONGEST.toSeconds())) >= 0
                    ? LONGEST
                    : Duration.ofMillis(s.movePointRight(3).longValue());
        } catch (NumberFormatException e) {
            return Duration.ZERO;
        }
    }
}
