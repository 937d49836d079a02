package io.podfall.kubelet.podworkers;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * What a pod's probes find, declared by its annotations, as its process's behaviour is ({@code podfall.io/on-sigterm},
 * …): the simulated process has no port to connect to and no command to run, so the pod says when it answers. Each time
 * counts from the start of the container being probed (every restart too). Decimal seconds; a value that is missing,
 * negative or unreadable is the default (a typo must not stop the kubelet).
 *
 * <ul>
 *   <li>{@value #READY_AFTER_SECONDS}: readiness succeeds from that long after the start on (default 0).
 *   <li>{@value #UNREADY_ON_SIGTERM}: {@code true}: readiness fails from the container's stop signal on (SIGTERM, or
 *       its STOPSIGNAL), as a server that stops accepting once told to stop (default {@code false}).
 *   <li>{@value #LIVENESS_FAILS_AFTER_SECONDS}: liveness fails from that long after the start on (default never).
 *   <li>{@value #STARTUP_AFTER_SECONDS}: startup succeeds from that long after the start on (default 0).
 * </ul>
 */
record ProbeOutcomes(
        Duration readyAfter, boolean unreadyOnSigterm, Duration livenessFailsAfter, Duration startupAfter) {
    static final String READY_AFTER_SECONDS = "podfall.io/ready-after-seconds";
    static final String UNREADY_ON_SIGTERM = "podfall.io/unready-on-sigterm";
    static final String LIVENESS_FAILS_AFTER_SECONDS = "podfall.io/liveness-fails-after-seconds";
    static final String STARTUP_AFTER_SECONDS = "podfall.io/startup-after-seconds";

    static ProbeOutcomes of(Map<String, String> annotations) {
        Map<String, String> a = annotations == null ? Map.of() : annotations;
        return new ProbeOutcomes(
                seconds(a.get(READY_AFTER_SECONDS), Duration.ZERO),
                "true".equalsIgnoreCase(trim(a.get(UNREADY_ON_SIGTERM))),
                seconds(a.get(LIVENESS_FAILS_AFTER_SECONDS), null),
                seconds(a.get(STARTUP_AFTER_SECONDS), Duration.ZERO));
    }

    /**
     * What a probe of the type finds at {@code at} in the container started at {@code startedAt}, which got its stop
     * signal at {@code stopSignalAt} (null: none yet).
     */
    ProbeResult probe(ProbeType type, Instant startedAt, Instant stopSignalAt, Instant at) {
        Duration running = Duration.between(startedAt, at);
        return switch (type) {
            case READINESS ->
                running.compareTo(readyAfter) >= 0 && !(unreadyOnSigterm && stopSignalAt != null)
                        ? ProbeResult.SUCCESS
                        : ProbeResult.FAILURE;
            case LIVENESS ->
                livenessFailsAfter != null && running.compareTo(livenessFailsAfter) >= 0
                        ? ProbeResult.FAILURE
                        : ProbeResult.SUCCESS;
            case STARTUP -> running.compareTo(startupAfter) >= 0 ? ProbeResult.SUCCESS : ProbeResult.FAILURE;
        };
    }

    private static Duration seconds(String value, Duration otherwise) {
        String v = trim(value);
        if (v == null) {
            return otherwise;
        }
        try {
            BigDecimal s = new BigDecimal(v);
            if (s.signum() < 0) {
                return otherwise;
            }
            BigDecimal longest = BigDecimal.valueOf(PreStopHook.LONGEST.getSeconds());
            return s.compareTo(longest) > 0
                    ? PreStopHook.LONGEST
                    : Duration.ofNanos(s.movePointRight(9).longValue());
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    private static String trim(String s) {
        return s == null ? null : s.trim();
    }
}
