package io.podfall.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.podfall.cli.launch.ServiceProcess;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchSuiteTest {
    @Test
    void aServiceHeapStartsAtTheSuitesWhateverItsCap() {
        assertEquals(
                List.of("-Xms256m", "-Xmx4162m", "-XX:+UseParallelGC"),
                BenchSuite.withHeap(List.of("-XX:+UseParallelGC"), MassDeletionBench.heapMb(100_000)));
        assertEquals(List.of("-Xms256m", "-Xmx256m"), BenchSuite.withHeap(List.of(), ServiceProcess.HEAP_MB));
    }

    @Test
    void aCapAmongTheOptionsLeavesTheHeapToThem() {
        assertEquals(List.of("-Xmx1g"), BenchSuite.withHeap(List.of("-Xmx1g"), MassDeletionBench.heapMb(100_000)));
    }

    @Test
    void aStartAmongTheOptionsComesLaterAndWins() {
        List<String> jvm = BenchSuite.withHeap(List.of("-Xms32m"), MassDeletionBench.heapMb(100_000));
        assertEquals(List.of("-Xms256m", "-Xmx4162m", "-Xms32m"), jvm);
    }
}
