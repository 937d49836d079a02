package io.podfall.model.event;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.Json;

import java.time.Instant;
import java.util.Objects;

/**
 * One fact on the log: a CloudEvent (spec 1.0) with the three extensions every podfall event carries.
 *
 * <ul>
 *   <li>{@code correlationId}: the id of the request that started the flow. A {@code kubectl delete deployment}
 *       shares one id down to every container kill it causes.</li>
 *   <li>{@code causationId}: the id of the event this one reacts to; null only for requests from outside.</li>
 *   <li>{@code traceparent}: W3C trace context, trace id inherited along the causal chain, span id derived from
 *       this event's id, so a trace can be rebuilt from the log alone.</li>
 * </ul>
 *
 * The subject names the object ({@code namespaces/default/pods/web-1}, {@code nodes/node-1}); its namespace is
 * the Kafka record key, so every causal chain of one deletion lies in one partition, in order.
 */
public record Event(
        String id,
        String source,
        String type,
        String subject,
        Instant time,
        String correlationId,
        String causationId,
        String traceparent,
        JsonNode data) {

    public Event {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(correlationId, "correlationId");
        Objects.requireNonNull(traceparent, "traceparent");
        Objects.requireNonNull(data, "data");
    }

    /** A request entering the log from outside (an HTTP call): it starts its own correlation and trace. */
    public static Event request(String id, String source, String type, String subject, Instant time,
                                String incomingTraceparent, Object data) {
        String traceId = TraceContext.traceIdOf(incomingTraceparent).orElseGet(() -> TraceContext.traceIdFrom(id));
        return new Event(id, source, type, subject, time, id, null,
                TraceContext.traceparent(traceId, id), Json.tree(data));
    }

    /**
     * An event caused by {@code cause}: it inherits the correlation and the trace, and its id is derived from
     * {@code idSeed} (the cause's id, or the key of the timer that fired), the emitting source and its position
     * among the effects. So a core that handles the same
     * input twice (a restart that re-reads the log) emits the same ids, and duplicates can be recognised.
     */
    public static Event causedBy(Cause cause, String idSeed, int seq, String source, String type, String subject,
                                 Instant time, Object data) {
        String id = Ids.derived(idSeed, source, seq);
        return new Event(id, source, type, subject, time, cause.correlationId(), cause.id(),
                TraceContext.traceparent(TraceContext.traceIdOf(cause.traceparent()).orElseThrow(), id),
                Json.tree(data));
    }

    /** What an effect needs to know of the event (or timer) that caused it. */
    public Cause asCause() {
        return new Cause(id, correlationId, traceparent);
    }

    /**
     * The data, read as the payload type of this event type. Unknown fields are ignored.
     *
     * @throws UnreadableEventException ({@link UnreadableEventException.Kind#BAD_DATA}) when the data does not read
     *                                  as that type: the event goes to the dead-letter topic, not the core's state
     */
    public <T> T data(Class<T> payloadType) {
        try {
            return Json.convert(data, payloadType);
        } catch (IllegalArgumentException e) {
            throw new UnreadableEventException(UnreadableEventException.Kind.BAD_DATA,
                    "data of " + type + " does not match its schema: " + e.getMessage(), e);
        }
    }

    /** The Kafka record key: the namespace of the subject, or "" for cluster-scoped objects. */
    public String partitionKey() {
        return Subjects.namespaceOf(subject);
    }

    public boolean is(String eventType) {
        return type.equals(eventType);
    }

    /** The part of an event that its effects inherit; also what a timer remembers of the event that set it. */
    public record Cause(String id, String correlationId, String traceparent) {
    }
}
