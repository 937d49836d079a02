package io.podfall.cli;

import static io.podfall.cli.ReplayCommandsTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.broker.Broker;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.ReplayCommandsTest.Result;
import io.podfall.cli.log.EventFile;
import io.podfall.cli.log.EventLog;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.replay.LiveReplay;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replay --live} against a real broker with no services on the target: which topic it writes, what it appends
 * and at which pace, what it refuses, and how it reports flows that nothing acted on.
 */
@ExtendWith(KafkaBrokerExtension.class)
class LiveReplayCommandTest {
    private static final AtomicInteger TOPICS = new AtomicInteger();

    private final String bootstrap;
    /** A pod created at +1 s, deleted at +10 s with 5 s of grace, killed at +15 s: two client requests. */
    private final List<Event> recorded = ReplayCommandsTest.recording();

    private final List<Event> requests =
            LiveReplay.inputs(recorded, recorded.get(0).time(), null);

    @TempDir
    Path dir;

    LiveReplayCommandTest(Broker broker) {
        bootstrap = broker.bootstrapServers();
    }

    @Test
    void theTopicIsThePrefixAndTheLiveTopicsName() {
        LiveReplayOptions options = new LiveReplayOptions();
        options.topicPrefix = "replay-1.";
        assertEquals("replay-1." + LiveTopic.name(), options.target());
        System.setProperty(LiveTopic.PROPERTY, "staging.events");
        try {
            assertEquals("replay-1.staging.events", options.target(), "the live topic as the services read it");
            options.topicPrefix = null;
            assertEquals("staging.events", options.target(), "no prefix: the live topic itself");
            options.targetTopic = "elsewhere";
            assertEquals("elsewhere", options.target());
        } finally {
            System.clearProperty(LiveTopic.PROPERTY);
        }
    }

    @Test
    void theLiveTopicIsRefusedUnlessIntoLiveAndNothingIsWritten() throws Exception {
        String live = newTopic();
        System.setProperty(LiveTopic.PROPERTY, live);
        try {
            Result r = run("replay", file(), "--live", "--bootstrap", bootstrap);
            assertEquals(2, r.code(), r.out() + r.err());
            assertTrue(
                    r.err()
                            .contains(
                                    "refusing to replay into the live topic " + live + ": the services there would act "
                                            + "on the events (use --into-live if that is what you want)"),
                    r.err());
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                assertFalse(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(live), "not even created");
            }
            Result into = run(
                    "replay",
                    file(),
                    "--live",
                    "--into-live",
                    "--no-compare",
                    "--speed",
                    "max",
                    "--bootstrap",
                    bootstrap);
            assertEquals(0, into.code(), into.out() + into.err());
            assertEquals(2, read(live).size());
        } finally {
            System.clearProperty(LiveTopic.PROPERTY);
        }
    }

    /** At speed 10 the deletion, recorded 9 s after the creation, comes at least 0.9 s after it. */
    @Test
    void theRequestsAreAppendedOnceWithTheirIdsAtTheRecordedPaceDividedByTheSpeed() throws Exception {
        String prefix = newTopic() + ".";
        String target = prefix + LiveTopic.name();
        Instant before = Instant.now();

        Result r = run(
                "replay",
                file(),
                "--live",
                "--topic-prefix",
                prefix,
                "--speed",
                "10",
                "--no-compare",
                "--bootstrap",
                bootstrap);

        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("live: 2 client requests appended to " + target + " at speed 10 in "), r.out());
        assertTrue(r.out().contains("note: " + target + " was empty: no suite has started on it yet"), r.out());
        List<Event> appended = read(target);
        assertEquals(
                requests.stream().map(Event::id).toList(),
                appended.stream().map(Event::id).toList(),
                "the client requests only, ids kept");
        assertEquals(
                List.of(EventTypes.CREATION_REQUESTED, EventTypes.DELETION_REQUESTED),
                appended.stream().map(Event::type).toList());
        assertEquals(requests.get(1).data().toString(), appended.get(1).data().toString());
        assertFalse(
                appended.get(0).time().isBefore(before),
                "stamped when appended: " + appended.get(0).time());
        assertTrue(
                Duration.between(appended.get(0).time(), appended.get(1).time()).compareTo(Duration.ofMillis(900)) >= 0,
                appended.toString());

        Result again =
                run("replay", file(), "--live", "--topic-prefix", prefix, "--speed", "max", "--bootstrap", bootstrap);
        assertEquals(2, again.code(), again.out() + again.err());
        assertTrue(
                again.err().contains("refusing to replay into " + target + ": it holds 2 of these requests already"),
                again.err());
        assertEquals(2, read(target).size(), "nothing appended the second time");
    }

    @Test
    void withNoServicesOnTheTargetEveryStepAfterTheRequestsIsMissing() throws Exception {
        String target = newTopic();
        Path output = dir.resolve("replayed.jsonl");

        Result r = run(
                "replay",
                file(),
                "--live",
                "--target-topic",
                target,
                "--speed",
                "max",
                "--quiet",
                "1s",
                "--bootstrap",
                bootstrap,
                "--output",
                output.toString());

        assertEquals(1, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("as fast as possible: the requests reach the target together"), r.out());
        assertTrue(r.out().contains("inputs: 2 client requests\n"), r.out());
        assertTrue(
                r.out()
                        .contains(
                                " MISSING   apiserver.ObjectMarkedTerminating namespaces/default/pods/web-1 from /apiserver, "
                                        + "after apiserver.DeletionRequested; and "),
                r.out());
        assertTrue(r.out().contains("diverged: 2 MISSING in 2 of 2 flows"), r.out());
        assertEquals(
                requests.stream().map(Event::id).toList(),
                EventFile.read(output).events().stream().map(Event::id).toList(),
                "the replayed flows as the target holds them: the requests alone");
    }

    @Test
    void liveOptionsNeedLiveAndSomeCombinationsAreBadOptions() throws IOException {
        String f = file();
        assertEquals(2, run("replay", f, "--speed", "2").code());
        assertTrue(run("replay", f, "--topic-prefix", "x.").err().contains("--topic-prefix needs --live"));
        assertEquals(
                2,
                run(
                                "replay",
                                f,
                                "--live",
                                "--topic-prefix",
                                "x.",
                                "--set",
                                "kubelet.compat.shortened-grace-kills-again=true")
                        .code());
        assertEquals(
                2,
                run("replay", f, "--live", "--topic-prefix", "x.", "--target-topic", "y")
                        .code());
        assertEquals(
                2,
                run("replay", f, "--live", "--topic-prefix", "x.", "--speed", "fast")
                        .code());
        assertEquals(
                2,
                run("replay", f, "--live", "--topic-prefix", "x.", "--speed", "-1")
                        .code());
        assertTrue(run("replay", f, "--live", "--topic-prefix", "x.", "--time-scale", "10")
                .err()
                .contains("needs --time-origin"));
    }

    private String file() throws IOException {
        Path f = Files.createTempFile(dir, "log", ".jsonl");
        try (Writer w = Files.newBufferedWriter(f)) {
            EventFile.write(w, recorded);
        }
        return f.toString();
    }

    private List<Event> read(String topic) {
        try (EventLog log = new EventLog(bootstrap, topic)) {
            return log.readToEnd(Duration.ofSeconds(30));
        }
    }

    private static String newTopic() {
        return "live-replay-" + TOPICS.incrementAndGet();
    }
}
