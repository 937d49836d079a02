package io.podfall.e2e;

import static io.podfall.model.event.EventTypes.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.ServiceProcess;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.log.EventLog;
import io.podfall.cli.log.TopicWriter;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.Subjects;
import io.podfall.model.runtime.ContainerRef;
import io.podfall.model.runtime.RunPodSandbox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The node's services go down while a pod terminates. Each rebuilds its state from the log when it comes back (its
 * effects held back until it has caught up, so nothing already on the log is done twice), and the termination goes on
 * from where the log says it is: the kubelet still deletes the pod at the end, the runtime still kills at the deadline,
 * because its kill timer is rebuilt from the StopContainer request on the log. A kubelet that is down does nothing at
 * all: its pods stay Terminating until it is back.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class NodeRestartIT {
    private static final List<String> CONTAINERS = List.of("app", "sidecar");
    private static Suite suite;
    private static SuiteClient pods;

    @BeforeAll
    static void clients(Suite running) {
        suite = running;
        pods = new SuiteClient(running);
    }

    @Test
    void aKubeletRestartedWhileAPodTerminatesCompletesTheTerminationOnce() {
        String name = "kubelet-restart";
        pods.createRunning(stubborn(name));
        pods.delete(name, 6);
        awaitOnLog(name, e -> e.is(CONTAINER_SIGNALLED));

        suite.restart("kubelet-svc");

        assertTerminatedOnce(name, pods.eventsOf(name, SANDBOX_REMOVED, Duration.ofSeconds(90)));
        restartAndCheckNothingIsDoneAgain("kubelet-svc", name);
    }

    @Test
    void aRuntimeRestartedWhileAPodTerminatesStillKillsAtTheDeadline() {
        String name = "runtime-restart";
        pods.createRunning(stubborn(name));
        // Long enough for the runtime to be back before the deadline: its kill must then come at the deadline,
        // from the timer it rebuilt, not from anything else that happens to wake it.
        pods.delete(name, 20);
        awaitOnLog(name, e -> e.is(CONTAINER_SIGNALLED));

        suite.restart("runtime-svc");

        List<Event> events = pods.eventsOf(name, SANDBOX_REMOVED, Duration.ofSeconds(90));
        assertTerminatedOnce(name, events);
        long killedAfter = Duration.between(
                        first(events, DELETION_REQUESTED).time(),
                        events.stream()
                                .filter(e -> isSignal(e, "SIGKILL"))
                                .findFirst()
                                .orElseThrow()
                                .time())
                .toSeconds();
        assertTrue(killedAfter >= 19 && killedAfter <= 21, "killed when the 20 s ran out: after " + killedAfter + " s");
    }

    /**
     * The runtime's kill timer rebuilt after the kill fired is the same timer (due at the request's time plus the
     * timeout), so the kill it fires again during the rebuild is recognised on the log and not appended twice.
     */
    @Test
    void aRuntimeRestartedAfterAKillAppendsNothingAgain() {
        String name = "killed-before-restart";
        pods.createRunning(stubborn(name));
        pods.delete(name, 1);
        pods.eventsOf(name, SANDBOX_REMOVED, Duration.ofSeconds(90));

        restartAndCheckNothingIsDoneAgain("runtime-svc", name);
    }

    @Test
    void aPodOfAKubeletThatIsDownStaysTerminatingUntilTheKubeletIsBack() throws InterruptedException {
        String name = "unattended";
        pods.createRunning(new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build());
        stopKubelet();
        pods.delete(name, 1);
        Thread.sleep(4000); // well past the grace period

        var pod = pods.api.get("/api/v1/namespaces/default/pods/" + name);
        assertEquals(200, pod.code(), "nobody deletes it while its kubelet is down");
        assertTrue(pod.body().path("metadata").has("deletionTimestamp"), "it stays Terminating");
        String subject = Subjects.of("default", "pods", name);
        try (EventLog log = new EventLog(suite.bootstrapServers(), SuiteExtension.TOPIC)) {
            List<Event> sofar = log.readToEnd(Duration.ofSeconds(10)).stream()
                    .filter(e -> subject.equals(e.subject()))
                    .toList();
            assertEquals(
                    0,
                    sofar.stream()
                            .filter(e -> e.source().startsWith("/kubelet/")
                                    && (e.is(POD_TERMINATION_STARTED)
                                            || e.is(STOP_CONTAINER_REQUESTED)
                                            || e.is(DELETION_REQUESTED)))
                            .count(),
                    "no kubelet acted on the deletion: " + types(sofar));
            assertEquals(
                    0, sofar.stream().filter(e -> e.is(CONTAINER_SIGNALLED)).count(), "the container still runs");
        }

        suite.restart("kubelet-svc");

        List<Event> events = pods.eventsOf(name, SANDBOX_REMOVED, Duration.ofSeconds(90));
        assertEquals(1, count(events, POD_TERMINATION_STARTED), types(events));
        assertEquals(1, count(events, OBJECT_REMOVED), types(events));
        assertEquals(1, events.stream().filter(e -> isSignal(e, "SIGTERM")).count(), types(events));
        assertEquals(
                404,
                pods.api.get("/api/v1/namespaces/default/pods/" + name).code(),
                "deleted once the kubelet was back");
    }

    /**
     * A pod only the runtime runs (a sandbox and a container a lost kubelet incarnation asked for, never an API
     * object): the kubelet's housekeeping finds it, records it and tears it down, and the API server never hears of it.
     */
    @Test
    void aPodOnlyTheRuntimeRunsIsFoundByHousekeepingAndTornDown() {
        String name = "lost";
        String subject = Subjects.of("default", "pods", name);
        Instant now = Instant.now();
        RunPodSandbox sandbox = new RunPodSandbox(
                "node-1",
                "uid-lost",
                "default",
                name,
                List.of(new RunPodSandbox.ContainerSpec("app", "nginx")),
                Map.of());
        try (TopicWriter writer = new TopicWriter(suite.bootstrapServers(), SuiteExtension.TOPIC)) {
            writer.append(List.of(
                    Event.request(
                            "lost-sandbox", "/kubelet/node-1", RUN_POD_SANDBOX_REQUESTED, subject, now, null, sandbox),
                    Event.request(
                            "lost-container",
                            "/kubelet/node-1",
                            START_CONTAINER_REQUESTED,
                            subject,
                            now,
                            null,
                            new ContainerRef("node-1", "uid-lost", "app", 0))));
        }

        List<Event> events = pods.eventsOf(name, SANDBOX_REMOVED, Duration.ofSeconds(90));
        Event found = events.stream()
                .filter(e -> e.is(ORPHANED_POD_FOUND))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no OrphanedPodFound: " + types(events)));
        assertEquals(List.of("app"), Json.MAPPER.convertValue(found.data().path("runningContainers"), List.class));
        assertEquals(1, events.stream().filter(e -> isSignal(e, "SIGTERM")).count(), types(events));
        assertEquals(1, count(events, SANDBOX_STOPPED), types(events));
        assertEquals(
                0, events.stream().filter(e -> e.source().equals("/apiserver")).count(), "no API object, ever");
        assertEquals(
                404, pods.api.get("/api/v1/namespaces/default/pods/" + name).code());
    }

    /**
     * Started or restarted, each service maps the AppCDS archive its build wrote (ServiceProcess): a JVM that cannot
     * map it, from another directory or another JVM, warns and starts some seconds slower on this machine.
     */
    @Test
    void everyServiceLoadsItsClassesFromItsBuildsArchive() throws IOException {
        for (ServiceProcess service : suite.services()) {
            Path app = Path.of(System.getProperty("podfall.project.root", ".."), service.name(), "target/quarkus-app");
            assertTrue(
                    Files.isRegularFile(app.resolve("app-cds.jsa")),
                    "the build wrote no archive for " + service.name());
            List<String> warnings = Files.readAllLines(service.log()).stream()
                    .filter(l -> l.contains("[cds"))
                    .toList();
            assertEquals(List.of(), warnings, service.name());
        }
    }

    /** Stops the kubelet's process as a node going down would (SIGTERM); {@link Suite#restart} starts it again. */
    private static void stopKubelet() {
        ProcessHandle.of(suite.service("kubelet-svc").pid()).ifPresent(p -> {
            p.destroy();
            try {
                p.onExit().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError("the kubelet did not stop", e);
            }
        });
    }

    /** A pod of two containers whose processes ignore SIGTERM, so only the kill at the deadline ends them. */
    private static Pod stubborn(String name) {
        PodBuilder b = new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .addToAnnotations("podfall.io/on-sigterm", "ignore")
                .endMetadata()
                .withNewSpec()
                .endSpec();
        CONTAINERS.forEach(c -> b.editSpec()
                .addNewContainer()
                .withName(c)
                .withImage("nginx")
                .endContainer()
                .endSpec());
        return b.build();
    }

    /**
     * One of each side effect: one termination, one StopContainer and one SIGTERM per container, then the kill at the
     * deadline, one sandbox stop, one final delete, one removal.
     */
    private static void assertTerminatedOnce(String name, List<Event> events) {
        String all = types(events);
        assertEquals(1, count(events, POD_TERMINATION_STARTED), all);
        for (String c : CONTAINERS) {
            assertEquals(
                    1,
                    events.stream()
                            .filter(e -> e.is(STOP_CONTAINER_REQUESTED)
                                    && c.equals(e.data().path("containerName").asText()))
                            .count(),
                    "StopContainer of " + c + ": " + all);
            assertEquals(
                    1,
                    events.stream()
                            .filter(e -> isSignal(e, "SIGTERM")
                                    && c.equals(e.data().path("containerName").asText()))
                            .count(),
                    "SIGTERM to " + c + ": " + all);
            assertEquals(
                    1,
                    events.stream()
                            .filter(e -> isSignal(e, "SIGKILL")
                                    && c.equals(e.data().path("containerName").asText()))
                            .count(),
                    "SIGKILL to " + c + ": " + all);
        }
        assertEquals(CONTAINERS.size(), count(events, CONTAINER_EXITED), all);
        assertTrue(
                events.stream()
                        .filter(e -> e.is(CONTAINER_EXITED))
                        .allMatch(e -> e.data().path("exitCode").asInt() == 137),
                "killed: " + all);
        assertEquals(1, count(events, STOP_POD_SANDBOX_REQUESTED), all);
        assertEquals(1, count(events, POD_TERMINATED), all);
        assertEquals(
                1,
                events.stream()
                        .filter(e -> e.is(DELETION_REQUESTED) && e.source().startsWith("/kubelet/"))
                        .count(),
                "one final delete: " + all);
        assertEquals(1, count(events, OBJECT_REMOVED), all);
        assertEquals(1, count(events, REMOVE_POD_SANDBOX_REQUESTED), all);
        assertEquals(1, count(events, SANDBOX_REMOVED), all);
        assertEquals(
                404, pods.api.get("/api/v1/namespaces/default/pods/" + name).code());
    }

    /**
     * A service restarted after the pod is gone rebuilds the whole deletion from the log: every effect it decides again
     * is already there, so it appends nothing about the pod (a timer rebuilt at another instant would).
     */
    private static void restartAndCheckNothingIsDoneAgain(String service, String name) {
        int before = pods.eventsOf(name).size();
        suite.restart(service);
        // A marker deletion after the restart: once its flow is on the log, so is anything appended at catch-up.
        String marker = name + "-after";
        pods.createRunning(new PodBuilder()
                .withNewMetadata()
                .withName(marker)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build());
        pods.delete(marker, 1);
        pods.eventsOf(marker, SANDBOX_REMOVED, Duration.ofSeconds(90));
        List<Event> after = pods.eventsOf(name);
        assertEquals(
                before, after.size(), service + " restarted appended again: " + after.subList(before, after.size()));
    }

    private static void awaitOnLog(String name, Predicate<Event> what) {
        String subject = Subjects.of("default", "pods", name);
        try (EventLog log = new EventLog(suite.bootstrapServers(), SuiteExtension.TOPIC)) {
            log.readUntil(
                    all -> all.stream().anyMatch(e -> subject.equals(e.subject()) && what.test(e)),
                    Duration.ofSeconds(30));
        }
    }

    private static Event first(List<Event> events, String type) {
        return events.stream().filter(e -> e.is(type)).findFirst().orElseThrow(() -> new AssertionError("no " + type));
    }

    private static boolean isSignal(Event e, String signal) {
        return e.is(CONTAINER_SIGNALLED)
                && signal.equals(e.data().path("signal").asText());
    }

    private static long count(List<Event> events, String type) {
        return events.stream().filter(e -> e.is(type)).count();
    }

    private static String types(List<Event> events) {
        return events.stream()
                .map(e -> e.type() + "(" + e.source() + ")")
                .toList()
                .toString();
    }
}
