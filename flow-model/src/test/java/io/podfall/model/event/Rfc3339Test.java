package io.podfall.model.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Rfc3339Test {
    @Test
    void readsWhatInstantWritesAsInstantReadsIt() {
        SplittableRandom random = new SplittableRandom(9);
        // every precision Instant.toString writes: nanos, micros, millis, whole seconds
        long[] units = {1, 1_000, 1_000_000, 1_000_000_000};
        for (int i = 0; i < 100_000; i++) {
            long nanos = random.nextLong(1_000_000_000L) / units[i % 4] * units[i % 4];
            Instant t = Instant.ofEpochSecond(random.nextLong(-62_135_596_800L, 253_402_300_799L), nanos);
            assertEquals(t, Rfc3339.parse(t.toString()), t.toString());
        }
        for (String s : List.of(
                "2024-02-29T23:59:59Z",
                "2026-11-30T07:25:01.1Z",
                "2026-11-30T07:25:01.12345678Z",
                "1970-01-01T00:00:00Z",
                "2026-11-30T07:25:01+01:00",
                "2026-11-30T07:25:01.5+00:00",
                "2026-11-30T24:00:00Z",
                "2016-12-31T23:59:60Z")) {
            assertEquals(Instant.parse(s), Rfc3339.parse(s), s);
        }
    }

    @Test
    void readsOddInputAsInstantDoesAndRefusesWhatItRefuses() {
        for (String s : List.of(
                "",
                "x",
                "2026-11-30",
                "2026-02-30T00:00:00Z",
                "2025-02-29T00:00:00Z",
                "2026-13-01T00:00:00Z",
                "2026-11-30T07:60:00Z",
                "2026-11-30T07:25:01.Z",
                "2026-11-30T07:25:01.1234567890Z",
                "2026-11-30T07:25:0xZ",
                "2026-11-30 07:25:01Z",
                "2026-11-30T07:25:01.1a3Z",
                "+026-11-30T07:25:01Z",
                "2026-11-30T07:25:01z")) {
            Instant expected;
            try {
                expected = Instant.parse(s);
            } catch (DateTimeParseException refused) {
                assertThrows(DateTimeParseException.class, () -> Rfc3339.parse(s), s);
                continue;
            }
            assertEquals(expected, Rfc3339.parse(s), s);
        }
        assertThrows(DateTimeParseException.class, () -> Rfc3339.parse("2026-02-30T00:00:00Z"));
    }
}
