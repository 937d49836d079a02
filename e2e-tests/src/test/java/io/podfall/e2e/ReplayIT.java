package io.podfall.e2e;

import static io.podfall.e2e.SuiteClient.first;
import static io.podfall.e2e.SuiteClient.pod;
import static io.podfall.e2e.SuiteClient.seconds;
import static io.podfall.model.event.EventTypes.CONTAINER_SIGNALLED;
import static io.podfall.model.event.EventTypes.DELETION_REQUESTED;
import static io.podfall.model.event.EventTypes.SANDBOX_REMOVED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.Podfall;
import io.podfall.cli.analysis.Timeline;
import io.podfall.cli.launch.Suite;
import io.podfall.model.event.Event;
import io.podfall.model.event.Subjects;
import io.podfall.replay.Replay;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Equivalence of the suite and the in-process engine: a graceful and a killed pod deletion run over Kafka by the four
 * services, exported, and replayed in process by {@code podfall replay}, reproduce with no divergence: every causal
 * chain has the same events, and each step the same delay from its cause within the tolerance.
 *
 * <p>The recording replayed is the scenario's, from its first request on ({@link ScenarioReplay}). A pod run through
 * the suite first (not part of the scenario) warms the services up.
 *
 * <p>A what-if replays a recording with a kubelet setting changed, and shows where the outcome would have differed.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class ReplayIT {
    private static final String TOLERANCE = ScenarioReplay.TOLERANCE.toMillis() + "ms";

    private static SuiteClient pods;

    @TempDir
    Path dir;

    @BeforeAll
    static void warmUp(Suite suite) {
        pods = new SuiteClient(suite);
        pods.createRunning(pod("replay-warm-up", Map.of()));
        pods.delete("replay-warm-up", 0);
        pods.eventsOf("replay-warm-up", SANDBOX_REMOVED, Duration.ofSeconds(60));
    }

    @Test
    void aGracefulAndAKilledDeletionRecordedOverKafkaReplayInProcessWithoutDivergence(Suite suite)
            throws InterruptedException {
        List<String> names = List.of("replay-graceful", "replay-killed");
        pods.createRunning(pod(names.get(0), Map.of("podfall.io/exit-delay-seconds", "0.5")));
        pods.createRunning(pod(names.get(1), Map.of("podfall.io/on-sigterm", "ignore")));
        pods.delete(names.get(0), 3);
        pods.delete(names.get(1), 2);
        names.forEach(name -> pods.eventsOf(name, SANDBOX_REMOVED, Duration.ofSeconds(60)));

        List<Event> topic = ScenarioReplay.topic(suite, dir);
        Instant since = ScenarioReplay.since(topic, ours(names));
        List<Event> recorded = ScenarioReplay.scenario(topic, since);
        Path file = ScenarioReplay.file("graceful-and-killed", recorded);

        StringWriter out = new StringWriter();
        int code = Podfall.commandLine()
                .setOut(new PrintWriter(out))
                .execute("replay", file.toString(), "--since", since.toString(), "--tolerance", TOLERANCE);
        System.out.print(out);
        assertEquals(0, code, out.toString());
        assertTrue(out.toString().contains("inputs: 4 client requests\n"), out.toString());

        // the same event types per flow, and the deletions step by step as the timeline shows them
        Replay replay = Replay.of(recorded, since, Replay.end(recorded), ScenarioReplay.TOLERANCE);
        assertEquals(typesByFlow(replay.recorded()), typesByFlow(replay.replayed()));
        for (String name : names) {
            String subject = Subjects.of("default", "pods", name);
            String deletion = Timeline.latestDeletion(recorded, subject).orElseThrow();
            assertEquals(
                    Timeline.of(recorded, deletion).types(),
                    Timeline.of(replay.replayed(), deletion).types(),
                    name);
        }
    }

    /**
     * The seed scenario (upstream #83916, #113712), recorded by the suite's kubelet as released: a pod that ignores
     * SIGTERM deleted with 60 s of grace, then with 5 s a second later, is killed when the first 60 s run out. The
     * recording reproduces; replayed with the fix switch (PR #113883) on, the kill comes 5 s after the second request,
     * about +6 s, and the side-by-side says so.
     */
    @Test
    void aShortenedGraceRecordedOverKafkaIsKilledAtTheFirstDeadlineAndAt6sReplayedWithTheFix(Suite suite)
            throws InterruptedException {
        String name = "replay-shortened";
        pods.createRunning(new PodBuilder(pod(name, Map.of("podfall.io/on-sigterm", "ignore")))
                .editSpec()
                .withTerminationGracePeriodSeconds(60L)
                .endSpec()
                .build());
        pods.delete(name, 60);
        Thread.sleep(1000);
        pods.delete(name, 5);
        List<Event> recorded = pods.eventsOf(name, SANDBOX_REMOVED, Duration.ofSeconds(120));
        long killedAfter =
                seconds(first(recorded, DELETION_REQUESTED, null), first(recorded, CONTAINER_SIGNALLED, "SIGKILL"));
        assertTrue(
                killedAfter >= 59 && killedAfter <= 61,
                "a released kubelet kills when the first 60 s run out: " + killedAfter + " s");

        List<Event> topic = ScenarioReplay.topic(suite, dir);
        Instant from = ScenarioReplay.since(topic, ours(List.of(name)));
        String file = ScenarioReplay.file("shortened-grace", ScenarioReplay.scenario(topic, from))
                .toString();
        String since = from.toString();

        StringWriter asRecorded = new StringWriter();
        int reproduced = Podfall.commandLine()
                .setOut(new PrintWriter(asRecorded))
                .execute("replay", file, "--since", since, "--tolerance", TOLERANCE);
        StringWriter whatIf = new StringWriter();
        int diverged = Podfall.commandLine()
                .setOut(new PrintWriter(whatIf))
                .execute(
                        "replay",
                        file,
                        "--since",
                        since,
                        "--tolerance",
                        TOLERANCE,
                        "--set",
                        "podfall.kubelet.compat.shortened-grace-kills-again=true");
        System.out.print(whatIf);

        assertEquals(0, reproduced, asRecorded.toString());
        assertEquals(1, diverged, whatIf.toString());
        String summary = "pod " + Subjects.of("default", "pods", name)
                + ": SIGKILL at \\+60\\.\\d s recorded, \\+6\\.\\d s replayed; "
                + "removed at \\+60\\.\\d s recorded, \\+6\\.\\d s replayed";
        assertTrue(whatIf.toString().lines().anyMatch(l -> l.matches(summary)), whatIf.toString());
        assertTrue(
                whatIf.toString()
                        .lines()
                        .anyMatch(
                                l -> l.matches(" +\\+ +\\| +\\+\\d+ ms +kubelet/node-1 +runtime.StopContainerRequested "
                                        + "+container=app timeout=5s *")),
                "the fix's second kill is the replay's only: " + whatIf);
    }

    /** The client requests about these pods. */
    private static Predicate<Event> ours(List<String> names) {
        Set<String> subjects =
                names.stream().map(name -> Subjects.of("default", "pods", name)).collect(Collectors.toSet());
        return e -> subjects.contains(e.subject());
    }

    /** Per flow, how many events of each type. */
    private static Map<String, Map<String, Long>> typesByFlow(List<Event> log) {
        return log.stream()
                .collect(Collectors.groupingBy(
                        Event::correlationId, Collectors.groupingBy(Event::type, Collectors.counting())));
    }
}
