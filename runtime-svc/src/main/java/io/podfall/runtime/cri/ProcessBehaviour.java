package io.podfall.runtime.cri;

import io.podfall.runtime.SimulatedDurations;

import java.time.Duration;
import java.util.Map;

/**
 * How the simulated process of every container of a pod answers the stop signal, read once from the pod's
 * annotations at RunPodSandbox. A value that cannot be read falls back to its default: a typo in a manifest must
 * not stop the node's runtime.
 *
 * @param exitsOnSigterm {@code podfall.io/on-sigterm}: {@code exit} [default] or {@code ignore} (the process
 *                       traps SIGTERM and carries on, so only SIGKILL ends it)
 * @param exitDelay      {@code podfall.io/exit-delay-seconds}: decimal seconds from SIGTERM to the exit [0];
 *                       beyond {@link SimulatedDurations#LONGEST_WAIT} the process exits after any timeout
 * @param exitCode       {@code podfall.io/exit-code}: the code of that exit, 0–255 [143 = 128 + SIGTERM's 15]
 */
public record ProcessBehaviour(boolean exitsOnSigterm, Duration exitDelay, int exitCode) {
    public static final String ON_SIGTERM = "podfall.io/on-sigterm";
    public static final String EXIT_DELAY_SECONDS = "podfall.io/exit-delay-seconds";
    public static final String EXIT_CODE = "podfall.io/exit-code";
    public static final ProcessBehaviour DEFAULT = new ProcessBehaviour(true, Duration.ZERO, 143);

    public static ProcessBehaviour fromAnnotations(Map<String, String> annotations) {
        if (annotations == null) {
            return DEFAULT;
        }
        return new ProcessBehaviour(
                !"ignore".equalsIgnoreCase(trimmed(annotations.get(ON_SIGTERM))),
                SimulatedDurations.seconds(annotations.get(EXIT_DELAY_SECONDS)).orElse(DEFAULT.exitDelay),
                exitCode(trimmed(annotations.get(EXIT_CODE))));
    }

    private static int exitCode(String value) {
        if (value == null) {
            return DEFAULT.exitCode;
        }
        try {
            int code = Integer.parseInt(value);
            return code >= 0 && code <= 255 ? code : DEFAULT.exitCode;
        } catch (NumberFormatException e) {
            return DEFAULT.exitCode;
        }
    }

    private static String trimmed(String value) {
        return value == null ? null : value.trim();
    }
}
