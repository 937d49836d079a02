package io.podfall.cli.log;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCodec;
import io.podfall.model.event.TraceContext;
import io.podfall.model.event.UnreadableEventException;

import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * CloudEvents 1.0 JSON event format, structured content mode: every attribute and the data in one JSON object.
 * The counterpart of the binary mode of {@link EventCodec}, with the same attributes and the same rules for a
 * reader (specversion 1.x, this contract's dataschema or none, JSON data), so a file of these lines holds the
 * log exactly as the topic does.
 */
public final class StructuredCloudEvents {
    private StructuredCloudEvents() {
    }

    public static ObjectNode encode(Event e) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("specversion", EventCodec.SPEC_VERSION);
        o.put("id", e.id());
        o.put("source", e.source());
        o.put("type", e.type());
        if (e.subject() != null) {
            o.put("subject", e.subject());
        }
        o.put("time", e.time().toString());
        o.put("datacontenttype", EventCodec.CONTENT_TYPE);
        o.put("dataschema", EventCodec.DATA_SCHEMA);
        o.put("correlationid", e.correlationId());
        if (e.causationId() != null) {
            o.put("causationid", e.causationId());
        }
        o.put("traceparent", e.traceparent());
        o.set("data", e.data());
        return o;
    }

    /** One line of a JSON Lines file. */
    public static String line(Event e) {
        return Json.string(encode(e));
    }

    /** @throws UnreadableEventException with the reason */
    public static Event decode(String json) {
        JsonNode o;
        try {
            o = Json.read(json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
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
            throw new UnreadableEventException("unsupported dataschema " + schema + " (this reader knows " + EventCodec.DATA_SCHEMA + ")");
        }
        String contentType = text(o, "datacontenttype");
        if (contentType != null && !contentType.startsWith(EventCodec.CONTENT_TYPE)) {
            throw new UnreadableEventException("unsupported datacontenttype " + contentType);
        }
        Instant time;
        try {
            time = Instant.parse(required(o, "time"));
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
        return new Event(id, required(o, "source"), required(o, "type"), text(o, "subject"), time,
                correlationId == null ? id : correlationId, text(o, "causationid"), traceparent, data);
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
