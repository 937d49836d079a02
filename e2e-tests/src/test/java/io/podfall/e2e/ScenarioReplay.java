package io.podfall.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.cli.Podfall;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.log.EventFile;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCatalogue;
import io.podfall.replay.Input;
import io.podfall.replay.Recording;
import io.podfall.replay.Replay;
import io.podfall.replay.ReplayReport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A scenario run through the suite over Kafka, exported and replayed in process (the equivalence tests).
 *
 * <p>The suite is shared by every end-to-end class, so its topic holds what other classes did too (a kubelet restarted
 * with compatibility switches, say). The recording replayed is a scenario's: the flows of the suite's start (the system
 * namespaces, the node's registration, the periodic work of the services) and the flows of the scenario's own client
 * requests, those from its first on. It is replayed from that first request on, or from a later one when its setup is
 * not what it tests ({@code --since}), from the state the rest left: a service's first seconds are not the cores'
 * timing but the JVM's and the consumer group's (the API server reads its own first requests back seconds after it
 * wrote them), which no replay reproduces, so the test classes warm the services up first.
 */
final class ScenarioReplay {
    /**
     * Per hop, the live services take milliseconds (a consumer's poll, the producer's batching) where the engine takes
     * none; a slow moment of a loaded 2-CPU machine can take 300 ms. Still below the scenarios' shortest wait (0.5 s).
     * {@code -Dpodfall.e2e.replay-tolerance=PT1S} widens it on a machine so loaded that a hop takes longer.
     */
    static final Duration TOLERANCE = Duration.parse(System.getProperty("podfall.e2e.replay-tolerance", "PT0.4S"));
    /** Where each scenario's recording is kept, to replay it again by hand after a failure. */
    private static final Path KEPT = Path.of("target", "replay-scenarios");

    private ScenarioReplay() {}

    /** A suite of a test class's own, on a {@code topic} of its own on the shared broker, at time scale 1. */
    static Suite start(String bootstrap, String topic, Suite.Tuning tuning) throws IOException {
        return Suite.start(
                new Suite.Options(
                        Path.of(System.getProperty("podfall.project.root", "..")),
                        Files.createTempDirectory("podfall-e2e-" + topic + "-"),
                        bootstrap,
                        0,
                        0,
                        0,
                        topic,
                        1.0,
                        Duration.ofSeconds(120)),
                Suite.Tuning.FAST_KUBELET.with(tuning.settings()));
    }

    /** The shared suite's whole topic, exported with {@code podfall export}. */
    static List<Event> topic(Suite suite, Path dir) throws InterruptedException {
        return topic(suite, SuiteExtension.TOPIC, dir);
    }

    /**
     * A suite's whole topic {@code name}, exported with {@code podfall export} once no request of its last second waits
     * for its answer (up to a second more). The periodic work goes on while a test exports: a Lease renewal appended
     * just before the export, its answer just after, is a request the replay answers and the recording does not (an
     * EXTRA seen once in CI).
     */
    static List<Event> topic(Suite suite, String name, Path dir) throws InterruptedException {
        List<Event> events = export(suite, name, dir);
        for (int tries = 0; tries < 10 && awaitsAnswer(events); tries++) {
            Thread.sleep(100);
            events = export(suite, name, dir);
        }
        return events;
    }

    private static List<Event> export(Suite suite, String name, Path dir) {
        Path topic = dir.resolve("topic-" + System.nanoTime() + ".jsonl");
        assertEquals(
                0,
                Podfall.commandLine()
                        .execute(
                                "export",
                                "--bootstrap",
                                suite.bootstrapServers(),
                                "--topic",
                                name,
                                "--output",
                                topic.toString()));
        return EventFile.read(topic).events();
    }

    /** Whether a request of the log's last second has no event caused by it yet. */
    private static boolean awaitsAnswer(List<Event> events) {
        Instant lastSecond = Replay.end(events).minusSeconds(1);
        Set<String> answered = events.stream().map(Event::causationId).collect(Collectors.toSet());
        return events.stream()
                .anyMatch(e -> EventCatalogue.isRequest(e.type())
                        && !e.time().isBefore(lastSecond)
                        && !answered.contains(e.id()));
    }

    /** The time of the first client request that {@code ours} selects: where a scenario (or its replay) starts. */
    static Instant since(List<Event> topic, Predicate<Event> ours) {
        return clientRequests(topic)
                .filter(ours)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no request of the scenario"))
                .time();
    }

    /** The first client request from {@code mark} on (a wall-clock instant: the suite's simulated time at scale 1). */
    static Instant since(List<Event> topic, Instant mark) {
        return since(topic, e -> !e.time().isBefore(mark));
    }

    /**
     * The suite's start and the flows of the client requests from {@code since} on: everything but earlier clients'
     * flows.
     */
    static List<Event> scenario(List<Event> topic, Instant since) {
        Set<String> otherClients = clientRequests(topic)
                .filter(e -> e.time().isBefore(since))
                .map(Event::id)
                .collect(Collectors.toSet());
        return topic.stream()
                .filter(e -> !otherClients.contains(e.correlationId()))
                .toList();
    }

    private static java.util.stream.Stream<Event> clientRequests(List<Event> topic) {
        return Recording.of(topic).inputs().stream()
                .filter(i -> i instanceof Input.Request)
                .map(i -> ((Input.Request) i).event());
    }

    /** Writes the events as an export, under target/replay-scenarios/{@code name}.jsonl. */
    static Path file(String name, List<Event> events) {
        try {
            Files.createDirectories(KEPT);
            Path file = KEPT.resolve(name + ".jsonl");
            try (Writer w = Files.newBufferedWriter(file)) {
                EventFile.write(w, events);
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Replays the scenario in process from {@code since} and asserts no divergence at {@link #TOLERANCE}. */
    static Replay assertReproduces(String name, List<Event> scenario, Instant since) {
        file(name, scenario);
        Replay replay = Replay.of(scenario, since, Replay.end(scenario), TOLERANCE);
        String report = ReplayReport.text(replay);
        System.out.print(name + ": " + report);
        assertTrue(
                replay.reproduces(),
                name + " (replay: podfall replay target/replay-scenarios/" + name + ".jsonl --since " + since
                        + " --tolerance " + TOLERANCE.toMillis() + "ms)\n" + report);
        return replay;
    }
}
