package io.podfall.e2e;

import static io.podfall.e2e.SuiteClient.first;
import static io.podfall.e2e.SuiteClient.pod;
import static io.podfall.model.event.EventTypes.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.Podfall;
import io.podfall.cli.analysis.Check;
import io.podfall.cli.analysis.SequenceDiagram;
import io.podfall.cli.analysis.Stats;
import io.podfall.cli.analysis.Timeline;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.log.EventFile;
import io.podfall.cli.log.EventLog;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.Subjects;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The analysis commands over logs the running suite wrote: the timeline of a graceful and of a killed deletion with its
 * phases, their stats, what check finds in a clean deletion, in force deletions (one that cut a graceful exit short)
 * and in a pod a finalizer held, and the diagram of a foreground cascade.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class LogAnalysisIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static Suite suite;
    private static SuiteClient pods;

    @TempDir
    Path dir;

    @BeforeAll
    static void clients(Suite running) {
        suite = running;
        pods = new SuiteClient(running);
    }

    @Test
    void aGracefulAndAKilledDeletionReadBackAsTheirPhasesAndTheirStats() throws IOException {
        pods.createRunning(pod("analysis-graceful", Map.of("podfall.io/exit-delay-seconds", "0.5")));
        pods.createRunning(pod("analysis-killed", Map.of("podfall.io/on-sigterm", "ignore")));
        pods.delete("analysis-graceful", 5);
        pods.delete("analysis-killed", 2);
        List<Event> graceful = pods.eventsOf("analysis-graceful", SANDBOX_REMOVED, WAIT);
        List<Event> killed = pods.eventsOf("analysis-killed", SANDBOX_REMOVED, WAIT);

        Timeline g = deletion(graceful);
        assertEquals(
                List.of(
                        DELETION_REQUESTED,
                        OBJECT_MARKED_TERMINATING,
                        POD_TERMINATION_STARTED,
                        STOP_CONTAINER_REQUESTED,
                        CONTAINER_SIGNALLED,
                        CONTAINER_EXITED,
                        STOP_POD_SANDBOX_REQUESTED,
                        POD_IP_RELEASED,
                        SANDBOX_STOPPED,
                        STATUS_UPDATE_REQUESTED,
                        POD_TERMINATED,
                        POD_STATUS_UPDATED,
                        DELETION_REQUESTED,
                        OBJECT_MARKED_TERMINATING,
                        OBJECT_REMOVED,
                        REMOVE_POD_SANDBOX_REQUESTED,
                        CONTAINER_REMOVED,
                        SANDBOX_REMOVED),
                g.types());
        assertEquals("grace=5s", g.steps().get(0).detail());
        assertEquals("container=app signal=SIGTERM", g.steps().get(4).detail());
        assertTrue(
                g.steps().get(5).detail().contains("exitCode=143"),
                g.steps().get(5).detail());
        assertTrue(g.steps().get(12).detail().startsWith("grace=0s uid-precondition="), "the kubelet's final delete");
        assertTrue(g.steps().get(13).detail().startsWith("deletionGracePeriodSeconds=0 "), "stored at grace 0");
        assertEquals("", g.steps().get(13).phase(), "no boundary: the pod began terminating once");
        assertEquals("gone", g.steps().get(14).phase());
        assertTrue(
                g.steps().get(5).offsetMillis() - g.steps().get(3).offsetMillis() >= 500,
                "the process exits 0.5 s after StopContainer");
        assertOffsetsGrow(g);
        assertEquals(
                List.of(
                        "request",
                        "terminating",
                        "",
                        "",
                        "SIGTERM",
                        "exit",
                        "",
                        "IP released",
                        "sandbox stopped",
                        "",
                        "",
                        "",
                        "final delete",
                        "",
                        "gone",
                        "",
                        "",
                        ""),
                g.steps().stream().map(Timeline.Step::phase).toList());
        Event sigterm = first(graceful, CONTAINER_SIGNALLED, "SIGTERM");
        assertEquals(
                Duration.between(
                                sigterm.time(),
                                first(graceful, CONTAINER_EXITED, null).time())
                        .toMillis(),
                g.steps().get(5).sincePhaseMillis(),
                "the exit's phase is SIGTERM -> exit");
        assertEquals(
                Duration.between(
                                first(graceful, OBJECT_MARKED_TERMINATING, null).time(), sigterm.time())
                        .toMillis(),
                g.steps().get(4).sincePhaseMillis(),
                "SIGTERM's phase counts from terminating");

        Timeline k = deletion(killed);
        List<String> killedOrder = new ArrayList<>(g.types());
        killedOrder.add(5, CONTAINER_SIGNALLED);
        assertEquals(killedOrder, k.types());
        assertEquals("container=app signal=SIGKILL", k.steps().get(5).detail());
        assertTrue(
                k.steps().get(6).detail().contains("exitCode=137"),
                k.steps().get(6).detail());
        assertEquals(
                2,
                (k.steps().get(5).offsetMillis() - k.steps().get(3).offsetMillis()) / 1000,
                "SIGKILL when the 2 s from StopContainer ran out");
        assertOffsetsGrow(k);

        List<Event> both = new ArrayList<>(graceful);
        both.addAll(killed);
        Stats s = Stats.of(both);
        assertEquals(List.of(2, 2, 0, 1), List.of(s.flows(), s.completed(), s.rejected(), s.killed()));
        assertEquals(0.5, s.sigkillRate());
        assertEquals(new Stats.Summary(2, 2000, 5000, 5000, 5000), s.durations().get(Stats.GRACE_REQUESTED));
        s.durations().forEach((row, summary) -> assertEquals(row.equals(Stats.TO_ENDPOINTS) ? 0 : 2, summary.n(), row));
        assertEquals(0, s.inEndpoints(), "no Service selects these pods");
        Stats.Summary honoured = s.durations().get(Stats.GRACE_HONOURED);
        assertTrue(honoured.p50() < 1_500, "the graceful one exited about 0.5 s after SIGTERM: " + honoured);
        assertTrue(honoured.max() >= 1_500 && honoured.max() <= 2_500, "the killed one got about its 2 s: " + honoured);
        assertEquals(
                Duration.between(
                                first(killed, CONTAINER_SIGNALLED, "SIGTERM").time(),
                                first(killed, CONTAINER_SIGNALLED, "SIGKILL").time())
                        .toMillis(),
                honoured.max());

        StringWriter out = new StringWriter();
        assertEquals(
                0, Podfall.commandLine().setOut(new PrintWriter(out)).execute("stats", "--json", "--file", file(both)));
        assertEquals(s.json().toPrettyString() + "\n", out.toString(), "the command prints the same figures");
    }

    @Test
    void checkFindsNothingInAGracefulDeletionAndWarnsOfAForceDeletionThatLeftItsContainerRunning() throws IOException {
        pods.createRunning(pod("analysis-clean", Map.of()));
        pods.delete("analysis-clean", 1);
        List<Event> clean = pods.eventsOf("analysis-clean", SANDBOX_REMOVED, WAIT);
        assertEquals(List.of(), Check.of(clean));
        assertEquals(0, Podfall.commandLine().execute("check", "--file", file(clean)));

        pods.createRunning(pod("analysis-forced", Map.of("podfall.io/exit-delay-seconds", "0.5")));
        pods.delete("analysis-forced", 0);
        List<Event> forced = pods.eventsOf("analysis-forced", SANDBOX_REMOVED, WAIT);
        List<Check.Finding> findings = Check.of(forced);
        assertEquals(
                List.of("WARNING removed-while-running namespaces/default/pods/analysis-forced"),
                findings.stream()
                        .map(f -> f.level() + " " + f.rule() + " " + f.subject())
                        .toList());
        Check.Finding f = findings.get(0);
        assertTrue(f.message().contains("force deletion"), f.message());
        assertTrue(f.eventIds().contains(first(forced, OBJECT_REMOVED, null).id()), "names the removal");
        assertTrue(f.eventIds().contains(first(forced, CONTAINER_STARTED, null).id()), "and the container that ran");
        assertEquals(0, Podfall.commandLine().execute("check", "--file", file(forced)), "a warning is no error");
    }

    /**
     * A force deletion leaves the node 1 s, though the process needs 3 of its spec's 30 s: check says the kill cut a
     * graceful exit short, as a warning, and what was owed and honoured. The force deletion above, whose process exits
     * in 0.5 s, has no such finding.
     */
    @Test
    void checkWarnsWhenAForceDeletionKilledAProcessThatWouldHaveExited() throws IOException {
        pods.createRunning(pod("analysis-cut-short", Map.of("podfall.io/exit-delay-seconds", "3")));
        pods.delete("analysis-cut-short", 0);
        List<Event> events = pods.eventsOf("analysis-cut-short", SANDBOX_REMOVED, WAIT);
        List<Check.Finding> findings = Check.of(events);
        List<Check.Finding> cut = findings.stream()
                .filter(f -> f.rule().equals("killed-though-exiting"))
                .toList();
        assertEquals(1, cut.size(), findings.toString());
        Check.Finding f = cut.get(0);
        assertEquals(Check.Level.WARNING, f.level());
        Event started = first(events, POD_TERMINATION_STARTED, null);
        assertTrue(
                f.message()
                        .endsWith(
                                "(podfall.io/exit-delay-seconds=3) would have exited 3000 ms after StopContainer, within the "
                                        + "30 s grace period it was owed (spec.terminationGracePeriodSeconds; the delete requested 0 s: a force "
                                        + "deletion); the kubelet honoured "
                                        + started.data()
                                                .path("gracePeriodSeconds")
                                                .asLong()
                                        + " s (kubelet.PodTerminationStarted)"),
                f.message());
        assertEquals(
                List.of(
                        first(events, CONTAINER_SIGNALLED, "SIGKILL").id(),
                        first(events, CONTAINER_SIGNALLED, "SIGTERM").id(),
                        first(events, STOP_CONTAINER_REQUESTED, null).id(),
                        first(events, RUN_POD_SANDBOX_REQUESTED, null).id()),
                f.eventIds().subList(0, 4),
                "the kill, the signal, the stop, and the RunPodSandbox that told the runtime "
                        + "how the process behaves");
        assertEquals(0, Podfall.commandLine().execute("check", "--file", file(events)), "a warning is no error");
    }

    /**
     * A finalizer keeps the pod after the kubelet's final delete until a client patches it away: longer than the
     * threshold is a warning that names it, with the kubelet's delete and the removal; within it, nothing.
     */
    @Test
    void checkWarnsOfAFinalizerThatHeldThePodLongerThanTheThreshold() throws Exception {
        Pod held = pod("analysis-held", Map.of());
        held.getMetadata().setFinalizers(List.of("example.com/block"));
        pods.createRunning(held);
        pods.delete("analysis-held", 1);
        String path = "/api/v1/namespaces/default/pods/analysis-held";
        pods.api.await(
                path,
                r -> r.body()
                                .path("metadata")
                                .path("deletionGracePeriodSeconds")
                                .asInt(-1)
                        == 0,
                WAIT,
                "the pod held by its finalizer after the kubelet's final delete");
        Thread.sleep(2_000);
        ObjectNode release = Json.MAPPER.createObjectNode();
        release.putObject("metadata").putNull("finalizers");
        assertEquals(200, pods.api.patch(path, release).code());
        List<Event> events = pods.eventsOf("analysis-held", OBJECT_REMOVED, WAIT);

        assertEquals(List.of(), Check.of(events), "held less than the default threshold");
        List<Check.Finding> findings = Check.of(events, Duration.ofSeconds(1));
        assertEquals(1, findings.size(), findings.toString());
        Check.Finding f = findings.get(0);
        assertTrue(f.message().startsWith("kept by its finalizers [example.com/block] "), f.message());
        assertTrue(
                f.message()
                        .contains(" ms after its final delete by /kubelet/node-1 (longer than 1000 ms): "
                                + "example.com/block taken away at +"),
                f.message());
        Event finalDelete = events.stream()
                .filter(e -> e.is(DELETION_REQUESTED) && e.source().startsWith("/kubelet/"))
                .findFirst()
                .orElseThrow();
        assertEquals(finalDelete.id(), f.eventIds().get(0), "the kubelet's final delete");
        assertEquals(
                first(events, OBJECT_REMOVED, null).id(),
                f.eventIds().get(f.eventIds().size() - 1),
                "the removal");

        StringWriter out = new StringWriter();
        assertEquals(
                0,
                Podfall.commandLine()
                        .setOut(new PrintWriter(out))
                        .execute("check", "--file", file(events), "--finalizer-threshold", "1s"));
        assertTrue(
                out.toString().contains("WARNING finalizer-blocking namespaces/default/pods/analysis-held: "),
                out.toString());
    }

    /**
     * A Deployment deleted in foreground, as the suite logs it: its diagram groups the arrows per object, in causal
     * order: the Deployment first, each pod's whole deletion in one block, and the Deployment again, continued, at the
     * end, once its dependents are gone.
     */
    @Test
    void aForegroundCascadesDiagramReadsOneBlockPerPod() {
        String deployments = "/apis/apps/v1/namespaces/default/deployments";
        assertEquals(
                201,
                pods.api
                        .post(
                                deployments,
                                new DeploymentBuilder()
                                        .withNewMetadata()
                                        .withName("analysis-web")
                                        .endMetadata()
                                        .withNewSpec()
                                        .withReplicas(2)
                                        .withNewSelector()
                                        .addToMatchLabels("app", "analysis-web")
                                        .endSelector()
                                        .withNewTemplate()
                                        .withNewMetadata()
                                        .addToLabels("app", "analysis-web")
                                        .addToAnnotations("podfall.io/exit-delay-seconds", "0.5")
                                        .endMetadata()
                                        .withNewSpec()
                                        .withTerminationGracePeriodSeconds(5L)
                                        .addNewContainer()
                                        .withName("app")
                                        .withImage("nginx")
                                        .endContainer()
                                        .endSpec()
                                        .endTemplate()
                                        .endSpec()
                                        .build())
                        .code());
        pods.api.await(
                deployments + "/analysis-web",
                r -> r.body().path("status").path("readyReplicas").asInt() == 2,
                WAIT,
                "analysis-web with 2 ready replicas");
        int deleted = pods.api
                .delete(
                        deployments + "/analysis-web",
                        new DeleteOptionsBuilder()
                                .withPropagationPolicy("Foreground")
                                .build())
                .code();
        assertTrue(deleted == 200 || deleted == 202, "delete answered " + deleted);
        pods.api.await(deployments + "/analysis-web", r -> r.code() == 404, WAIT, "analysis-web gone");

        String subject = Subjects.of("default", "deployments", "analysis-web");
        List<Event> log;
        try (EventLog events = new EventLog(suite.bootstrapServers(), SuiteExtension.TOPIC)) {
            log = events.readUntil(
                    all -> all.stream().anyMatch(e -> e.is(OBJECT_REMOVED) && subject.equals(e.subject())), WAIT);
        }
        String flow = Timeline.latestDeletion(log, subject).orElseThrow();
        String mermaid = SequenceDiagram.of(log, flow);
        List<String> notes = mermaid.lines()
                .filter(l -> l.startsWith("    Note over User,CSI: "))
                .map(l -> l.substring("    Note over User,CSI: ".length()))
                .toList();
        assertEquals(subject, notes.get(0), mermaid);
        assertEquals(subject + " (continued)", notes.get(notes.size() - 1), mermaid);
        List<String> podBlocks =
                notes.stream().filter(n -> n.contains("/pods/analysis-web-")).toList();
        assertEquals(2, podBlocks.size(), "one block a pod, none continued: " + notes);
        assertEquals(2, podBlocks.stream().distinct().count(), notes.toString());
        assertEquals(
                log.stream().filter(e -> e.correlationId().equals(flow)).count(),
                mermaid.lines().filter(l -> l.contains(">>")).count(),
                "one arrow an event");
    }

    /** The latest deletion among a pod's events. */
    private static Timeline deletion(List<Event> events) {
        return Timeline.of(
                events, Timeline.latestDeletion(events, events.get(0).subject()).orElseThrow());
    }

    private static void assertOffsetsGrow(Timeline t) {
        for (int i = 1; i < t.steps().size(); i++) {
            assertTrue(
                    t.steps().get(i).offsetMillis() >= t.steps().get(i - 1).offsetMillis(), "step " + i + " of " + t);
        }
    }

    private String file(List<Event> events) throws IOException {
        Path f = Files.createTempFile(dir, "log", ".jsonl");
        try (Writer w = Files.newBufferedWriter(f)) {
            EventFile.write(w, events);
        }
        return f.toString();
    }
}
