package io.podfall.model.event;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * One fact on the log: a CloudEvent (spec 1.0) with the three extensions every podfall event carries.
 *
 * <ul>
 *   <li>{@code correlationId}: the id of the request that started the flow. A {@code kubectl delete deployment} shares
 *       one id down to every container kill it causes.
 *   <li>{@code causationId}: the id of the event this one reacts to; null only for requests from outside.
 *   <li>{@code traceparent}: W3C trace context, trace id inherited along the causal chain, span id derived from this
 *       event's id, so a trace can be rebuilt from the log alone.
 * </ul>
 *
 * The subject names the object ({@code namespaces/default/pods/web-1}, {@code nodes/node-1}); its namespace is the
 * Kafka record key, so every causal chain of one deletion lies in one partition, in order.
 *
 * <p>The data is held as its JSON text, the bytes of a record's value or of a core's payload written once, and read
 * when a reader asks for it ({@link #data()}, {@link #data(Class)}). A log held in memory (a replay holds two, of
 * hundreds of thousands of events) then takes a third of what it took as Jackson trees, each event's data one array
 * instead of some forty nodes for the collector to trace, and a core reads the few types it needs into their payload
 * type straight from the bytes. Two events are equal when their attributes and their data's JSON text are.
 */
public final class Event {
    private final String id;
    private final String source;
    private final String type;
    private final String subject;
    private final Instant time;
    private final String correlationId;
    private final String causationId;
    private final String traceparent;
    /** The data's JSON text (UTF-8). Never changed, never handed out but to be written as it is. */
    private final byte[] data;

    public Event(
            String id,
            String source,
            String type,
            String subject,
            Instant time,
            String correlationId,
            String causationId,
            String traceparent,
            JsonNode data) {
        this(
                id,
                source,
                type,
                subject,
                time,
                correlationId,
                causationId,
                traceparent,
                Json.bytes(Objects.requireNonNull(data, "data")));
    }

    private Event(
            String id,
            String source,
            String type,
            String subject,
            Instant time,
            String correlationId,
            String causationId,
            String traceparent,
            byte[] data) {
        this.id = Objects.requireNonNull(id, "id");
        this.source = Objects.requireNonNull(source, "source");
        this.type = Objects.requireNonNull(type, "type");
        this.subject = subject;
        this.time = Objects.requireNonNull(time, "time");
        this.correlationId = Objects.requireNonNull(correlationId, "correlationId");
        this.causationId = causationId;
        this.traceparent = Objects.requireNonNull(traceparent, "traceparent");
        this.data = Objects.requireNonNull(data, "data");
    }

    /**
     * An event whose data is the JSON text {@code data}, as read (a record's value, a file's line): kept as it is,
     * neither copied nor parsed. Data that is not JSON is found when a reader reads it.
     */
    public static Event ofJson(
            String id,
            String source,
            String type,
            String subject,
            Instant time,
            String correlationId,
            String causationId,
            String traceparent,
            byte[] data) {
        return new Event(id, source, type, subject, time, correlationId, causationId, traceparent, data);
    }

    /** A request entering the log from outside (an HTTP call): it starts its own correlation and trace. */
    public static Event request(
            String id,
            String source,
            String type,
            String subject,
            Instant time,
            String incomingTraceparent,
            Object data) {
        String traceId = TraceContext.traceIdOf(incomingTraceparent).orElseGet(() -> TraceContext.traceIdFrom(id));
        return new Event(
                id, source, type, subject, time, id, null, TraceContext.traceparent(traceId, id), Json.bytes(data));
    }

    /**
     * An event caused by {@code cause}: it inherits the correlation and the trace, and its id is derived from
     * {@code idSeed} (the cause's id, or the key of the timer that fired), the emitting source and its position among
     * the effects. So a core that handles the same input twice (a restart that re-reads the log) emits the same ids,
     * and duplicates can be recognised.
     */
    public static Event causedBy(
            Cause cause,
            String idSeed,
            int seq,
            String source,
            String type,
            String subject,
            Instant time,
            Object data) {
        return causedByJson(cause, idSeed, seq, source, type, subject, time, Json.bytes(data));
    }

    /** {@link #causedBy} of data already written as JSON: {@code data}, taken as it is. */
    public static Event causedByJson(
            Cause cause,
            String idSeed,
            int seq,
            String source,
            String type,
            String subject,
            Instant time,
            byte[] data) {
        String id = Ids.derived(idSeed, source, seq);
        return new Event(
                id,
                source,
                type,
                subject,
                time,
                cause.correlationId(),
                cause.id(),
                TraceContext.traceparent(
                        TraceContext.traceIdOf(cause.traceparent()).orElseThrow(), id),
                data);
    }

    /** This event at another time, all else (its data's bytes too) the same. */
    public Event at(Instant otherTime) {
        return new Event(id, source, type, subject, otherTime, correlationId, causationId, traceparent, data);
    }

    /** This event in another flow, all else (its data's bytes too) the same. */
    public Event inFlow(String otherCorrelationId) {
        return new Event(id, source, type, subject, time, otherCorrelationId, causationId, traceparent, data);
    }

    public String id() {
        return id;
    }

    public String source() {
        return source;
    }

    public String type() {
        return type;
    }

    public String subject() {
        return subject;
    }

    public Instant time() {
        return time;
    }

    public String correlationId() {
        return correlationId;
    }

    public String causationId() {
        return causationId;
    }

    public String traceparent() {
        return traceparent;
    }

    /**
     * The data as a tree, read anew at each call: a reader that looks at it more than once keeps the tree.
     *
     * @throws UnreadableEventException ({@link UnreadableEventException.Kind#BAD_DATA}) when the data is not JSON
     */
    public JsonNode data() {
        try {
            return Json.MAPPER.readTree(data);
        } catch (IOException e) {
            throw unreadable("is not JSON", e);
        }
    }

    /**
     * The data, read as the payload type of this event type. Unknown fields are ignored.
     *
     * @throws UnreadableEventException ({@link UnreadableEventException.Kind#BAD_DATA}) when the data does not read as
     *     that type: the event goes to the dead-letter topic, not the core's state
     */
    public <T> T data(Class<T> payloadType) {
        try {
            return Json.MAPPER.readValue(data, payloadType);
        } catch (IOException e) {
            throw unreadable("does not match its schema", e);
        }
    }

    /**
     * This event, once its data has been read through as JSON and dropped: for a reader that takes a log in whole (an
     * analysis reads any event's data at any point) and refuses an unreadable event as it reads it.
     *
     * @throws UnreadableEventException ({@link UnreadableEventException.Kind#BAD_DATA}) when the data is not JSON
     */
    public Event withJsonData() {
        try (JsonParser p = Json.MAPPER.createParser(data)) {
            while (p.nextToken() != null) {
                // every token read, none kept
            }
        } catch (IOException e) {
            throw unreadable("is not JSON", e);
        }
        return this;
    }

    /**
     * The data's JSON text, to be written as it is (a record's value, a file's line): not a copy, not to be changed.
     */
    public byte[] dataJson() {
        return data;
    }

    private UnreadableEventException unreadable(String why, IOException e) {
        String detail = e instanceof com.fasterxml.jackson.core.JsonProcessingException j
                ? j.getOriginalMessage()
                : e.getMessage();
        return new UnreadableEventException(
                UnreadableEventException.Kind.BAD_DATA, "data of " + type + " " + why + ": " + detail, e);
    }

    /** What an effect needs to know of the event (or timer) that caused it. */
    public Cause asCause() {
        return new Cause(id, correlationId, traceparent);
    }

    /** The Kafka record key: the namespace of the subject, or "" for cluster-scoped objects. */
    public String partitionKey() {
        return Subjects.namespaceOf(subject);
    }

    public boolean is(String eventType) {
        return type.equals(eventType);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Event e
                && id.equals(e.id)
                && source.equals(e.source)
                && type.equals(e.type)
                && Objects.equals(subject, e.subject)
                && time.equals(e.time)
                && correlationId.equals(e.correlationId)
                && Objects.equals(causationId, e.causationId)
                && traceparent.equals(e.traceparent)
                && Arrays.equals(data, e.data);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                id, source, type, subject, time, correlationId, causationId, traceparent, Arrays.hashCode(data));
    }

    @Override
    public String toString() {
        return "Event[id=" + id + ", source=" + source + ", type=" + type + ", subject=" + subject + ", time=" + time
                + ", correlationId=" + correlationId + ", causationId=" + causationId + ", traceparent=" + traceparent
                + ", data=" + new String(data, StandardCharsets.UTF_8) + "]";
    }

    /** The part of an event that its effects inherit; also what a timer remembers of the event that set it. */
    public record Cause(String id, String correlationId, String traceparent) {}
}
