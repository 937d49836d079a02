package io.podfall.model.event;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/** W3C Trace Context ({@code traceparent}) for events: version 00, sampled. */
public final class TraceContext {
    private static final String VERSION_00 = "00-";
    /** {@code 00-}, a trace id of 32 hex digits, {@code -}, a span id of 16, {@code -}, flags of 2. */
    private static final int TRACEPARENT_LENGTH = 55;

    private static final String INVALID_TRACE_ID = "0".repeat(32);

    private TraceContext() {}

    public static String traceparent(String traceId, String eventId) {
        return "00-" + traceId + "-" + spanIdOf(eventId) + "-01";
    }

    /** The span id of an event: the first 8 bytes of a digest of its id, so it can be recomputed from the log. */
    public static String spanIdOf(String eventId) {
        return digestHex(eventId).substring(0, 16);
    }

    /** A trace id for a flow that did not arrive with one. */
    public static String traceIdFrom(String requestId) {
        return digestHex(requestId).substring(0, 32);
    }

    /**
     * The trace id of a {@code traceparent} of version 00 ({@code 00-<32 hex>-<16 hex>-<2 hex>}, lower case), unless it
     * is all zeros (invalid). Checked by position rather than by a regular expression: every event read and every event
     * decided takes its cause's trace id.
     */
    public static Optional<String> traceIdOf(String traceparent) {
        if (traceparent == null) {
            return Optional.empty();
        }
        String t = traceparent.trim();
        if (t.length() != TRACEPARENT_LENGTH
                || !t.startsWith(VERSION_00)
                || t.charAt(35) != '-'
                || t.charAt(52) != '-'
                || !isLowerHex(t, 3, 35)
                || !isLowerHex(t, 36, 52)
                || !isLowerHex(t, 53, 55)) {
            return Optional.empty();
        }
        String traceId = t.substring(3, 35);
        return traceId.equals(INVALID_TRACE_ID) ? Optional.empty() : Optional.of(traceId);
    }

    private static boolean isLowerHex(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    private static String digestHex(String s) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
