package io.podfall.runtime.cri;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.podfall.runtime.SimulatedDurations;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProcessBehaviourTest {

    private static ProcessBehaviour of(String onSigterm, String delay, String code) {
        Map<String, String> annotations = new HashMap<>();
        if (onSigterm != null) {
            annotations.put(ProcessBehaviour.ON_SIGTERM, onSigterm);
        }
        if (delay != null) {
            annotations.put(ProcessBehaviour.EXIT_DELAY_SECONDS, delay);
        }
        if (code != null) {
            annotations.put(ProcessBehaviour.EXIT_CODE, code);
        }
        return ProcessBehaviour.fromAnnotations(annotations);
    }

    @Test
    void noAnnotationsMeanExitAtOnceWith143() {
        assertEquals(ProcessBehaviour.DEFAULT, ProcessBehaviour.fromAnnotations(null));
        assertEquals(ProcessBehaviour.DEFAULT, ProcessBehaviour.fromAnnotations(Map.of("other", "x")));
        assertEquals(
                new ProcessBehaviour(true, Duration.ZERO, 143, "SIGTERM", null, 0, Duration.ZERO, 0),
                ProcessBehaviour.DEFAULT);
    }

    @Test
    void readsEachAnnotation() {
        assertEquals(
                new ProcessBehaviour(false, Duration.ofMillis(1500), 0, "SIGTERM", null, 0, Duration.ZERO, 0),
                of("ignore", "1.5", "0"));
        assertEquals(
                new ProcessBehaviour(true, Duration.ofSeconds(3), 1, "SIGTERM", null, 0, Duration.ZERO, 0),
                of(" exit ", "3", "1"));
    }

    @Test
    void aRegularInitContainerCompletesAtOnceWithZeroUnlessToldOtherwise() {
        assertEquals(Duration.ZERO, ProcessBehaviour.DEFAULT.initRunFor());
        assertEquals(0, ProcessBehaviour.DEFAULT.initExitCode());
        ProcessBehaviour read = ProcessBehaviour.fromAnnotations(
                Map.of(ProcessBehaviour.INIT_RUN_SECONDS, "2.5", ProcessBehaviour.INIT_EXIT_CODE, "3"));
        assertEquals(Duration.ofMillis(2500), read.initRunFor());
        assertEquals(3, read.initExitCode());
        assertEquals(null, read.runFor(), "the main containers still run until stopped");
        ProcessBehaviour bad = ProcessBehaviour.fromAnnotations(
                Map.of(ProcessBehaviour.INIT_RUN_SECONDS, "-1", ProcessBehaviour.INIT_EXIT_CODE, "300"));
        assertEquals(Duration.ZERO, bad.initRunFor());
        assertEquals(0, bad.initExitCode());
    }

    @Test
    void valuesThatCannotBeReadFallBackToTheirDefaults() {
        assertEquals(ProcessBehaviour.DEFAULT, of("sometimes", "soon", "abc"));
        assertEquals(ProcessBehaviour.DEFAULT, of("", "-3", "-1"));
        assertEquals(ProcessBehaviour.DEFAULT, of("exit", "NaN", "256"));
        assertEquals(ProcessBehaviour.DEFAULT, of(null, "", "99999999999"));
    }

    @Test
    void anImagesStopSignalIsSentInsteadOfSigtermAndSetsTheDefaultExitCode() {
        assertEquals(
                new ProcessBehaviour(true, Duration.ZERO, 131, "SIGQUIT", null, 0, Duration.ZERO, 0),
                ProcessBehaviour.fromAnnotations(Map.of(ProcessBehaviour.STOP_SIGNAL, "SIGQUIT")),
                "nginx: 128 + 3");
        assertEquals(
                "SIGINT",
                ProcessBehaviour.fromAnnotations(Map.of(ProcessBehaviour.STOP_SIGNAL, " int "))
                        .stopSignal());
        assertEquals(
                0,
                ProcessBehaviour.fromAnnotations(
                                Map.of(ProcessBehaviour.STOP_SIGNAL, "SIGQUIT", ProcessBehaviour.EXIT_CODE, "0"))
                        .exitCode(),
                "a process that handles it and exits cleanly");
        assertEquals(
                ProcessBehaviour.DEFAULT,
                ProcessBehaviour.fromAnnotations(Map.of(ProcessBehaviour.STOP_SIGNAL, "SIGSTOP")),
                "not a signal a process can be asked to stop with: SIGTERM");
    }

    @Test
    void delaysBeyondTheLongestWaitAreCut() {
        assertEquals(SimulatedDurations.LONGEST_WAIT, of(null, "1e30", null).exitDelay());
    }

    @Test
    void aProcessThatEndsByItselfRunsItsSecondsAndExitsWithItsCodeOrZero() {
        ProcessBehaviour job = ProcessBehaviour.fromAnnotations(
                Map.of(ProcessBehaviour.RUN_SECONDS, "12.5", ProcessBehaviour.RUN_EXIT_CODE, "1"));
        assertEquals(Duration.ofMillis(12_500), job.runFor());
        assertEquals(1, job.runExitCode());
        assertEquals(
                0,
                ProcessBehaviour.fromAnnotations(Map.of(ProcessBehaviour.RUN_SECONDS, "3"))
                        .runExitCode());
        assertEquals(143, job.exitCode(), "stopped before its end, it still answers the signal as it would");
    }

    @Test
    void anUnreadableRunTimeMeansItRunsUntilStopped() {
        assertEquals(
                ProcessBehaviour.DEFAULT,
                ProcessBehaviour.fromAnnotations(
                        Map.of(ProcessBehaviour.RUN_SECONDS, "forever", ProcessBehaviour.RUN_EXIT_CODE, "-4")));
        assertEquals(
                ProcessBehaviour.DEFAULT, ProcessBehaviour.fromAnnotations(Map.of(ProcessBehaviour.RUN_SECONDS, "-1")));
    }
}
