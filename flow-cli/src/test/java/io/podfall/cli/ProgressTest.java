package io.podfall.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class ProgressTest {
    private long now;

    @Test
    void redrawsTheLineInPlaceAtMostEveryFifthOfASecondThenSaysWhatWasRead() {
        StringWriter out = new StringWriter();
        long[] bytes = {0};
        Progress p = new Progress(new PrintWriter(out), "log.jsonl", 1_000, () -> now).measuring(() -> bytes[0]);
        for (int i = 0; i < 4; i++) {
            now += 100_000_000L;
            bytes[0] += 250;
            p.event();
        }
        now += 1_600_000_000L;
        p.finish();
        assertEquals(
                "\rpodfall: reading log.jsonl: 50%, 2 events"
                        + "\rpodfall: reading log.jsonl: 100%, 4 events"
                        + String.format("\rpodfall: read 4 events of log.jsonl in 2.0 s (2 events/s)%n"),
                out.toString());
    }

    @Test
    void withoutATotalItCountsEventsOnly() {
        StringWriter out = new StringWriter();
        Progress p = new Progress(new PrintWriter(out), "podfall.events", 0, () -> now);
        now += Progress.EVERY_NANOS;
        p.event();
        assertEquals("\rpodfall: reading podfall.events: 1 events", out.toString());
    }

    @Test
    void aCountingStreamCountsWhatWasRead() throws IOException {
        try (Progress.CountingInputStream in =
                new Progress.CountingInputStream(new ByteArrayInputStream(new byte[10]))) {
            in.read();
            in.readNBytes(4);
            assertEquals(5, in.count());
            in.readAllBytes();
            in.read();
            assertEquals(10, in.count());
        }
    }
}
