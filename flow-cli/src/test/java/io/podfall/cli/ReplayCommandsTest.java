package io.podfall.cli;

import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.cli.log.EventFile;
import io.podfall.cli.log.StructuredCloudEvents;
import io.podfall.kubelet.podworkers.Compat;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.replay.Engine;
import io.podfall.replay.Input;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** replay and state over a file: exit codes, --until, --at, and what they print. No broker. */
class ReplayCommandsTest {
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private static final String POD = "namespaces/default/pods/web-1";

    @TempDir
    Path dir;

    /** A pod created and deleted with 5 s of grace; its process ignores SIGTERM, so it is killed at +15 s. */
    private static List<Event> recording() {
        Engine engine = new Engine(List.of(new Engine.KubeletSettings(List.of("node-1"), Compat.NONE)));
        engine.schedule(List.of(new Input.ApiServerStart(T0), new Input.KubeletStart(0, T0),
                new Input.Request(Event.request("00000000-0000-4000-8000-000000000001", "/apiserver",
                        EventTypes.CREATION_REQUESTED, POD, T0.plusSeconds(1), null, new CreationRequest("pods", "default",
                                Json.tree(new PodBuilder().withNewMetadata().withName("web-1").withNamespace("default")
                                        .addToAnnotations("podfall.io/on-sigterm", "ignore").endMetadata().withNewSpec()
                                        .addNewContainer().withName("app").withImage("nginx").endContainer().endSpec().build())))),
                new Input.Request(Event.request("00000000-0000-4000-8000-000000000002", "/apiserver",
                        EventTypes.DELETION_REQUESTED, POD, T0.plusSeconds(10), null, new DeletionRequest("pods", "default",
                                "web-1", new DeleteOptionsBuilder().withGracePeriodSeconds(5L).build())))));
        engine.runUntil(T0.plusSeconds(60));
        return engine.log();
    }

    private Path file(List<Event> events) throws IOException {
        Path f = Files.createTempFile(dir, "log", ".jsonl");
        try (Writer w = Files.newBufferedWriter(f)) {
            EventFile.write(w, events);
            w.write("not an event\n");
        }
        return f;
    }

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Podfall.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    private record Result(int code, String out, String err) {
    }

    @Test
    void aLogThatReproducesExitsZeroAndWritesTheSameLogBack() throws IOException {
        List<Event> recorded = recording();
        Path replayed = dir.resolve("replayed.jsonl");

        Result r = run("replay", file(recorded).toString(), "--output", replayed.toString());

        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("reproduced: no divergence in "), r.out());
        assertTrue(r.out().contains("inputs: 2 client requests, API server started at 2026-03-01T10:00:00Z, kubelet node-1 started at"), r.out());
        assertTrue(r.err().contains("skipped 1 unreadable line(s)"), "names what it skipped: " + r.err());
        assertTrue(Files.readAllLines(replayed).equals(recorded.stream().map(StructuredCloudEvents::line).toList()),
                "the replay appends the recorded log again, byte for byte");
    }

    @Test
    void aDivergenceExitsOneAndIsShownUnderItsFlow() throws IOException {
        List<Event> recorded = new ArrayList<>(recording());
        recorded.removeIf(e -> e.is(EventTypes.CONTAINER_SIGNALLED) && e.data().path("signal").asText().equals("SIGKILL"));

        Result r = run("replay", file(recorded).toString());

        assertEquals(1, r.code(), r.out());
        assertTrue(r.out().contains("flow 00000000-0000-4000-8000-000000000002: apiserver.DeletionRequested " + POD), r.out());
        assertTrue(r.out().contains("   +5.000s EXTRA     runtime.ContainerSignalled " + POD
                + " from /runtime/node-1, after runtime.StopContainerRequested"), r.out());
        assertTrue(r.out().contains("diverged: 1 divergences in 1 of "), r.out());
    }

    @Test
    void sinceAndUntilSetTheWindowReplayed() throws IOException {
        List<Event> recorded = new ArrayList<>(recording());
        recorded.removeIf(e -> e.is(EventTypes.CONTAINER_SIGNALLED) && e.data().path("signal").asText().equals("SIGKILL"));

        assertEquals(0, run("replay", file(recorded).toString(), "--until", "+12s").code());
        assertEquals(0, run("replay", file(recorded).toString(), "--until", "2026-03-01T10:00:14.9Z").code());
        assertEquals(1, run("replay", file(recorded).toString(), "--since", "+12s").code(), "the kill is due at +15 s");
        assertEquals(2, run("replay", file(recorded).toString(), "--until", "soon").code());
        assertEquals(2, run("replay", file(recorded).toString(), "--tolerance", "a bit").code());
    }

    @Test
    void stateShowsEachComponentAtTheMoment() throws IOException {
        Path f = file(recording());

        Result during = run("state", "--at", "+12s", f.toString());
        Result after = run("state", f.toString());

        assertEquals(0, during.code(), during.err());
        assertTrue(during.out().startsWith("at 2026-03-01T10:00:12Z ("), during.out());
        assertTrue(during.out().contains("\n  " + POD + " phase=Running node=node-1 "), during.out());
        assertTrue(during.out().contains(" TerminatingPod grace=5s "), during.out());
        assertTrue(during.out().contains(" app=RUNNING signalled at 2026-03-01T10:00:10Z"), during.out());
        assertTrue(after.out().contains("\nruntime: 0 sandboxes\n"), after.out());
        assertEquals(Podfall.FAILED, run("state", dir.resolve("missing.jsonl").toString()).code());
    }
}
