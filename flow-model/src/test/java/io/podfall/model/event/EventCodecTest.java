package io.podfall.model.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventCodecTest {
    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00.123Z");

    private final Event request = Event.request(
            "req-1",
            "/apiserver",
            EventTypes.DELETION_REQUESTED,
            "namespaces/default/pods/web-1",
            T0,
            null,
            Map.of("name", "web-1"));

    private static Map<String, byte[]> headersOf(Event e) {
        Map<String, byte[]> h = new HashMap<>();
        EventCodec.headers(e).forEach(x -> h.put(x.getKey(), x.getValue()));
        return h;
    }

    @Test
    void binaryModeRoundTripKeepsEveryAttribute() {
        Event caused = Event.causedBy(
                request.asCause(),
                request.id(),
                0,
                "/kubelet/node-1",
                EventTypes.POD_TERMINATION_STARTED,
                request.subject(),
                T0.plusMillis(5),
                Map.of("grace", 30));
        Event back = EventCodec.decode(headersOf(caused)::get, EventCodec.value(caused));
        assertEquals(caused, back);
        assertEquals("req-1", back.correlationId());
        assertEquals("req-1", back.causationId());
    }

    @Test
    void headersAreReadableText() {
        Map<String, byte[]> h = headersOf(request);
        assertEquals("1.0", new String(h.get("ce_specversion"), StandardCharsets.UTF_8));
        assertEquals("apiserver.DeletionRequested", new String(h.get("ce_type"), StandardCharsets.UTF_8));
        assertEquals("application/json", new String(h.get("content-type"), StandardCharsets.UTF_8));
        assertNull(h.get("ce_causationid"), "a request from outside has no cause");
    }

    @Test
    void causedEventsInheritCorrelationAndTraceButNotSpan() {
        Event caused = Event.causedBy(
                request.asCause(),
                request.id(),
                0,
                "/apiserver",
                EventTypes.OBJECT_MARKED_TERMINATING,
                request.subject(),
                T0,
                JsonNodeFactory.instance.objectNode());
        assertEquals(request.correlationId(), caused.correlationId());
        assertEquals(
                request.traceparent().substring(0, 35), caused.traceparent().substring(0, 35));
        assertTrue(!request.traceparent().equals(caused.traceparent()));
    }

    @Test
    void incomingTraceparentKeepsItsTraceId() {
        String tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        Event e = Event.request(
                "r", "/apiserver", EventTypes.CREATION_REQUESTED, "namespaces/a/pods/b", T0, tp, Map.of());
        assertTrue(e.traceparent().startsWith("00-4bf92f3577b34da6a3ce929d0e0e4736-"));
    }

    @Test
    void derivedIdsAreDeterministic() {
        Event a = Event.causedBy(request.asCause(), request.id(), 3, "/runtime/node-1", "t", "s", T0, Map.of());
        Event b = Event.causedBy(
                request.asCause(), request.id(), 3, "/runtime/node-1", "t", "s", T0.plusSeconds(9), Map.of());
        Event c = Event.causedBy(request.asCause(), request.id(), 4, "/runtime/node-1", "t", "s", T0, Map.of());
        assertEquals(a.id(), b.id());
        assertTrue(!a.id().equals(c.id()));
    }

    @Test
    void recordsThatAreNotEventsAreRejectedWithAReason() {
        Map<String, byte[]> h = headersOf(request);
        assertRejected(with(h, "ce_specversion", null), "ce_specversion");
        assertRejected(with(h, "ce_type", null), "ce_type");
        assertRejected(
                with(h, "ce_dataschema", "urn:podfall:events:v2"), "unsupported dataschema urn:podfall:events:v2");
        assertRejected(with(h, "ce_specversion", "0.3"), "unsupported CloudEvents specversion 0.3");
        assertRejected(with(h, "content-type", "text/plain"), "unsupported content-type text/plain");
        var later = with(with(h, "content-type", "application/json; charset=utf-8"), "ce_specversion", "1.1");
        assertEquals(
                request.id(), EventCodec.decode(later::get, "{}".getBytes()).id(), "a parameter, a later 1.x");
    }

    /** The headers with one of another value, or without it (null). */
    private static Map<String, byte[]> with(Map<String, byte[]> headers, String name, String value) {
        var changed = new HashMap<>(headers);
        if (value == null) {
            changed.remove(name);
        } else {
            changed.put(name, value.getBytes(StandardCharsets.UTF_8));
        }
        return changed;
    }

    private static void assertRejected(Map<String, byte[]> headers, String reason) {
        var e = assertThrows(UnreadableEventException.class, () -> EventCodec.decode(headers::get, "{}".getBytes()));
        assertTrue(e.getMessage().contains(reason), e.getMessage());
    }

    @Test
    void dataOverTheLimitIsRefusedBeforeItIsParsed() {
        byte[] big = new byte[EventCodec.MAX_DATA_BYTES + 1];
        java.util.Arrays.fill(big, (byte) ' ');
        big[0] = '{';
        big[big.length - 1] = '}';
        var e = assertThrows(UnreadableEventException.class, () -> EventCodec.decode(headersOf(request)::get, big));
        assertEquals(UnreadableEventException.Kind.OVERSIZED, e.kind());
        assertTrue(e.getMessage().contains("1000001 bytes"), e.getMessage());
    }

    @Test
    void theDataIsKeptAsItCameAndDataThatIsNotJsonIsBadDataToWhoeverReadsIt() {
        Map<String, byte[]> h = headersOf(request);
        byte[] value = "not json".getBytes(StandardCharsets.UTF_8);
        Event unread = EventCodec.decode(h::get, value);
        assertEquals(request.id(), unread.id());
        assertEquals(T0, unread.time());
        assertSame(value, EventCodec.value(unread), "the record's value, neither copied nor parsed");
        for (var read : java.util.List.<org.junit.jupiter.api.function.Executable>of(
                unread::data, () -> unread.data(Map.class), unread::withJsonData)) {
            var e = assertThrows(UnreadableEventException.class, read);
            assertEquals(UnreadableEventException.Kind.BAD_DATA, e.kind());
            assertTrue(e.getMessage().startsWith("data of apiserver.DeletionRequested "), e.getMessage());
        }
        Event sound = EventCodec.decode(h::get, "{\"a\": [1, {\"b\": null}]}".getBytes(StandardCharsets.UTF_8));
        assertSame(sound, sound.withJsonData());
        assertEquals(1, sound.data().path("a").path(0).asInt());
        var noSpec = new HashMap<>(h);
        noSpec.remove("ce_specversion");
        assertThrows(UnreadableEventException.class, () -> EventCodec.decode(noSpec::get, "{}".getBytes()));
    }

    @Test
    void dataThatDoesNotReadAsItsPayloadIsBadData() {
        record Grace(long seconds) {}
        Event wrong = Event.request(
                "req-2",
                "/apiserver",
                EventTypes.DELETION_REQUESTED,
                request.subject(),
                T0,
                null,
                Map.of("seconds", "soon"));
        var e = assertThrows(UnreadableEventException.class, () -> wrong.data(Grace.class));
        assertEquals(UnreadableEventException.Kind.BAD_DATA, e.kind());
        assertTrue(
                e.getMessage().startsWith("data of apiserver.DeletionRequested does not match its schema"),
                e.getMessage());
    }

    @Test
    void partitionKeyIsTheNamespace() {
        assertEquals("default", request.partitionKey());
        assertEquals("", Subjects.namespaceOf("nodes/node-1"));
        assertEquals("nodes/node-1", Subjects.of("", "nodes", "node-1"));
    }
}
