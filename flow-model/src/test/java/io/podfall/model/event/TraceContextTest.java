package io.podfall.model.event;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TraceContextTest {
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

    @Test
    void theTraceIdOfAVersion00Traceparent() {
        assertEquals(Optional.of(TRACE_ID), TraceContext.traceIdOf("00-" + TRACE_ID + "-00f067aa0ba902b7-01"));
        assertEquals(Optional.of(TRACE_ID), TraceContext.traceIdOf(" 00-" + TRACE_ID + "-00f067aa0ba902b7-00\t"));
        String ours = TraceContext.traceparent(TRACE_ID, "event-1");
        assertEquals(Optional.of(TRACE_ID), TraceContext.traceIdOf(ours));
        assertEquals(TraceContext.spanIdOf("event-1"), ours.substring(36, 52));
    }

    @Test
    void noTraceIdFromWhatIsNotOne() {
        for (String bad : List.of(
                "",
                "00-" + TRACE_ID + "-00f067aa0ba902b7-1",
                "01-" + TRACE_ID + "-00f067aa0ba902b7-01",
                "00-" + TRACE_ID.toUpperCase() + "-00f067aa0ba902b7-01",
                "00-" + TRACE_ID + "_00f067aa0ba902b7-01",
                "00-" + TRACE_ID + "-00f067aa0ba902b7_01",
                "00-" + TRACE_ID + "-00f067aa0ba9020g-01",
                "00-" + TRACE_ID + "-00f067aa0ba902b7-0x",
                "00-" + "0".repeat(32) + "-00f067aa0ba902b7-01",
                "00-" + TRACE_ID + "-00f067aa0ba902b7-01-")) {
            assertEquals(Optional.empty(), TraceContext.traceIdOf(bad), bad);
        }
        assertEquals(Optional.empty(), TraceContext.traceIdOf(null));
    }
}
