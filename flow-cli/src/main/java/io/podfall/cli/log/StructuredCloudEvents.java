package io.podfall.cli.log;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCodec;
import io.podfall.model.event.Rfc3339;
import io.podfall.model.event.TraceContext;
import io.podfall.model.event.UnreadableEventException;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * CloudEvents 1.0 JSON event format, structured content mode: every attribute and the data in one JSON object. The
 * counterpart of the binary mode of {@link EventCodec}, with the same attributes and the same rules for a reader
 * (specversion 1.x, this contract's dataschema or none, JSON data), so a file of these lines holds the log exactly as
 * the topic does.
 */
public final class StructuredCloudEvents {
    private StructuredCloudEvents() {}

    /** One line of a JSON Lines file: the attributes, then the data's JSON text as the event holds it. */
    public static String line(Event e) {
        StringWriter out = new StringWriter(256 + e.dataJson().length);
        try (JsonGenerator g = Json.MAPPER.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("specversion", EventCodec.SPEC_VERSION);
            g.writeStringField("id", e.id());
            g.writeStringField("source", e.source());
            g.writeStringField("type", e.type());
            if (e.subject() != null) {
                g.writeStringField("subject", e.subject());
            }
            g.writeStringField("time", e.time().toString());
            g.writeStringField("datacontenttype", EventCodec.CONTENT_TYPE);
            g.writeStringField("dataschema", EventCodec.DATA_SCHEMA);
            g.writeStringField("correlationid", e.correlationId());
            if (e.causationId() != null) {
                g.writeStringField("causationid", e.causationId());
            }
            g.writeStringField("traceparent", e.traceparent());
            g.writeFieldName("data");
            if (isOneLine(e.dataJson())) {
                g.writeRawValue(new String(e.dataJson(), StandardCharsets.UTF_8));
            } else {
                g.writeTree(e.data()); // another writer's data, laid out on several lines: one line, as JSON Lines need
            }
            g.writeEndObject();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return out.toString();
    }

    private static boolean isOneLine(byte[] json) {
        for (byte b : json) {
            if (b == '\n' || b == '\r') {
                return false;
            }
        }
        return true;
    }

    /** @throws UnreadableEventException with the reason */
    public static Event decode(String json) {
        JsonNode o;
        try {
            o = Json.read(json.getBytes(StandardCharsets.UTF_8));
        } catch (RuntimeException ex) {
            throw new UnreadableEventException("not JSON: " + ex.getMessage());
        }
        return decode(o);
    }

    /** @throws UnreadableEventException with the reason */
    public static Event decode(JsonNode o) {
        if (!o.isObject()) {
            throw new UnreadableEventException("not a CloudEvent in structured mode: not a JSON object");
        }
        String specversion = text(o, "specversion");
        if (specversion == null) {
            throw new UnreadableEventException("not a CloudEvent in structured mode: no specversion");
        }
        if (!specversion.startsWith("1.")) {
            throw new UnreadableEventException("unsupported CloudEvents specversion " + specversion);
        }
        String schema = text(o, "dataschema");
        if (schema != null && !schema.equals(EventCodec.DATA_SCHEMA)) {
            throw new UnreadableEventException(
                    "unsupported dataschema " + schema + " (this reader knows " + EventCodec.DATA_SCHEMA + ")");
        }
        String contentType = text(o, "datacontenttype");
        if (contentType != null && !contentType.startsWith(EventCodec.CONTENT_TYPE)) {
            throw new UnreadableEventException("unsupported datacontenttype " + contentType);
        }
        Instant time;
        try {
            time = Rfc3339.parse(required(o, "time"));
        } catch (DateTimeParseException ex) {
            throw new UnreadableEventException("time is not an RFC 3339 timestamp: " + text(o, "time"));
        }
        JsonNode data = o.get("data");
        if (data == null || data.isNull()) {
            throw new UnreadableEventException("no data");
        }
        String id = required(o, "id");
        String traceparent = text(o, "traceparent");
        if (traceparent == null || TraceContext.traceIdOf(traceparent).isEmpty()) {
            traceparent = TraceContext.traceparent(TraceContext.traceIdFrom(id), id);
        }
        String correlationId = text(o, "correlationid");
        return Event.ofJson(
                id,
                required(o, "source"),
                required(o, "type"),
                text(o, "subject"),
                time,
                correlationId == null ? id : correlationId,
                text(o, "causationid"),
                traceparent,
                Json.bytes(data));
    }

    private static String text(JsonNode o, String name) {
        JsonNode v = o.get(name);
        return v == null || v.isNull() ? null : v.asText();
    }

    private static String required(JsonNode o, String name) {
        String v = text(o, name);
        if (v == null || v.isBlank()) {
            throw new UnreadableEventException("missing required attribute " + name);
        }
        return v;
    }
}
