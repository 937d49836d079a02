package io.podfall.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NativeMemoryTest {
    @Test
    void aJvmStartedWithTheOptionsRunsAndTrimsEveryFiveSeconds() throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(NativeMemory.jvmOptions());
        cmd.addAll(List.of("-XX:+PrintFlagsFinal", "-version"));
        Process java = NativeMemory.withFewArenas(new ProcessBuilder(cmd))
                .redirectErrorStream(true)
                .start();
        String out = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertEquals(0, java.waitFor(), out);
        // JDK 17 has had the trim since 17.0.9; the build's JDK is later
        assertTrue(out.matches("(?s).*\\bTrimNativeHeapInterval\\s+= 5000\\b.*"), "the trim is on");
    }

    @Test
    void twoArenasUnlessTheEnvironmentSaysOtherwise() {
        assertEquals(
                "2",
                NativeMemory.withFewArenas(new ProcessBuilder()).environment().get("MALLOC_ARENA_MAX"));

        ProcessBuilder set = new ProcessBuilder();
        set.environment().put("MALLOC_ARENA_MAX", "4");
        assertEquals("4", NativeMemory.withFewArenas(set).environment().get("MALLOC_ARENA_MAX"));
    }
}
