package io.podfall.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.cli.analysis.PodLog;
import io.podfall.cli.log.EventFile;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.replay.Snapshot;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The commands over an exported file: options, exit codes, filters. No broker. */
class CommandsTest {
    @TempDir
    Path dir;

    private Path file(List<Event> events) throws IOException {
        Path f = dir.resolve("in.jsonl");
        try (Writer w = Files.newBufferedWriter(f)) {
            EventFile.write(w, events);
        }
        return f;
    }

    private static int run(String... args) {
        return Podfall.commandLine().execute(args);
    }

    @Test
    void checkExitsWithOneOnAnErrorAndZeroOnACleanLog() throws IOException {
        PodLog clean = new PodLog("a").created(0).deleted(1_000, 5, 1_000, false);
        assertEquals(0, run("check", "--file", file(clean.events).toString()));
        PodLog twice = new PodLog("b").created(0);
        twice.delete(1_000, 5);
        twice.ipReleased(1_100);
        twice.ipReleased(1_200);
        assertEquals(1, run("check", "--json", "--file", file(twice.events).toString()));
    }

    /** A pod its finalizer held 45 s after its final delete: a warning under a 10 s threshold, none under 1 minute. */
    @Test
    void checkTakesTheFinalizerThresholdAsADuration() throws IOException {
        PodLog p = new PodLog("a").created(0);
        p.delete(1_000, 0);
        Map<String, Object> meta = PodLog.data(
                "uid",
                p.uid,
                "deletionTimestamp",
                PodLog.at(1_000).toString(),
                "deletionGracePeriodSeconds",
                0,
                "finalizers",
                List.of("example.com/block"));
        p.then(
                1_010,
                "/apiserver",
                EventTypes.OBJECT_MARKED_TERMINATING,
                PodLog.data("object", PodLog.data("metadata", meta)));
        p.exited(1_500, 137);
        p.ipReleased(1_600);
        p.then(
                46_010,
                "/apiserver",
                EventTypes.OBJECT_REMOVED,
                PodLog.data("object", PodLog.data("metadata", PodLog.data("uid", p.uid))));
        String f = file(p.events).toString();
        StringWriter quiet = new StringWriter();
        assertEquals(
                0,
                Podfall.commandLine()
                        .setOut(new PrintWriter(quiet))
                        .execute("check", "--file", f, "--finalizer-threshold", "1m"));
        assertEquals("no findings\n", quiet.toString());
        StringWriter warned = new StringWriter();
        assertEquals(
                0,
                Podfall.commandLine()
                        .setOut(new PrintWriter(warned))
                        .execute("check", "--file", f, "--finalizer-threshold", "10s"));
        assertTrue(
                warned.toString()
                        .contains(
                                "WARNING finalizer-blocking namespaces/default/pods/a: kept by its finalizers "
                                        + "[example.com/block] 45000 ms after its final delete by /apiserver (longer than 10000 ms)"),
                warned.toString());
        assertEquals(2, run("check", "--file", f, "--finalizer-threshold", "a while"));
    }

    @Test
    void analysisCommandsReadAFile() throws IOException {
        Path f = file(new PodLog("a").created(0).deleted(1_000, 5, 1_000, false).events);
        assertEquals(0, run("timeline", "--file", f.toString(), "--pod", "default/a"));
        assertEquals(0, run("stats", "--json", "--file", f.toString()));
        Path html = dir.resolve("flow.html");
        assertEquals(0, run("diagram", "--file", f.toString(), "--html", html.toString()));
        assertTrue(Files.readString(html).contains("ContainerSignalled container=app signal=SIGTERM"));
    }

    @Test
    void timelineOfADeploymentShowsItsCascadeToThePods() throws IOException {
        Instant t0 = Instant.parse("2026-11-29T10:00:00Z");
        Event request = Event.request(
                "del-web",
                "/apiserver",
                EventTypes.DELETION_REQUESTED,
                "namespaces/default/deployments/web",
                t0,
                null,
                Map.of());
        Event removed = Event.causedBy(
                request.asCause(),
                "del-web",
                0,
                "/apiserver",
                EventTypes.OBJECT_REMOVED,
                "namespaces/default/deployments/web",
                t0.plusMillis(20),
                Map.of());
        Event cascade = Event.causedBy(
                removed.asCause(),
                removed.id(),
                0,
                "/controller/garbagecollector",
                EventTypes.DELETION_REQUESTED,
                "namespaces/default/pods/web-1",
                t0.plusMillis(40),
                Map.of());
        Path f = file(List.of(request, removed, cascade));
        StringWriter out = new StringWriter();
        assertEquals(
                0,
                Podfall.commandLine()
                        .setOut(new PrintWriter(out))
                        .execute("timeline", "--file", f.toString(), "--deployment", "default/web"));
        assertTrue(out.toString().contains("namespaces/default/deployments/web"), out.toString());
        assertTrue(out.toString().contains("namespaces/default/pods/web-1"), "the cascade: " + out);
        assertEquals(Podfall.FAILED, run("timeline", "--file", f.toString(), "--deployment", "default/nope"));
        assertEquals(2, run("timeline", "--file", f.toString(), "--deployment", "web"), "NAMESPACE/NAME");
    }

