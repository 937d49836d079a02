package io.podfall.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.podfall.broker.Broker;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.analysis.PodLog;
import io.podfall.cli.analysis.Timeline;
import io.podfall.cli.log.EventLog;
import io.podfall.cli.log.TopicWriter;
import io.podfall.model.event.Event;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The commands that write or follow a topic, against a real Kafka broker. */
@ExtendWith(KafkaBrokerExtension.class)
class BrokerCommandsTest {
    private static final AtomicInteger TOPICS = new AtomicInteger();
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final String bootstrap;

    @TempDir
    Path dir;

    BrokerCommandsTest(Broker broker) {
        bootstrap = broker.bootstrapServers();
    }

    @Test
    void timelineFollowPrintsTheLatestDeletionAsItStandsThenEachStepAndEachNewDeletionAsItArrives() throws Exception {
        String topic = newTopic();
        List<Event> old = new PodLog("old").deleted(0, 5, 100, false).events;
        List<Event> web1 = new PodLog("web-1").deleted(10_000, 5, 1_000, false).events;
        List<Event> web2 = new PodLog("web-2").deleted(20_000, 2, 0, true).events;
        append(topic, cat(old, web1.subList(0, 5)));

        try (Following f = new Following("timeline", "--follow", "--bootstrap", bootstrap, "--topic", topic)) {
            f.awaitLines(6);
            append(topic, web1.subList(5, web1.size()));
            append(topic, web2);
            f.awaitLines(1 + web1.size() + 1 + web2.size());
            assertEquals(0, f.stop());
            List<String> expected = new ArrayList<>();
            expected.addAll(timeline(web1));
            expected.addAll(timeline(web2));
            assertEquals(
                    expected,
                    f.lines().stream().map(BrokerCommandsTest::squeezed).toList());
        }
    }

    @Test
    void timelineFollowOfAPodPrintsOnlyItsDeletions() throws Exception {
        String topic = newTopic();
        append(topic, new PodLog("a").created(0).events);
        List<Event> a = new PodLog("a").deleted(1_000, 5, 100, false).events;
        List<Event> b = new PodLog("b").deleted(1_020, 5, 100, false).events;
        try (Following f =
                new Following("timeline", "-f", "--pod", "default/b", "--bootstrap", bootstrap, "--topic", topic)) {
            // nothing to show yet: b has no deletion on the topic; the output starts with b's first step, and
            // what comes before b's last step on the topic has been read when it is printed
            append(
                    topic,
                    cat(
                            a.subList(0, 3),
                            new PodLog("c").deleted(900, 5, 100, false).events,
                            b,
                            a.subList(3, a.size())));
            f.awaitLines(1 + b.size());
            assertEquals(0, f.stop());
            assertEquals(
                    timeline(b),
                    f.lines().stream().map(BrokerCommandsTest::squeezed).toList());
        }
    }

    @Test
    void anExportImportedIntoAnotherTopicReadsBackAsTheSameRecords() {
        String source = newTopic();
        String copy = newTopic();
        append(
                source,
                cat(
                        new PodLog("a").created(0).deleted(1_000, 5, 1_000, false).events,
                        new PodLog("b").created(500).deleted(2_000, 2, 0, true).events));
        Path file = dir.resolve("incident.jsonl");
        assertEquals(0, run("export", "--bootstrap", bootstrap, "--topic", source, "--output", file.toString()));
        assertEquals(0, run("import", "--bootstrap", bootstrap, "--file", file.toString(), "--topic", copy));

        List<ConsumerRecord<String, byte[]>> original = records(source);
        List<ConsumerRecord<String, byte[]>> imported = records(copy);
        assertEquals(43, original.size());
        assertEquals(original.size(), imported.size());
        for (int i = 0; i < original.size(); i++) {
            assertEquals(original.get(i).key(), imported.get(i).key(), "key of record " + i);
            assertEquals(
                    new String(original.get(i).value()),
                    new String(imported.get(i).value()),
                    "value of record " + i);
            assertEquals(headers(original.get(i)), headers(imported.get(i)), "headers of record " + i);
        }
        try (EventLog a = new EventLog(bootstrap, source);
                EventLog b = new EventLog(bootstrap, copy)) {
            assertEquals(
                    a.readToEnd(WAIT), b.readToEnd(WAIT), "ids, types, subjects, times, correlation, causation, data");
        }
    }

