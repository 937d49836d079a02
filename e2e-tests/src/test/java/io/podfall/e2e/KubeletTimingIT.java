package io.podfall.e2e;

import static io.podfall.e2e.SuiteClient.first;
import static io.podfall.model.event.EventTypes.DELETION_REQUESTED;
import static io.podfall.model.event.EventTypes.OBJECT_CREATED;
import static io.podfall.model.event.EventTypes.OBJECT_REMOVED;
import static io.podfall.model.event.EventTypes.POD_STATUS_UPDATED;
import static io.podfall.model.event.EventTypes.POD_TERMINATED;
import static io.podfall.model.event.EventTypes.SANDBOX_REMOVED;
import static io.podfall.model.event.EventTypes.SANDBOX_STOPPED;
import static io.podfall.model.event.EventTypes.STOP_CONTAINER_REQUESTED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.broker.Broker;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.Podfall;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.log.EventLog;
import io.podfall.model.event.Event;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A released kubelet's waits, end to end (podfall.kubelet.timing=upstream, the default of {@code podfall up}): the
 * PLEG's relist every second, the pod worker's wait for a pod cache newer than its last sync, the container GC (every 5
 * s here, to keep the test short; a minute by default). On a suite of its own, whose kubelet registers its node with
 * those waits, so that its log replays with them.
 */
@ExtendWith(KafkaBrokerExtension.class)
class KubeletTimingIT {
    private static final String TOPIC = "podfall.timing";
    private static final Duration WAIT = Duration.ofSeconds(60);

    private static Suite suite;
    private static SuiteClient pods;

    @TempDir
    Path dir;

    @BeforeAll
    static void upstreamKubelet(Broker broker) throws IOException {
        suite = ScenarioReplay.start(
                broker.bootstrapServers(),
                TOPIC,
                new Suite.Tuning(
                        Map.of("podfall.kubelet.timing", "upstream", "podfall.kubelet.container-gc-period", "5s"),
                        List.of()));
        pods = new SuiteClient(suite, TOPIC);
    }

    @AfterAll
    static void stop() {
        suite.close();
    }

    /**
     * {@code podfall demo}'s deletion (grace 5 s, a process that exits 1 s after SIGTERM) takes between 1 and 4 s from
     * the request to the pod gone: the exit, a relist wait before the worker finishes, maybe one before the kill.
     */
    @Test
    void theDemosDeletionTakesBetweenOneAndFourSeconds() {
        StringWriter out = new StringWriter();
        int code = Podfall.commandLine()
                .setOut(new PrintWriter(out))
                .execute(
                        "demo",
                        "--server",
                        suite.apiserverUrl(),
                        "--bootstrap",
                        suite.bootstrapServers(),
                        "--topic",
                        TOPIC,
                        "--name",
                        "timing-demo");
        assertEquals(0, code, out.toString());

        List<Event> events = pods.eventsOf("timing-demo", OBJECT_REMOVED, WAIT);
        Event request = events.stream()
                .filter(e -> e.is(DELETION_REQUESTED))
                .findFirst()
                .orElseThrow();
        long millis = Duration.between(
                        request.time(), first(events, OBJECT_REMOVED, null).time())
                .toMillis();
        assertTrue(millis >= 1000 && millis <= 4000, "from request to gone: " + millis + " ms\n" + out);
    }

    /**
     * The worker finishes (PodTerminated) at the first relist after the kill returned, not at once; the terminal phase
     * is on the API server before that; the sandbox goes at the container GC's next run.
     */
    @Test
    void theWorkerFinishesAtTheRelistAfterTheKillAndTheSandboxGoesAtTheNextContainerGc() throws InterruptedException {
        Instant mark = Instant.now();
        pods.createRunning(SuiteClient.pod("timed", Map.of()));
        Thread.sleep(1500); // past the relist after the pod's last sync: the kill starts at once
        pods.delete("timed", 30);

        List<Event> events = pods.eventsOf("timed", SANDBOX_REMOVED, WAIT);
        Event deletion = events.stream()
                .filter(e -> e.is(DELETION_REQUESTED))
                .findFirst()
                .orElseThrow();
        assertTrue(
                Duration.between(
                                        deletion.time(),
                                        first(events, STOP_CONTAINER_REQUESTED, null)
                                                .time())
                                .toMillis()
                        < 500,
                "no wait before the kill of a pod synced more than a relist ago");
        Event stopped = first(events, SANDBOX_STOPPED, null);
        Event terminated = first(events, POD_TERMINATED, null);
        long relistWait = Duration.between(stopped.time(), terminated.time()).toMillis();
        assertTrue(relistWait > 0 && relistWait <= 1300, "PodTerminated at the next relist: " + relistWait + " ms");
        Event terminal = events.stream()
                .filter(e -> e.is(POD_STATUS_UPDATED)
                        && List.of("Succeeded", "Failed")
                                .contains(e.data()
                                        .path("object")
                                        .path("status")
                                        .path("phase")
                                        .asText()))
                .findFirst()
                .orElseThrow();
        assertTrue(terminal.time().isBefore(first(events, OBJECT_REMOVED, null).time()));
        long gcWait = Duration.between(
                        first(events, OBJECT_REMOVED, null).time(),
                        first(events, SANDBOX_REMOVED, null).time())
                .toMillis();
        assertTrue(gcWait > 0 && gcWait <= 5500, "the sandbox removed at the GC's next run: " + gcWait + " ms");

        List<Event> topic = ScenarioReplay.topic(suite, TOPIC, dir);
        Instant since = ScenarioReplay.since(topic, mark);
        ScenarioReplay.assertReproduces("kubelet-timing", ScenarioReplay.scenario(topic, since), since);
    }

    /** The kubelet registered its node with its waits, for a replay to read. */
    @Test
    void theNodeSaysWhatTheKubeletWaitsFor() {
        try (EventLog log = new EventLog(suite.bootstrapServers(), TOPIC)) {
            Event node = log
                    .readUntil(
                            all -> all.stream()
                                    .anyMatch(e -> e.is(OBJECT_CREATED) && "nodes/node-1".equals(e.subject())),
                            WAIT)
                    .stream()
                    .filter(e -> e.is(OBJECT_CREATED) && "nodes/node-1".equals(e.subject()))
                    .findFirst()
                    .orElseThrow();
            assertEquals(
                    "pleg-relist-period=1s,container-gc-period=5s",
                    node.data()
                            .path("object")
                            .path("metadata")
                            .path("annotations")
                            .path("podfall.io/kubelet-timing")
                            .asText());
        }
    }
}
