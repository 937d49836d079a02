package io.podfall.model.event;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Pattern;

/** W3C Trace Context ({@code traceparent}) for events: version 00, sampled. */
public final class TraceContext {
    private static final Pattern TRACEPARENT = Pattern.compile("00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}");
    private static final String INVALID_TRACE_ID = "0".repeat(32);

    private TraceContext() {
    }

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

    public static Optional<String> traceIdOf(String traceparent) {
        if (traceparent == null) {
            return Optional.empty();
        }
        var m = TRACEPARENT.matcher(traceparent.trim());
        return m.matches() && !m.group(1).equals(INVALID_TRACE_ID) ? Optional.of(m.group(1)) : Optional.empty();
    }

    private static String digestHex(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
