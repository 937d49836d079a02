package io.podfall.model.event;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * CloudEvents 1.0 Kafka protocol binding, binary content mode: attributes as {@code ce_*} headers, the data as the
 * record value ({@code content-type: application/json}), the namespace as the record key. So {@code kcat -f '%h %s'}
 * shows every attribute and the JSON data as they are.
 *
 * <p>Hand-written rather than taken from the CloudEvents SDK: the mapping is a dozen headers, and the SDK's
 * {@code cloudevents-kafka} needs a newer {@code cloudevents-api} than the one SmallRye Reactive Messaging pins.
 */
public final class EventCodec {
    public static final String SPEC_VERSION = "1.0";
    /** The contract version. A reader accepts its own major version and events that name none. */
    public static final String DATA_SCHEMA = "urn:podfall:events:v1";

    public static final String CONTENT_TYPE = "application/json";
    /**
     * The largest data an event may carry. Kafka's default {@code max.message.bytes} is 1 MiB and 12 bytes for a whole
     * record batch, so this leaves room for the headers; the API server refuses an object that would not fit (413), so
     * no service ever writes a larger event, and a reader refuses one rather than holding it.
     */
    public static final int MAX_DATA_BYTES = 1_000_000;

    private static final byte[] SPEC_VERSION_1 = "1.".getBytes(StandardCharsets.UTF_8);
    private static final byte[] DATA_SCHEMA_UTF8 = DATA_SCHEMA.getBytes(StandardCharsets.UTF_8);
    private static final byte[] CONTENT_TYPE_UTF8 = CONTENT_TYPE.getBytes(StandardCharsets.UTF_8);

    public static final String H_SPECVERSION = "ce_specversion";
    public static final String H_ID = "ce_id";
    public static final String H_SOURCE = "ce_source";
    public static final String H_TYPE = "ce_type";
    public static final String H_SUBJECT = "ce_subject";
    public static final String H_TIME = "ce_time";
    public static final String H_DATASCHEMA = "ce_dataschema";
    public static final String H_CORRELATIONID = "ce_correlationid";
    public static final String H_CAUSATIONID = "ce_causationid";
    public static final String H_TRACEPARENT = "ce_traceparent";
    public static final String H_CONTENT_TYPE = "content-type";

    private EventCodec() {}

    /** The headers of the record, in a stable order. */
    public static List<Map.Entry<String, byte[]>> headers(Event e) {
        List<Map.Entry<String, byte[]>> h = new ArrayList<>(11);
        put(h, H_SPECVERSION, SPEC_VERSION);
        put(h, H_ID, e.id());
        put(h, H_SOURCE, e.source());
        put(h, H_TYPE, e.type());
        put(h, H_SUBJECT, e.subject());
        put(h, H_TIME, e.time().toString());
        put(h, H_DATASCHEMA, DATA_SCHEMA);
        put(h, H_CORRELATIONID, e.correlationId());
        put(h, H_CAUSATIONID, e.causationId());
        put(h, H_TRACEPARENT, e.traceparent());
        put(h, H_CONTENT_TYPE, CONTENT_TYPE);
        return h;
    }

    /** The data's JSON text, as the event holds it: not a copy, not to be changed. */
    public static byte[] value(Event e) {
        return e.dataJson();
    }

    /**
     * Reads a record. {@code header} returns the last value of a header or null. The value is kept as the event's data,
     * unparsed: most readers read an event's data only for a few types, straight into their payload type, and data that
     * is not JSON is found then ({@link Event#data(Class)}), with the same reason and the same way to the dead-letter
     * topic.
     *
     * @throws UnreadableEventException with the reason, for the dead-letter topic
     */
    public static Event decode(Function<String, byte[]> header, byte[] value) {
        return decode(header, value, envelope(header, value));
    }

