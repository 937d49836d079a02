package io.podfall.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.broker.Broker;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.log.EventFile;
import io.podfall.cli.log.StructuredCloudEvents;
import io.podfall.cli.log.TopicWriter;
import io.podfall.kubelet.podworkers.Compat;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.replay.Engine;
import io.podfall.replay.Input;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * replay and state over a file, or a topic (one test, with a broker): exit codes, --until, --at, --set, and what they
 * print.
 */
class ReplayCommandsTest {
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private static final String POD = "namespaces/default/pods/web-1";
    private static final String INCIDENT_POD = "namespaces/incident/pods/victim";

    @TempDir
    Path dir;

    /** A pod created and deleted with 5 s of grace; its process ignores SIGTERM, so it is killed at +15 s. */
    static List<Event> recording() {
        return recording(T0.plusSeconds(60), deletion(2, T0.plusSeconds(10), 5));
    }

    /**
     * The seed scenario (upstream #83916, #113712) recorded by a kubelet with the fix (PR #113883): the pod deleted
     * with 60 s of grace at +10 s, then with 5 s at +11 s; killed again with 5 s, at +16 s; exported at +20 s.
     */
    private static List<Event> graceShortened() {
        return recording(
                new Compat(true, false),
                T0.plusSeconds(20),
                deletion(2, T0.plusSeconds(10), 60),
                deletion(3, T0.plusSeconds(11), 5));
    }

    /** The suite's start, the pod created at +1 s, then the requests {@code then}, run until {@code end}. */
    private static List<Event> recording(Instant end, Input... then) {
        return recording(Compat.NONE, end, then);
    }

    private static List<Event> recording(Compat compat, Instant end, Input... then) {
        Engine engine = new Engine(List.of(new Engine.KubeletSettings(List.of("node-1"), compat)));
        engine.schedule(List.of(
                new Input.ApiServerStart(T0),
                new Input.KubeletStart(0, T0),
                new Input.Request(Event.request(
                        "00000000-0000-4000-8000-000000000001",
                        "/apiserver",
                        EventTypes.CREATION_REQUESTED,
                        POD,
                        T0.plusSeconds(1),
                        null,
                        new CreationRequest(
                                "pods",
                                "default",
                                Json.tree(new PodBuilder()
                                        .withNewMetadata()
                                        .withName("web-1")
                                        .withNamespace("default")
                                        .addToAnnotations("podfall.io/on-sigterm", "ignore")
                                        .endMetadata()
                                        .withNewSpec()
                                        .addNewContainer()
                                        .withName("app")
                                        .withImage("nginx")
                                        .endContainer()
                                        .endSpec()
                                        .build()))))));
        engine.schedule(List.of(then));
        engine.runUntil(end);
        return engine.log();
    }

    private static Input deletion(int n, Instant at, long grace) {
        return request(
                n,
                at,
                EventTypes.DELETION_REQUESTED,
                POD,
                new DeletionRequest(
                        "pods",
                        "default",
                        "web-1",
                        new DeleteOptionsBuilder().withGracePeriodSeconds(grace).build()));
    }

    /**
     * Beside web-1, which runs on: namespace {@code incident} created at +20 s, pod {@code victim} in it at +21 s,
     * deleted with 5 s of grace at +30 s (its process ignores SIGTERM: killed at +35 s); exported at +60 s.
     */
    private static List<Event> podDeletedInANamespaceOfItsOwn() {
        ObjectNode namespace =
                Json.MAPPER.createObjectNode().put("apiVersion", "v1").put("kind", "Namespace");
        namespace.putObject("metadata").put("name", "incident");
        return recording(
                T0.plusSeconds(60),
                request(
                        2,
                        T0.plusSeconds(20),
                        EventTypes.CREATION_REQUESTED,
                        "namespaces/incident",
                        new CreationRequest("namespaces", "", namespace)),
                request(
                        3,
                        T0.plusSeconds(21),
                        EventTypes.CREATION_REQUESTED,
                        INCIDENT_POD,
                        new CreationRequest(
                                "pods",
                                "incident",
                                Json.tree(new PodBuilder()
                                        .withNewMetadata()
                                        .withName("victim")
                                        .withNamespace("incident")
                                        .addToAnnotations("podfall.io/on-sigterm", "ignore")
                                        .endMetadata()
                                        .withNewSpec()
                                        .addNewContainer()
                                        .withName("app")
                                        .withImage("nginx")
                                        .endContainer()
                                        .endSpec()
                                        .build()))),
                request(
                        4,
                        T0.plusSeconds(30),
                        EventTypes.DELETION_REQUESTED,
                        INCIDENT_POD,
                        new DeletionRequest(
                                "pods",
                                "incident",
                                "victim",
                                new DeleteOptionsBuilder()
                                        .withGracePeriodSeconds(5L)
                                        .build())));
    }

