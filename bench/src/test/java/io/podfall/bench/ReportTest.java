package io.podfall.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ReportTest {
    private static final Machine MACHINE =
            new Machine("2026-11-29T10:00:00Z", 2, "cpu", 1024, "jvm", "os", "0.1 0.2 0.3");

    @Test
    void aFailedCheckMakesTheRunWrongWhateverItsTargets() {
        Report r = new Report("P2", "summary", MACHINE);
        r.target("≥ 2,000 pods/s", "5,000", true);
        r.check("every pod gone", true, "0 left");
        assertTrue(r.correct());

        r.check("no sandbox or pod IP left on the runtime", false, "1 IP");

        assertFalse(r.correct());
        assertFalse(r.json().path("correct").asBoolean());
        assertTrue(r.text().contains("  FAILED no sandbox or pod IP left on the runtime: 1 IP"));
    }

    @Test
    void aMissedTargetIsReportedNotFailed() {
        Report r = new Report("P1", "summary", MACHINE);
        r.target("p99 ≤ 50 ms", "75.0 ms", false);

        assertTrue(r.correct());
        assertTrue(r.text().contains("| p99 ≤ 50 ms | 75.0 ms  | **no** |"), r.text());
    }

    @Test
    void tablesAreMarkdownWithColumnsAsWideAsTheirWidestCell() {
        Report.Table t = new Report.Table("t", "n", "p50").row(1000, "12.5 ms");

        assertEquals("""
                | n    | p50     |
                | ---- | ------- |
                | 1000 | 12.5 ms |
                """, Report.markdown(t));
    }
}