    /**
     * What a reader checks of every record, whatever it does with it: a CloudEvent of this contract in binary mode,
     * with data of a size a reader holds, a type and a source. A service reads the rest ({@link #decode(Function,
     * byte[], Envelope)}) only of a record it has a use for: most of the log is other components' conversations.
     *
     * @throws UnreadableEventException with the reason, for the dead-letter topic
     */
    public static Envelope envelope(Function<String, byte[]> header, byte[] value) {
        // compared as bytes: made into strings only to say what is wrong with them
        byte[] specversion = header.apply(H_SPECVERSION);
        if (specversion == null) {
            throw new UnreadableEventException("not a CloudEvent in binary mode: no " + H_SPECVERSION + " header");
        }
        if (!startsWith(specversion, SPEC_VERSION_1)) {
            throw new UnreadableEventException("unsupported CloudEvents specversion " + utf8(specversion));
        }
        byte[] schema = header.apply(H_DATASCHEMA);
        if (schema != null && !Arrays.equals(schema, DATA_SCHEMA_UTF8)) {
            throw new UnreadableEventException(
                    "unsupported dataschema " + utf8(schema) + " (this reader knows " + DATA_SCHEMA + ")");
        }
        byte[] contentType = header.apply(H_CONTENT_TYPE);
        if (contentType != null && !startsWith(contentType, CONTENT_TYPE_UTF8)) {
            throw new UnreadableEventException("unsupported content-type " + utf8(contentType));
        }
        if (value == null || value.length == 0) {
            throw new UnreadableEventException("no data");
        }
        if (value.length > MAX_DATA_BYTES) {
            throw new UnreadableEventException(
                    UnreadableEventException.Kind.OVERSIZED,
                    "data of " + value.length + " bytes is over the limit of " + MAX_DATA_BYTES);
        }
        return new Envelope(required(header, H_TYPE), required(header, H_SOURCE));
    }

    /**
     * The event of a record whose {@link #envelope} has been checked: its other attributes read and checked.
     *
     * @throws UnreadableEventException with the reason, for the dead-letter topic
     */
    public static Event decode(Function<String, byte[]> header, byte[] value, Envelope envelope) {
        Instant time;
        try {
            time = Rfc3339.parse(required(header, H_TIME));
        } catch (DateTimeParseException ex) {
            throw new UnreadableEventException("ce_time is not an RFC 3339 timestamp: " + text(header, H_TIME));
        }
        String id = required(header, H_ID);
        String traceparent = text(header, H_TRACEPARENT);
        if (traceparent == null || TraceContext.traceIdOf(traceparent).isEmpty()) {
            traceparent = TraceContext.traceparent(TraceContext.traceIdFrom(id), id);
        }
        String correlationId = text(header, H_CORRELATIONID);
        return Event.ofJson(
                id,
                envelope.source(),
                envelope.type(),
                text(header, H_SUBJECT),
                time,
                correlationId == null ? id : correlationId,
                text(header, H_CAUSATIONID),
                traceparent,
                value);
    }

    /** The attributes every reader checks of every record: what it is, and who appended it. */
    public record Envelope(String type, String source) {}

    private static void put(List<Map.Entry<String, byte[]>> h, String name, String value) {
        if (value != null) {
            h.add(Map.entry(name, value.getBytes(StandardCharsets.UTF_8)));
        }
    }

    private static String text(Function<String, byte[]> header, String name) {
        byte[] v = header.apply(name);
        return v == null ? null : utf8(v);
    }

    private static String utf8(byte[] v) {
        return new String(v, StandardCharsets.UTF_8);
    }

    private static boolean startsWith(byte[] v, byte[] prefix) {
        return v.length >= prefix.length && Arrays.equals(v, 0, prefix.length, prefix, 0, prefix.length);
    }

    private static String required(Function<String, byte[]> header, String name) {
        String v = text(header, name);
        if (v == null || v.isBlank()) {
            throw new UnreadableEventException("missing required attribute " + name);
        }
        return v;
    }
}