    @Test
    void importWritesTheLiveTopicOnlyWhenItIsNamedAndAllowed() throws Exception {
        Path file = dir.resolve("one.jsonl");
        String other = newTopic();
        append(other, new PodLog("a").created(0).events);
        assertEquals(0, run("export", "--bootstrap", bootstrap, "--topic", other, "--output", file.toString()));

        assertEquals(
                2, run("import", "--bootstrap", bootstrap, "--file", file.toString(), "--topic", LiveTopic.DEFAULT));
        assertEquals(2, run("import", "--bootstrap", bootstrap, "--file", file.toString()), "no default topic");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            assertFalse(
                    admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(LiveTopic.DEFAULT),
                    "a refused import does not even create the topic");
        }
        assertEquals(
                0,
                run(
                        "import",
                        "--bootstrap",
                        bootstrap,
                        "--file",
                        file.toString(),
                        "--topic",
                        LiveTopic.DEFAULT,
                        "--into-live"));
        assertEquals(3, records(LiveTopic.DEFAULT).size());
    }

    /** Where the services are set to another topic, that one is live and refused; any other is written. */
    @Test
    void theLiveTopicFollowsTheServicesSetting() {
        Path file = dir.resolve("one.jsonl");
        String live = newTopic();
        String other = newTopic();
        append(other, new PodLog("a").created(0).events);
        assertEquals(0, run("export", "--bootstrap", bootstrap, "--topic", other, "--output", file.toString()));
        System.setProperty(LiveTopic.PROPERTY, live);
        try {
            assertEquals(2, run("import", "--bootstrap", bootstrap, "--file", file.toString(), "--topic", live));
            String elsewhere = "podfall.events-" + live;
            assertEquals(0, run("import", "--bootstrap", bootstrap, "--file", file.toString(), "--topic", elsewhere));
            assertEquals(3, records(elsewhere).size());
        } finally {
            System.clearProperty(LiveTopic.PROPERTY);
        }
    }

    /**
     * {@code podfall node stop|start} appends the node's machine's facts to the topic, at the suite's simulated time,
     * each an input of its own (no cause).
     */
    @Test
    void nodeStopAndStartAppendTheHostFactsAtTheSuitesSimulatedTime() {
        String topic = newTopic();
        Instant origin = Instant.now().minusSeconds(10);
        assertEquals(
                0,
                run(
                        "node",
                        "stop",
                        "node-2",
                        "--reason",
                        "kernel upgrade",
                        "--bootstrap",
                        bootstrap,
                        "--topic",
                        topic,
                        "--time-scale",
                        "100",
                        "--time-origin",
                        origin.toString()));
        assertEquals(0, run("node", "start", "node-2", "--bootstrap", bootstrap, "--topic", topic));

        List<Event> events;
        try (EventLog log = new EventLog(bootstrap, topic)) {
            events = log.readUntil(all -> all.size() == 2, WAIT);
        }
        assertEquals(
                List.of("host.NodeStopped /host/node-2 nodes/node-2", "host.NodeStarted /host/node-2 nodes/node-2"),
                events.stream()
                        .map(e -> e.type() + " " + e.source() + " " + e.subject())
                        .toList());
        assertEquals("kernel upgrade", events.get(0).data().path("reason").asText());
        assertEquals("node-2", events.get(1).data().path("node").asText());
        assertTrue(events.stream()
                .allMatch(e -> e.causationId() == null && e.correlationId().equals(e.id())));
        assertTrue(
                events.get(0).time().isAfter(origin.plusSeconds(900)),
                "10 s of wall time at scale 100 are 1000 s of the suite's: "
                        + events.get(0).time());
    }

    private String newTopic() {
        return "cli-test-" + TOPICS.incrementAndGet();
    }

    private void append(String topic, List<Event> events) {
        try (TopicWriter w = new TopicWriter(bootstrap, topic)) {
            w.createTopicIfMissing();
            w.append(events);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static int run(String... args) {
        return Podfall.commandLine().execute(args);
    }

    /** What timeline prints of one flow, spaces squeezed: the follower's columns are not as wide. */
    private static List<String> timeline(List<Event> flow) {
        return Timeline.of(flow, flow.get(0).correlationId())
                .render()
                .lines()
                .map(BrokerCommandsTest::squeezed)
                .toList();
    }

    private static String squeezed(String line) {
        return line.trim().replaceAll(" +", " ");
    }

    private List<ConsumerRecord<String, byte[]>> records(String topic) {
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(
                Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new StringDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition p = new TopicPartition(topic, 0);
            c.assign(List.of(p));
            c.seekToBeginning(List.of(p));
            long end = c.endOffsets(List.of(p)).get(p);
            List<ConsumerRecord<String, byte[]>> all = new ArrayList<>();
            Instant deadline = Instant.now().plus(WAIT);
            while (c.position(p) < end && Instant.now().isBefore(deadline)) {
                c.poll(Duration.ofMillis(200)).forEach(all::add);
            }
            return all;
        }
    }

    private static List<String> headers(ConsumerRecord<String, byte[]> r) {
        return Arrays.stream(r.headers().toArray())
                .map((Header h) -> h.key() + "=" + new String(h.value()))
                .toList();
    }

    @SafeVarargs
    private static List<Event> cat(List<Event>... parts) {
        List<Event> all = new ArrayList<>();
        Arrays.stream(parts).forEach(all::addAll);
        return all;
    }

    /** A command that runs until interrupted, in a thread of its own; what it prints, as it prints it. */
    private static final class Following implements AutoCloseable {
        private final StringWriter out = new StringWriter();
        private final StringWriter err = new StringWriter();
        private final Thread thread;
        private final CompletableFuture<Integer> exit = new CompletableFuture<>();

        Following(String... args) {
            thread = new Thread(
                    () -> exit.complete(Podfall.commandLine()
                            .setOut(new PrintWriter(out, true))
                            .setErr(new PrintWriter(err, true))
                            .execute(args)),
                    "podfall-follow-test");
            thread.start();
        }

        List<String> lines() {
            return out.toString().lines().toList();
        }

        void awaitLines(int n) throws InterruptedException {
            Instant deadline = Instant.now().plus(WAIT);
            while (lines().size() < n) {
                if (exit.isDone() || Instant.now().isAfter(deadline)) {
                    fail("expected " + n + " lines, got:\n" + out + "\nstandard error:\n" + err);
                }
                Thread.sleep(50);
            }
        }

        /** Interrupts it as Ctrl-C would and returns its exit code. */
        int stop() throws Exception {
            thread.interrupt();
            return exit.get(30, TimeUnit.SECONDS);
        }

        @Override
        public void close() throws Exception {
            if (!exit.isDone()) {
                stop();
            }
            assertTrue(err.toString().isEmpty(), err.toString());
        }
    }
}
