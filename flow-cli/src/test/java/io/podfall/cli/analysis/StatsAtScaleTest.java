package io.podfall.cli.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.podfall.cli.log.EventFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stats over a log of thousands of overlapping deletions, streamed from the file. Speed, and memory bounded by a small
 * heap, are scripts/bench-stats' to measure, not a test's.
 */
class StatsAtScaleTest {
    @TempDir
    Path dir;

    @Test
    void aLargeLogOfOverlappingDeletionsIsMeasuredAsAStream() throws IOException {
        Path file = dir.resolve("pods.jsonl");
        SyntheticLog.Written written = SyntheticLog.write(2_000, file, 7);
        Stats.Collector stats = new Stats.Collector();
        long[] read = {0};
        try (InputStream in = Files.newInputStream(file)) {
            EventFile.forEach(in, e -> {
                stats.accept(e);
                read[0]++;
            });
        }
        Stats s = stats.result();
        assertEquals(written.events(), read[0]);
        assertEquals(written.deletions(), s.flows());
        assertEquals(written.deletions(), s.completed());
        assertEquals(written.rejected(), s.rejected());
        assertEquals(written.killed(), s.killed());
        assertEquals(written.deletions(), s.durations().get(Stats.TOTAL).n());
        assertEquals(60_000, s.durations().get(Stats.GRACE_REQUESTED).max());
    }
}