    /** A client's request with a random (version 4) id and no cause, as the API server's front door appends it. */
    private static Input request(int n, Instant at, String type, String subject, Object data) {
        return new Input.Request(Event.request(
                String.format("00000000-0000-4000-8000-%012d", n), "/apiserver", type, subject, at, null, data));
    }

    private Path file(List<Event> events) throws IOException {
        Path f = Files.createTempFile(dir, "log", ".jsonl");
        try (Writer w = Files.newBufferedWriter(f)) {
            EventFile.write(w, events);
            w.write("not an event\n");
        }
        return f;
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Podfall.commandLine()
                .setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err))
                .execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    record Result(int code, String out, String err) {}

    @Test
    void aLogThatReproducesExitsZeroAndWritesTheSameLogBack() throws IOException {
        List<Event> recorded = recording();
        Path replayed = dir.resolve("replayed.jsonl");

        Result r = run("replay", file(recorded).toString(), "--output", replayed.toString());

        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("reproduced: no divergence in "), r.out());
        assertTrue(
                r.out()
                        .contains(
                                "inputs: 2 client requests, API server started at 2026-03-01T10:00:00Z, kubelet node-1 started at"),
                r.out());
        assertTrue(r.err().contains("skipped 1 unreadable line(s)"), "names what it skipped: " + r.err());
        assertTrue(
                Files.readAllLines(replayed)
                        .equals(recorded.stream()
                                .map(StructuredCloudEvents::line)
                                .toList()),
                "the replay appends the recorded log again, byte for byte");
    }

    /**
     * A log with a damaged line, an event of a type this reader does not know, and a fact whose data does not read as
     * its type: replay and state go on with the rest, name each line they skipped and the fact each core could not read
     * (a service dead-letters such a record and goes on), and do not fail.
     */
    @Test
    void aDamagedLineAnUnknownTypeAndBadDataAreSkippedAndNamed() throws IOException {
        List<Event> recorded = recording();
        Event created = recorded.stream()
                .filter(e -> e.is(EventTypes.OBJECT_CREATED) && e.subject().equals(POD))
                .findFirst()
                .orElseThrow();
        Event damaged = new Event(
                "00000000-0000-3000-8000-00000000000d",
                created.source(),
                EventTypes.OBJECT_UPDATED,
                POD,
                created.time(),
                created.correlationId(),
                created.id(),
                created.traceparent(),
                Json.MAPPER
                        .createObjectNode()
                        .put("object", "not an object")
                        .set("resource", Json.MAPPER.createArrayNode().add("pods")));
        List<String> lines = new ArrayList<>(
                recorded.stream().map(StructuredCloudEvents::line).toList());
        String line = StructuredCloudEvents.line(created);
        lines.add(lines.indexOf(line) + 1, StructuredCloudEvents.line(damaged));
        lines.add(3, line.substring(0, line.length() / 2));
        lines.add(
                6,
                line.replace("\"type\":\"apiserver.", "\"type\":\"apiserver.Future")
                        .replace(created.id(), "future-1"));
        Path f = dir.resolve("damaged.jsonl");
        Files.write(f, lines);
        String[] afterTheDamage = {"--since", "+9s", f.toString()};

        Result replay = run(cat("replay", afterTheDamage));
        Result state = run("state", "--at", "+12s", f.toString());

        for (Result r : List.of(replay, state)) {
            assertEquals(0, r.code(), r.out() + r.err());
            assertTrue(r.err().contains("skipped 2 unreadable line(s) of " + f + ": line 4: not JSON: "), r.err());
            assertTrue(r.err().contains("; line 7: unknown event type apiserver.FutureObjectCreated"), r.err());
            assertTrue(
                    r.out()
                            .contains(
                                    "note: controller manager skipped apiserver.ObjectUpdated " + POD
                                            + " 00000000-0000-3000-8000-00000000000d: data of apiserver.ObjectUpdated does not match its schema"),
                    r.out());
            assertTrue(r.out().contains("note: kubelet node-1 skipped apiserver.ObjectUpdated " + POD), r.out());
        }
        assertTrue(replay.out().contains("reproduced: no divergence"), replay.out());
        assertTrue(
                state.out().contains(" TerminatingPod grace=5s "),
                "the state the rest of the log leads to: " + state.out());
    }

    @Test
    void aDivergenceExitsOneAndIsShownUnderItsFlow() throws IOException {
        List<Event> recorded = new ArrayList<>(recording());
        recorded.removeIf(e -> e.is(EventTypes.CONTAINER_SIGNALLED)
                && e.data().path("signal").asText().equals("SIGKILL"));

        Result r = run("replay", file(recorded).toString());

        assertEquals(1, r.code(), r.out());
        assertTrue(
                r.out().contains("flow 00000000-0000-4000-8000-000000000002: apiserver.DeletionRequested " + POD),
                r.out());
        assertTrue(
                r.out()
                        .contains("   +5.000s EXTRA     runtime.ContainerSignalled " + POD
                                + " from /runtime/node-1, after runtime.StopContainerRequested"),
                r.out());
        assertTrue(r.out().contains("diverged: 1 EXTRA in 1 of "), r.out());
        assertTrue(
                r.out()
                        .lines()
                        .reduce((a, b) -> b)
                        .orElseThrow()
                        .matches("digest: sha256:[0-9a-f]{64} of the \\d+ " + "replayed events"),
                "the last line is the replayed log's digest: " + r.out());
    }

    @Test
    void sinceAndUntilSetTheWindowReplayed() throws IOException {
        List<Event> recorded = new ArrayList<>(recording());
        recorded.removeIf(e -> e.is(EventTypes.CONTAINER_SIGNALLED)
                && e.data().path("signal").asText().equals("SIGKILL"));

        assertEquals(
                0, run("replay", file(recorded).toString(), "--until", "+12s").code());
        assertEquals(
                0,
                run("replay", file(recorded).toString(), "--until", "2026-03-01T10:00:14.9Z")
                        .code());
        assertEquals(
                1, run("replay", file(recorded).toString(), "--since", "+12s").code(), "the kill is due at +15 s");
        assertEquals(
                2, run("replay", file(recorded).toString(), "--until", "soon").code());
        assertEquals(
                2,
                run("replay", file(recorded).toString(), "--tolerance", "a bit").code());
    }

    @Test
    void aWhatIfShowsBothTimelinesSideBySideAndExitsOneWhenTheSettingChangesTheOutcome() throws IOException {
        Path f = file(graceShortened());

        Result on = run("replay", f.toString(), "--set", "podfall.kubelet.compat.shortened-grace-kills-again=false");
        Result off = run("replay", f.toString(), "--set", "kubelet.compat.shortened-grace-ignored=false");

        assertEquals(1, on.code(), on.out() + on.err());
        List<String> lines = on.out().lines().map(l -> l.replaceAll(" +", " ")).toList();
        assertTrue(
                lines.contains(
                        "pod " + POD + ": SIGKILL at +6.0 s recorded, +60.0 s replayed; removed at +6.0 s recorded, "
                                + "+60.0 s replayed"),
                on.out());
        assertTrue(lines.contains(" recorded | replayed"), on.out());
        assertTrue(
                lines.contains(
                        " +0 ms apiserver apiserver.DeletionRequested grace=60s | +0 ms apiserver apiserver.DeletionRequested grace=60s"),
                "a step alike on both sides is not marked: " + on.out());
        assertTrue(
                lines.contains(" ~ +1000 ms kubelet/node-1 kubelet.GracePeriodShortened previousGrace=60s grace=5s "
                        + "compat=shortened-grace-kills-again | +1000 ms "
                        + "kubelet/node-1 kubelet.GracePeriodShortened previousGrace=60s grace=5s"),
                on.out());
        assertTrue(
                lines.contains(" - +1000 ms kubelet/node-1 runtime.StopContainerRequested container=app timeout=5s | "),
                "the fix's second kill is the recording's only: " + on.out());
        assertTrue(
                lines.contains(
                        " ~ +6000 ms runtime/node-1 runtime.ContainerSignalled container=app signal=SIGKILL | +60000 ms "
                                + "runtime/node-1 runtime.ContainerSignalled container=app signal=SIGKILL"),
                on.out());
        assertTrue(
                on.out().lines().anyMatch(l -> l.startsWith("diverged: ") && l.endsWith(" to 2026-03-01T10:01:10Z")),
                "the what-if ran on past the recording to the kill: " + on.out());
        assertEquals(0, off.code(), "the setting the recording had, by its old name: " + off.out());
        assertTrue(off.out().contains("reproduced: no divergence"), off.out());
    }

    @Test
    void anUnknownSettingOrABadValueIsABadOption() throws IOException {
        Path f = file(graceShortened());

        Result unknown = run("replay", f.toString(), "--set", "podfall.time-scale=10");
        Result bad = run("replay", f.toString(), "--set", "kubelet.compat.shortened-grace-kills-again=yes");

        assertEquals(2, unknown.code());
        assertTrue(
                unknown.err()
                        .contains("unknown setting podfall.time-scale; a replay can set "
                                + "podfall.kubelet.compat.shortened-grace-kills-again, "),
                unknown.err());
        assertEquals(2, bad.code());
        assertTrue(
                bad.err()
                        .contains(
                                "bad value for podfall.kubelet.compat.shortened-grace-kills-again: 'yes' (true or false)"),
                bad.err());
    }

    @Test
    @ExtendWith(KafkaBrokerExtension.class)
    void replayAndStateReadTheRecordingFromATopicAsFromItsExport(Broker broker) throws Exception {
        String topic = "replay-" + UUID.randomUUID();
        List<Event> recorded = graceShortened();
        try (TopicWriter w = new TopicWriter(broker.bootstrapServers(), topic)) {
            w.createTopicIfMissing();
            w.append(recorded);
        }
        String[] fromTopic = {"--topic", topic, "--bootstrap", broker.bootstrapServers()};
        Path f = file(recorded);

        Result replay = run(cat("replay", fromTopic));
        Result whatIf = run(cat("replay", fromTopic, "--set", "kubelet.compat.shortened-grace-kills-again=false"));
        Result state = run(cat("state", fromTopic, "--at", "+12s"));

        assertEquals(0, replay.code(), replay.out() + replay.err());
        assertEquals(
                run("replay", f.toString()).out().lines().skip(1).toList(),
                replay.out().lines().skip(1).toList(),
                "the same report as from the export, but for the time it took");
        assertEquals(1, whatIf.code());
        assertEquals(
                run("replay", f.toString(), "--set", "kubelet.compat.shortened-grace-kills-again=false")
                        .out()
                        .lines()
                        .skip(1)
                        .toList(),
                whatIf.out().lines().skip(1).toList());
        assertEquals(run("state", "--at", "+12s", f.toString()).out(), state.out());
        assertEquals(2, run("replay").code(), "no recording");
        assertEquals(2, run(cat("replay", fromTopic, f.toString())).code(), "two recordings");
    }

    private static String[] cat(String command, String[] options, String... more) {
        List<String> all = new ArrayList<>(List.of(command));
        all.addAll(List.of(options));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
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
        assertEquals(
                Podfall.FAILED,
                run("state", dir.resolve("missing.jsonl").toString()).code());
    }

    /**
     * Issue #31's acceptance: a pod deleted in a namespace of its own, {@code export --namespace NS}, then
     * {@code replay} of that file alone reproduces it; {@code state} and {@code replay --since} read the same file.
     */
    @Test
    void aNamespaceExportReplaysOnItsOwn() throws IOException {
        Path incident = dir.resolve("incident.jsonl");
        assertEquals(
                0,
                run(
                                "export",
                                "--file",
                                file(podDeletedInANamespaceOfItsOwn()).toString(),
                                "--namespace",
                                "incident",
                                "--output",
                                incident.toString())
                        .code());
        List<Event> exported = EventFile.read(incident).events();
        assertTrue(
                exported.stream()
                        .anyMatch(e ->
                                e.is(EventTypes.OBJECT_LISTED) && e.subject().equals("nodes/node-1")),
                "the node its pod ran on");

        Result replay = run("replay", incident.toString());
        Result since = run("replay", incident.toString(), "--since", "2026-03-01T10:00:30Z");
        Result state = run("state", "--at", "2026-03-01T10:00:32Z", incident.toString());

        assertEquals(0, replay.code(), replay.out() + replay.err());
        assertTrue(replay.out().contains("reproduced: no divergence in "), replay.out());
        assertTrue(
                !replay.out().contains("MISSING")
                        && !replay.out().contains("EXTRA")
                        && !replay.out().contains("REORDERED"),
                replay.out());
        assertEquals(0, since.code(), since.out() + since.err());
        assertEquals(0, state.code(), state.err());
        assertTrue(state.out().contains("\n  nodes/node-1 "), state.out());
        assertTrue(state.out().contains("\n  " + INCIDENT_POD + " phase=Running node=node-1 "), state.out());
        assertTrue(state.out().contains(" app=RUNNING signalled at 2026-03-01T10:00:30Z"), state.out());
    }
}
