package io.podfall.cli.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.cli.analysis.PodLog;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCodec;
import io.podfall.model.event.UnreadableEventException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StructuredCloudEventsTest {
    private final List<Event> log = new PodLog("web-1").created(0).deleted(1_000, 5, 1_000, false).events;

    @Test
    void everyAttributeAndTheDataInOneObject() {
        Event e = log.get(4);
        var o = Json.read(StructuredCloudEvents.line(e).getBytes(StandardCharsets.UTF_8));
        assertEquals(
                List.of(
                        "specversion",
                        "id",
                        "source",
                        "type",
                        "subject",
                        "time",
                        "datacontenttype",
                        "dataschema",
                        "correlationid",
                        "causationid",
                        "traceparent",
                        "data"),
                iterable(o.fieldNames()));
        assertEquals("1.0", o.path("specversion").asText());
        assertEquals("urn:podfall:events:v1", o.path("dataschema").asText());
        assertEquals("application/json", o.path("datacontenttype").asText());
        assertEquals("2026-11-29T10:00:01.017Z", o.path("time").asText());
        assertEquals(e.data(), o.path("data"));
    }

    @Test
    void roundTripsEveryEvent() {
        for (Event e : log) {
            assertEquals(e, StructuredCloudEvents.decode(StructuredCloudEvents.line(e)));
        }
        assertNull(StructuredCloudEvents.decode(StructuredCloudEvents.line(log.get(0)))
                .causationId());
    }

    @Test
    void refusesWhatIsNotAnEventOfThisContract() {
        assertThrows(UnreadableEventException.class, () -> StructuredCloudEvents.decode("[1]"));
        assertThrows(UnreadableEventException.class, () -> StructuredCloudEvents.decode("{\"id\":\"x\"}"));
        String line = StructuredCloudEvents.line(log.get(0));
        var e = assertThrows(
                UnreadableEventException.class,
                () -> StructuredCloudEvents.decode(line.replace("urn:podfall:events:v1", "urn:podfall:events:v2")));
        assertTrue(e.getMessage().contains("dataschema"));
        assertThrows(
                UnreadableEventException.class,
                () -> StructuredCloudEvents.decode(line.replace("\"specversion\":\"1.0\"", "\"specversion\":\"0.3\"")));
        assertThrows(
                UnreadableEventException.class,
                () -> StructuredCloudEvents.decode(line.replace("\"time\":\"", "\"time\":\"x")));
    }

    @Test
    void aMinimalEventGetsTheDefaultsOfTheBinaryReader() {
        Event e = StructuredCloudEvents.decode("{\"specversion\":\"1.0\",\"id\":\"r1\",\"source\":\"/apiserver\","
                + "\"type\":\"apiserver.DeletionRequested\",\"time\":\"2026-11-29T10:00:00Z\",\"data\":{}}");
        assertEquals("r1", e.correlationId());
        assertTrue(e.traceparent().startsWith("00-"));
    }

    /** export writes a file, import appends its events in binary mode: both legs give back the same events. */
    @Test
    void exportImportRoundTripThroughAFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("log.jsonl");
        try (Writer w = Files.newBufferedWriter(file)) {
            EventFile.write(w, log);
        }
        assertEquals(log.size(), Files.readAllLines(file).size());
        EventFile.Contents read = EventFile.read(file);
        assertEquals(log, read.events());
        assertEquals(0, read.unreadable());
        for (Event e : read.events()) {
            Map<String, byte[]> headers = new java.util.HashMap<>();
            EventCodec.headers(e).forEach(h -> headers.put(h.getKey(), h.getValue()));
            assertEquals(e, EventCodec.decode(headers::get, EventCodec.value(e)));
            assertEquals("default", e.partitionKey());
        }
    }

    @Test
    void skipsAndCountsUnreadableLines() {
        String text = StructuredCloudEvents.line(log.get(0)) + "\n\nnot json\n" + StructuredCloudEvents.line(log.get(1))
                + "\n";
        EventFile.Contents c = EventFile.read(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
        assertEquals(log.subList(0, 2), c.events());
        assertEquals(1, c.unreadable());
        assertTrue(c.firstProblem().startsWith("line 3: "), c.firstProblem());
    }

    private static List<String> iterable(java.util.Iterator<String> it) {
        List<String> l = new java.util.ArrayList<>();
        it.forEachRemaining(l::add);
        return l;
    }
}
