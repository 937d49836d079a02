package io.podfall.e2e;

import static io.podfall.e2e.SuiteClient.pod;
import static io.podfall.model.event.EventTypes.SANDBOX_REMOVED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.broker.Broker;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.Podfall;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.log.EventFile;
import io.podfall.cli.log.EventLog;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.replay.LiveReplay;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live replay: a graceful and a killed deletion recorded by the shared suite on {@code podfall.events}, exported, and
 * replayed by {@code podfall replay --live} into a second suite of the four services, on the same broker but on
 * {@code replay-it.podfall.events}. That suite's services run the flows again and the replay compares what they
 * appended with the recording: the same events along every causal chain, with the recording's ids and UIDs, each step
 * as long after its cause as recorded. Without a prefix, the live topic is refused.
 *
 * <p>The second suite is warmed up with a pod of its own first, as {@link ReplayIT} warms up the shared one: a
 * service's first seconds are the JVM's, not the flow's. Both sides are live here, each hop a few milliseconds on each,
 * so the tolerance is twice {@link ReplayIT}'s.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class LiveReplayIT {
    private static final String PREFIX = "replay-it.";
    private static final String TARGET = PREFIX + SuiteExtension.TOPIC;
    private static final String TOLERANCE = "500ms";

    private static SuiteClient pods;
    private static Suite target;
    private static String bootstrap;

    @TempDir
    Path dir;

    @BeforeAll
    static void startASecondSuiteOnThePrefixedTopic(Suite suite, Broker broker) throws IOException {
        pods = new SuiteClient(suite);
        bootstrap = broker.bootstrapServers();
        target = Suite.start(
                new Suite.Options(
                        Path.of(System.getProperty("podfall.project.root", "..")),
                        Files.createTempDirectory("podfall-e2e-live-"),
                        bootstrap,
                        0,
                        0,
                        0,
                        TARGET,
                        1.0,
                        Duration.ofSeconds(120)),
                Suite.Tuning.FAST_KUBELET);
        SuiteClient own = new SuiteClient(target);
        own.createRunning(pod("live-warm-up", Map.of()));
        own.delete("live-warm-up", 0);
        pods.createRunning(pod("live-warm-up", Map.of()));
        pods.delete("live-warm-up", 0);
        pods.eventsOf("live-warm-up", SANDBOX_REMOVED, Duration.ofSeconds(60));
    }

    @AfterAll
    static void stopTheSecondSuite() {
        if (target != null) {
            target.close();
        }
    }

    @Test
    void aDeletionRecordedOnTheLiveTopicReproducesOnASecondSuiteWithTheRecordedIds()
            throws IOException, InterruptedException {
        List<String> names = List.of("live-graceful", "live-killed");
        pods.createRunning(pod(names.get(0), Map.of("podfall.io/exit-delay-seconds", "0.5")));
        pods.createRunning(pod(names.get(1), Map.of("podfall.io/on-sigterm", "ignore")));
        // Replayed at the recorded pace, the deletes come as long after the creations as here: time for the target's
        // kubelet to have started the containers, as the recording's had (a delete first makes another flow)
        Thread.sleep(1000);
        pods.delete(names.get(0), 3);
        pods.delete(names.get(1), 2);
        names.forEach(name -> pods.eventsOf(name, SANDBOX_REMOVED, Duration.ofSeconds(60)));
        Path file = export();
        List<Event> recorded = EventFile.read(file).events();
        Set<String> subjects =
                names.stream().map(n -> Subjects.of("default", "pods", n)).collect(Collectors.toSet());
        Instant since = recorded.stream()
                .filter(e -> e.causationId() == null && subjects.contains(e.subject()))
                .findFirst()
                .orElseThrow()
                .time();

        Result r = replay(
                file.toString(),
                "--since",
                since.toString(),
                "--live",
                "--topic-prefix",
                PREFIX,
                "--bootstrap",
                bootstrap,
                "--tolerance",
                TOLERANCE,
                "--quiet",
                "3s");

        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("live: 4 client requests appended to " + TARGET + " at speed 1 in "), r.out());
        assertTrue(
                r.out().contains("note: " + TARGET + " held 2 client requests of its own: "),
                "the warm-up's: " + r.out());
        assertTrue(r.out().contains("reproduced: no divergence in 4 flows"), r.out());
        List<Event> replayed = read(TARGET);
        for (String subject : subjects) {
            assertEquals(
                    uid(recorded, subject), uid(replayed, subject), "the UID derived from the recorded request's id");
            // The client's delete's marking, derived from the recorded request's id. (The kubelet's final delete
            // and its grace-0 marking end a chain through timers, whose ids carry the instant they fell due.)
            assertEquals(
                    ids(recorded, subject, EventTypes.OBJECT_MARKED_TERMINATING).get(0),
                    ids(replayed, subject, EventTypes.OBJECT_MARKED_TERMINATING).get(0));
        }
    }

    @Test
    void withoutAPrefixTheLiveTopicIsRefusedAndNothingIsAppended() throws IOException {
        Path file = export();
        List<Event> requests = LiveReplay.inputs(EventFile.read(file).events(), Instant.EPOCH, null);

        Map<String, Long> before = countsOf(requests);

        Result r = replay(file.toString(), "--live", "--bootstrap", bootstrap);

        assertEquals(2, r.code(), r.out() + r.err());
        assertTrue(r.err().contains("refusing to replay into the live topic " + SuiteExtension.TOPIC), r.err());
        assertEquals(before, countsOf(requests), "no request appended to the live topic again");
    }

    /** How many times each request is on the live topic. */
    private static Map<String, Long> countsOf(List<Event> requests) {
        Set<String> ids = requests.stream().map(Event::id).collect(Collectors.toSet());
        return read(SuiteExtension.TOPIC).stream()
                .filter(e -> ids.contains(e.id()))
                .collect(Collectors.groupingBy(Event::id, Collectors.counting()));
    }

    private Path export() {
        Path file = dir.resolve("live.jsonl");
        assertEquals(
                0,
                Podfall.commandLine()
                        .execute(
                                "export",
                                "--bootstrap",
                                bootstrap,
                                "--topic",
                                SuiteExtension.TOPIC,
                                "--output",
                                file.toString()));
        return file;
    }

    private static List<Event> read(String topic) {
        try (EventLog log = new EventLog(bootstrap, topic)) {
            return log.readToEnd(Duration.ofSeconds(30));
        }
    }

    /** The UID the API server gave the pod when it created it. */
    private static String uid(List<Event> log, String subject) {
        return log.stream()
                .filter(e -> e.is(EventTypes.OBJECT_CREATED) && subject.equals(e.subject()))
                .map(e -> e.data().path("object").path("metadata").path("uid").asText())
                .findFirst()
                .orElseThrow();
    }

    private static List<String> ids(List<Event> log, String subject, String type) {
        return log.stream()
                .filter(e -> e.is(type) && subject.equals(e.subject()))
                .map(Event::id)
                .toList();
    }

    private static Result replay(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Podfall.commandLine()
                .setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err))
                .execute(cat("replay", args));
        System.out.print(out);
        return new Result(code, out.toString(), err.toString());
    }

    private static String[] cat(String first, String[] rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    private record Result(int code, String out, String err) {}
}
