package io.podfall.e2e;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.Podfall;
import io.podfall.cli.analysis.Check;
import io.podfall.cli.analysis.Stats;
import io.podfall.cli.analysis.Timeline;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.log.EventFile;
import io.podfall.model.event.Event;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

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

import static io.podfall.e2e.SuiteClient.first;
import static io.podfall.model.event.EventTypes.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The analysis commands over logs the running suite wrote: the timeline of a graceful and of a killed deletion,
 * their stats, and what check finds in a clean deletion and in a force deletion.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class LogAnalysisIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static SuiteClient pods;

    @TempDir
    Path dir;

    @BeforeAll
    static void clients(Suite running) {
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
        assertEquals(List.of(DELETION_REQUESTED, OBJECT_MARKED_TERMINATING, POD_TERMINATION_STARTED,
                STOP_CONTAINER_REQUESTED, CONTAINER_SIGNALLED, CONTAINER_EXITED, STOP_POD_SANDBOX_REQUESTED,
                POD_IP_RELEASED, SANDBOX_STOPPED, POD_TERMINATED, STATUS_UPDATE_REQUESTED, POD_STATUS_UPDATED,
                DELETION_REQUESTED, OBJECT_REMOVED, REMOVE_POD_SANDBOX_REQUESTED, CONTAINER_REMOVED, SANDBOX_REMOVED),
                g.types());
        assertEquals("grace=5s", g.steps().get(0).detail());
        assertEquals("container=app signal=SIGTERM", g.steps().get(4).detail());
        assertTrue(g.steps().get(5).detail().contains("exitCode=143"), g.steps().get(5).detail());
        assertTrue(g.steps().get(12).detail().startsWith("grace=0s uid-precondition="), "the kubelet's final delete");
        assertTrue(g.steps().get(5).offsetMillis() - g.steps().get(3).offsetMillis() >= 500,
                "the process exits 0.5 s after StopContainer");
        assertOffsetsGrow(g);

        Timeline k = deletion(killed);
        List<String> killedOrder = new ArrayList<>(g.types());
        killedOrder.add(5, CONTAINER_SIGNALLED);
        assertEquals(killedOrder, k.types());
        assertEquals("container=app signal=SIGKILL", k.steps().get(5).detail());
        assertTrue(k.steps().get(6).detail().contains("exitCode=137"), k.steps().get(6).detail());
        assertEquals(2, (k.steps().get(5).offsetMillis() - k.steps().get(3).offsetMillis()) / 1000,
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
        assertEquals(Duration.between(first(killed, CONTAINER_SIGNALLED, "SIGTERM").time(),
                first(killed, CONTAINER_SIGNALLED, "SIGKILL").time()).toMillis(), honoured.max());

        StringWriter out = new StringWriter();
        assertEquals(0, Podfall.commandLine().setOut(new PrintWriter(out)).execute("stats", "--json", "--file", file(both)));
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
        assertEquals(List.of("WARNING removed-while-running namespaces/default/pods/analysis-forced"),
                findings.stream().map(f -> f.level() + " " + f.rule() + " " + f.subject()).toList());
        Check.Finding f = findings.get(0);
        assertTrue(f.message().contains("force deletion"), f.message());
        assertTrue(f.eventIds().contains(first(forced, OBJECT_REMOVED, null).id()), "names the removal");
        assertTrue(f.eventIds().contains(first(forced, CONTAINER_STARTED, null).id()), "and the container that ran");
        assertEquals(0, Podfall.commandLine().execute("check", "--file", file(forced)), "a warning is no error");
    }

    /** The latest deletion among a pod's events. */
    private static Timeline deletion(List<Event> events) {
        return Timeline.of(events, Timeline.latestDeletion(events, events.get(0).subject()).orElseThrow());
    }

    private static void assertOffsetsGrow(Timeline t) {
        for (int i = 1; i < t.steps().size(); i++) {
            assertTrue(t.steps().get(i).offsetMillis() >= t.steps().get(i - 1).offsetMillis(), "step " + i + " of " + t);
        }
    }

    private static Pod pod(String name, Map<String, String> annotations) {
        return new PodBuilder().withNewMetadata().withName(name).withAnnotations(annotations).endMetadata()
                .withNewSpec().addNewContainer().withName("app").withImage("nginx").endContainer().endSpec().build();
    }

    private String file(List<Event> events) throws IOException {
        Path f = Files.createTempFile(dir, "log", ".jsonl");
        try (Writer w = Files.newBufferedWriter(f)) {
            EventFile.write(w, events);
        }
        return f.toString();
    }
}
