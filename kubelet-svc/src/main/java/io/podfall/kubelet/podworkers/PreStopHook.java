package io.podfall.kubelet.podworkers;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LifecycleHandler;
import io.fabric8.kubernetes.api.model.Pod;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A container's {@code lifecycle.preStop} handler and how long the simulated hook runs: a {@code sleep} action for its
 * {@code seconds}; an {@code exec} or {@code httpGet} action for the pod annotation {@code podfall.io/prestop-seconds}
 * (decimal seconds, 0 when absent or unreadable: a typo must not stop the kubelet). A {@code tcpSocket} preStop handler
 * is deprecated and does nothing upstream, so it is no hook here.
 *
 * @param handler {@code sleep}, {@code exec} or {@code httpGet}
 * @param duration how long the hook runs if nothing cuts it short
 */
record PreStopHook(String handler, Duration duration) {
    static final String PRESTOP_SECONDS = "podfall.io/prestop-seconds";
    /** The longest a simulated hook runs; it keeps every timer within what a clock can represent. */
    static final Duration LONGEST = Duration.ofDays(3650);

    static Optional<PreStopHook> of(Pod pod, String containerName) {
        // A sidecar's hook too: killContainer runs it before the sidecar waits for its turn.
        Optional<LifecycleHandler> preStop = Optional.ofNullable(InitContainers.spec(pod, containerName))
                .map(Container::getLifecycle)
                .map(l -> l.getPreStop());
        if (preStop.isEmpty()) {
            return Optional.empty();
        }
        LifecycleHandler h = preStop.get();
        if (h.getSleep() != null && h.getSleep().getSeconds() != null) {
            return Optional.of(new PreStopHook(
                    "sleep",
                    Duration.ofSeconds(Math.min(Math.max(h.getSleep().getSeconds(), 0), LONGEST.getSeconds()))));
        }
        Duration simulated = annotatedSeconds(pod.getMetadata().getAnnotations());
        if (h.getExec() != null) {
            return Optional.of(new PreStopHook("exec", simulated));
        }
        if (h.getHttpGet() != null) {
            return Optional.of(new PreStopHook("httpGet", simulated));
        }
        return Optional.empty();
    }

    private static Duration annotatedSeconds(Map<String, String> annotations) {
        String value = annotations == null ? null : annotations.get(PRESTOP_SECONDS);
        if (value == null) {
            return Duration.ZERO;
        }
        try {
            BigDecimal seconds = new BigDecimal(value.trim());
            // Beyond the longest wait the hook outlasts any grace period: the same as never finishing.
            BigDecimal longest = BigDecimal.valueOf(LONGEST.getSeconds());
            return seconds.signum() < 0
                    ? Duration.ZERO
                    : seconds.compareTo(longest) > 0
                            ? LONGEST
                            : Duration.ofNanos(seconds.movePointRight(9).longValue());
        } catch (NumberFormatException e) {
            return Duration.ZERO;
        }
    }
}
