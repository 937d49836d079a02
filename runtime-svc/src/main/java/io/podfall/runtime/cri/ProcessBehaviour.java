package io.podfall.runtime.cri;

import io.podfall.runtime.SimulatedDurations;
import java.time.Duration;
import java.util.Map;

/**
 * How the simulated process of every container of a pod answers the stop signal, and whether it ends by itself, read
 * once from the pod's annotations at RunPodSandbox. A value that cannot be read falls back to its default: a typo in a
 * manifest must not stop the node's runtime.
 *
 * @param exitsOnSigterm {@code podfall.io/on-sigterm}: {@code exit} [default] or {@code ignore} (the process traps
 *     SIGTERM and carries on, so only SIGKILL ends it)
 * @param exitDelay {@code podfall.io/exit-delay-seconds}: decimal seconds from SIGTERM to the exit [0]; beyond
 *     {@link SimulatedDurations#LONGEST_WAIT} the process exits after any timeout
 * @param exitCode {@code podfall.io/exit-code}: the code of that exit, 0–255 [128 + the stop signal's number: 143 for
 *     SIGTERM]
 * @param stopSignal {@code podfall.io/stop-signal}: the signal StopContainer sends first, as an image's
 *     {@code STOPSIGNAL} sets it (nginx's is SIGQUIT) [SIGTERM]; {@code on-sigterm} and {@code exit-delay-seconds} then
 *     describe the answer to that signal
 * @param runFor {@code podfall.io/run-seconds}: decimal seconds from the start of each container (every restart
 *     included) until its process exits by itself, as a batch job or a crashing server does; null [default] when it
 *     runs until it is stopped
 * @param runExitCode {@code podfall.io/run-exit-code}: the code of that exit, 0–255 [0]
 * @param initRunFor {@code podfall.io/init-run-seconds}: decimal seconds from the start of each regular init container
 *     (an init container without {@code restartPolicy: Always}; every restart included) until its process exits by
 *     itself [0: it completes at once]. Sidecars and main containers follow {@code runFor}.
 * @param initExitCode {@code podfall.io/init-exit-code}: the code of a regular init container's exit, 0–255 [0]
 */
public record ProcessBehaviour(
        boolean exitsOnSigterm,
        Duration exitDelay,
        int exitCode,
        String stopSignal,
        Duration runFor,
        int runExitCode,
        Duration initRunFor,
        int initExitCode) {
    public static final String ON_SIGTERM = "podfall.io/on-sigterm";
    public static final String EXIT_DELAY_SECONDS = "podfall.io/exit-delay-seconds";
    public static final String EXIT_CODE = "podfall.io/exit-code";
    public static final String STOP_SIGNAL = "podfall.io/stop-signal";
    public static final String RUN_SECONDS = "podfall.io/run-seconds";
    public static final String RUN_EXIT_CODE = "podfall.io/run-exit-code";
    public static final String INIT_RUN_SECONDS = "podfall.io/init-run-seconds";
    public static final String INIT_EXIT_CODE = "podfall.io/init-exit-code";
    /** The signals a process may be asked to stop with, by name, with their Linux numbers. */
    static final Map<String, Integer> STOP_SIGNALS =
            Map.of("SIGHUP", 1, "SIGINT", 2, "SIGQUIT", 3, "SIGUSR1", 10, "SIGUSR2", 12, "SIGTERM", 15, "SIGWINCH", 28);

    public static final ProcessBehaviour DEFAULT =
            new ProcessBehaviour(true, Duration.ZERO, 128 + 15, "SIGTERM", null, 0, Duration.ZERO, 0);

    public static ProcessBehaviour fromAnnotations(Map<String, String> annotations) {
        if (annotations == null) {
            return DEFAULT;
        }
        String signal = stopSignal(trimmed(annotations.get(STOP_SIGNAL)));
        return new ProcessBehaviour(
                !"ignore".equalsIgnoreCase(trimmed(annotations.get(ON_SIGTERM))),
                SimulatedDurations.seconds(annotations.get(EXIT_DELAY_SECONDS)).orElse(DEFAULT.exitDelay),
                exitCode(trimmed(annotations.get(EXIT_CODE)), 128 + STOP_SIGNALS.get(signal)),
                signal,
                SimulatedDurations.seconds(annotations.get(RUN_SECONDS)).orElse(DEFAULT.runFor),
                exitCode(trimmed(annotations.get(RUN_EXIT_CODE)), DEFAULT.runExitCode),
                SimulatedDurations.seconds(annotations.get(INIT_RUN_SECONDS)).orElse(DEFAULT.initRunFor),
                exitCode(trimmed(annotations.get(INIT_EXIT_CODE)), DEFAULT.initExitCode));
    }

    /** A signal name, with or without its SIG prefix, in any case; anything else is SIGTERM. */
    private static String stopSignal(String value) {
        if (value == null) {
            return DEFAULT.stopSignal;
        }
        String name = value.toUpperCase(java.util.Locale.ROOT);
        name = name.startsWith("SIG") ? name : "SIG" + name;
        return STOP_SIGNALS.containsKey(name) ? name : DEFAULT.stopSignal;
    }

    private static int exitCode(String value, int fallback) {
        if (value == null) {
            return fallback;
        }
        try {
            int code = Integer.parseInt(value);
            return code >= 0 && code <= 255 ? code : fallback;
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    private static String trimmed(String value) {
        return value == null ? null : value.trim();
    }
}