    @Test
    void aFlowThatIsNotThereOrAFileThatIsNotThereIsAFailure() throws IOException {
        Path f = file(new PodLog("a").created(0).events);
        assertEquals(Podfall.FAILED, run("timeline", "--file", f.toString()));
        assertEquals(Podfall.FAILED, run("diagram", "--file", f.toString(), "--correlation", "nope"));
        assertEquals(
                Podfall.FAILED, run("stats", "--file", dir.resolve("missing").toString()));
        assertEquals(2, run("diagram", "--correlation", "x", "--pod", "default/a"));
    }

    @Test
    void statsShowsProgressOnStandardErrorOnlyWhenAskedOffATerminal() throws IOException {
        Path f = file(new PodLog("a").created(0).deleted(1_000, 5, 1_000, false).events);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        assertEquals(
                0,
                Podfall.commandLine()
                        .setOut(new PrintWriter(out))
                        .setErr(new PrintWriter(err))
                        .execute("stats", "--file", f.toString()));
        assertEquals("", err.toString(), "no terminal here, so no progress");
        assertTrue(out.toString().startsWith("deletion flows: 1 (completed 1"), out.toString());
        StringWriter quiet = new StringWriter();
        assertEquals(
                0,
                Podfall.commandLine()
                        .setOut(new PrintWriter(quiet))
                        .setErr(new PrintWriter(err))
                        .execute("stats", "--progress", "--file", f.toString()));
        assertTrue(
                err.toString()
                        .matches("(?s).*\\rpodfall: read 21 events of " + Pattern.quote(f.toString()) + " in .*\\n"),
                err.toString());
        assertEquals(out.toString(), quiet.toString(), "standard output is the same");
    }

    @Test
    void timelineFollowsTheTopicNotAFile() throws IOException {
        Path f = file(new PodLog("a").created(0).events);
        assertEquals(2, run("timeline", "--follow", "--file", f.toString()));
    }

    @Test
    void nodeNeedsAVerbAndANodeName() {
        assertEquals(2, run("node"));
        assertEquals(2, run("node", "stop"));
        assertEquals(2, run("node", "stop", "Node_2", "--topic", "t"));
        assertEquals(2, run("node", "start", "node-2", "--topic", "t", "--time-scale", "10"));
    }

    @Test
    void importRefusesTheLiveTopic() throws IOException {
        Path f = file(new PodLog("a").created(0).events);
        assertEquals(2, run("import", "--file", f.toString(), "--topic", "podfall.events"));
        assertEquals(2, run("import", "--file", f.toString()));
    }

    /**
     * The services' setting podfall.topic names the live topic: import refuses it, and every --topic defaults to it.
     */
    @Test
    void theLiveTopicIsTheOneTheServicesAreSetTo() throws IOException {
        Path f = file(new PodLog("a").created(0).events);
        String before = System.getProperty(LiveTopic.PROPERTY);
        System.setProperty(LiveTopic.PROPERTY, "incident-42.events");
        try {
            assertEquals(2, run("import", "--file", f.toString(), "--topic", "incident-42.events"));
            StringWriter help = new StringWriter();
            assertEquals(0, Podfall.commandLine().setOut(new PrintWriter(help)).execute("stats", "--help"));
            assertTrue(help.toString().contains("the event topic (default: incident-42.events)"), help.toString());
        } finally {
            if (before == null) {
                System.clearProperty(LiveTopic.PROPERTY);
            } else {
                System.setProperty(LiveTopic.PROPERTY, before);
            }
        }
    }

    @Test
    void exportFiltersByTimeNamespaceAndFlow() throws IOException {
        List<Event> log = new ArrayList<>(new PodLog("a").created(0).deleted(1_000, 5, 1_000, false).events);
        Path out = dir.resolve("out.jsonl");
        assertEquals(
                0,
                run(
                        "export",
                        "--file",
                        file(log).toString(),
                        "--correlation",
                        "del-a",
                        "--since",
                        "2026-11-29T10:00:01Z",
                        "--until",
                        "2026-11-29T10:00:02.100Z",
                        "--output",
                        out.toString()));
        List<Event> exported = EventFile.read(out).events();
        assertEquals(
                log.stream()
                        .filter(e -> e.correlationId().equals("del-a")
                                && !e.time().isAfter(Instant.parse("2026-11-29T10:00:02.099Z")))
                        .toList(),
                exported);
        assertTrue(exported.size() > 3);
        assertEquals(
                List.of(),
                log.stream()
                        .filter(new Snapshot.Selection("other", null, null, null))
                        .toList());
    }

    @Test
    void timesAreInstantsOrAges() {
        Instant now = Instant.parse("2026-11-29T10:00:00Z");
        assertEquals(Instant.parse("2026-11-29T09:45:00Z"), ExportCommand.instant("15m", now));
        assertEquals(Instant.parse("2026-11-28T10:00:00Z"), ExportCommand.instant("1d", now));
        assertEquals(Instant.parse("2026-11-29T08:00:00Z"), ExportCommand.instant("2026-11-29T08:00:00Z", now));
        assertEquals(Instant.parse("2026-11-29T09:00:00Z"), ExportCommand.instant("PT1H", now));
        assertThrows(IllegalArgumentException.class, () -> ExportCommand.instant("yesterday", now));
        assertEquals(java.time.Duration.ofMillis(500), Durations.parse("500ms"));
    }
}
