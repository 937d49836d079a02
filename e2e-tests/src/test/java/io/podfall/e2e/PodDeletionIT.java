package io.podfall.e2e;

import static io.podfall.model.event.EventTypes.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.analysis.Timeline;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.log.EventLog;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.cli.scenario.PodDeletion;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The walking skeleton end to end: a real Kafka broker and the four services as separate processes; a pod is created
 * and deleted over HTTP, and the deletion is read back from the topic as one causal chain.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class PodDeletionIT {
    private static final String TOPIC = SuiteExtension.TOPIC;
    private static Suite suite;
    private static ApiClient api;
    /** The log as last read by {@link #deletionOf}. */
    private static List<Event> log;

    @BeforeAll
    static void clients(Suite running) {
        suite = running;
        api = new ApiClient(suite.apiserverUrl());
    }

    @Test
    void gracefulDeletionIsOneCausalChainOnTheLogSharingTheRequestsCorrelationId() {
        new PodDeletion(api, System.out)
                .run("default", "web-1", 5, Map.of("podfall.io/exit-delay-seconds", "0.5"), Duration.ofSeconds(60));

        Timeline flow = deletionOf("default", "web-1");
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
                flow.types());

        List<Event> events = flowEvents(flow);
        assertCausalOrder(events);
        Event signal = only(events, CONTAINER_SIGNALLED);
        assertEquals("SIGTERM", signal.data().path("signal").asText());
        Event exit = only(events, CONTAINER_EXITED);
        assertEquals(143, exit.data().path("exitCode").asInt(), "the process exited on SIGTERM: 128+15");
        Event finalDelete =
                events.stream().filter(e -> e.is(DELETION_REQUESTED)).toList().get(1);
        assertTrue(finalDelete.source().startsWith("/kubelet/"), "the kubelet sends the final delete");
        JsonNode options = finalDelete.data().path("options");
        assertEquals(0, options.path("gracePeriodSeconds").asInt());
        List<Event> markings =
                events.stream().filter(e -> e.is(OBJECT_MARKED_TERMINATING)).toList();
        assertEquals(
                markings.get(0)
                        .data()
                        .path("object")
                        .path("metadata")
                        .path("uid")
                        .asText(),
                options.path("preconditions").path("uid").asText(),
                "the final delete has a UID precondition");
        assertEquals(
                5,
                only(events, POD_TERMINATION_STARTED)
                        .data()
                        .path("gracePeriodSeconds")
                        .asInt());
        // The final delete is two facts, as upstream's store writes the grace-0 state, then deletes it.
        Event graceZero = markings.get(1);
        Event removed = only(events, OBJECT_REMOVED);
        assertEquals(finalDelete.id(), graceZero.causationId());
        assertEquals(finalDelete.id(), removed.causationId());
        JsonNode zeroMeta = graceZero.data().path("object").path("metadata");
        assertEquals(0, zeroMeta.path("deletionGracePeriodSeconds").asInt());
        assertEquals(
                Instant.parse(markings.get(0)
                                .data()
                                .path("object")
                                .path("metadata")
                                .path("deletionTimestamp")
                                .asText())
                        .minusSeconds(5),
                Instant.parse(zeroMeta.path("deletionTimestamp").asText()),
                "the deadline moves earlier by the whole grace period");
        JsonNode removedMeta = removed.data().path("object").path("metadata");
        assertEquals(0, removedMeta.path("deletionGracePeriodSeconds").asInt(), "the removal carries grace 0");
        assertEquals(
                zeroMeta.path("resourceVersion").asLong() + 1,
                removedMeta.path("resourceVersion").asLong(),
                "the removal is the next revision");
    }

    @Test
    void aWatchSeesTheFinalDeletesGraceZeroAsModifiedBeforeDeleted() {
        try (Watched watch = new Watched(suite.apiserverUrl(), "/api/v1/namespaces/default/pods")) {
            new PodDeletion(api, System.out).run("default", "watched", 1, Map.of(), Duration.ofSeconds(60));

            List<Watched.Change> changes = changesUntilDeleted(watch, "default/watched");
            Watched.Change deleted = changes.get(changes.size() - 1);
            Watched.Change before = changes.get(changes.size() - 2);
            assertEquals("MODIFIED", before.type(), changes.toString());
            assertEquals(0L, before.deletionGracePeriodSeconds(), "the kubelet's grace 0, stored: " + changes);
            assertEquals(0L, deleted.deletionGracePeriodSeconds(), changes.toString());
            assertEquals(
                    Long.parseLong(before.object().resourceVersion()) + 1,
                    Long.parseLong(deleted.object().resourceVersion()),
                    changes.toString());
            assertTrue(
                    changes.subList(0, changes.size() - 2).stream()
                            .anyMatch(c -> c.type().equals("MODIFIED")
                                    && Long.valueOf(1).equals(c.deletionGracePeriodSeconds())),
                    "the graceful marking (grace 1) came before: " + changes);
        }
    }

    /** The watch's changes of one pod, once it has served its DELETED. */
    private static List<Watched.Change> changesUntilDeleted(Watched watch, String key) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            List<Watched.Change> of =
                    watch.changes().stream().filter(c -> c.key().equals(key)).toList();
            if (!of.isEmpty() && of.get(of.size() - 1).type().equals("DELETED")) {
                return of;
            }
            assertTrue(System.nanoTime() < deadline, "no DELETED of " + key + " within 30 s: " + of);
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    @Test
    void aProcessThatIgnoresSigtermIsKilledWhenTheGracePeriodEnds() {
        new PodDeletion(api, System.out)
                .run("default", "stubborn", 2, Map.of("podfall.io/on-sigterm", "ignore"), Duration.ofSeconds(60));

        List<Event> events = flowEvents(deletionOf("default", "stubborn"));
        List<Event> signals =
                events.stream().filter(e -> e.is(CONTAINER_SIGNALLED)).toList();
        assertEquals(
                List.of("SIGTERM", "SIGKILL"),
                signals.stream().map(e -> e.data().path("signal").asText()).toList());
        // The runtime counts the timeout from the StopContainer request, as containerd does from the CRI call.
        assertEquals(
                2,
                Duration.between(
                                only(events, STOP_CONTAINER_REQUESTED).time(),
                                signals.get(1).time())
                        .toSeconds(),
                "SIGKILL when the grace period has run out, in simulated time");
        assertEquals(137, only(events, CONTAINER_EXITED).data().path("exitCode").asInt(), "killed: 128+9");
    }

    @Test
    void aRestartedApiServerRebuildsItsStateFromTheLogAndTheFlowGoesOn() {
        PodDeletion scenario = new PodDeletion(api, System.out);
        JsonNode before = scenario.createRunning("default", "survivor", Map.of(), Duration.ofSeconds(60));

        suite.restart("apiserver-svc");

        ApiClient.Response after = api.get("/api/v1/namespaces/default/pods/survivor");
        assertEquals(200, after.code());
        assertEquals(before.path("metadata"), after.body().path("metadata"), "same uid, resourceVersion, timestamps");
        assertEquals(before.path("status"), after.body().path("status"));
        scenario.deleteAndAwaitGone("default", "survivor", 1, Duration.ofSeconds(60));
        assertEquals(
                List.of(DELETION_REQUESTED, OBJECT_MARKED_TERMINATING),
                deletionOf("default", "survivor").types().subList(0, 2));
    }

    @Test
    void listingPodsAnswersAKubernetesPodList() {
        ApiClient.Response list = api.get("/api/v1/namespaces/default/pods");
        assertEquals(200, list.code());
        assertEquals("PodList", list.body().path("kind").asText());
        assertEquals("v1", list.body().path("apiVersion").asText());
        assertTrue(list.body().path("items").isArray());
        assertTrue(list.body().path("metadata").path("resourceVersion").isTextual());
    }

    private static Timeline deletionOf(String namespace, String name) {
        String subject = Subjects.of(namespace, "pods", name);
        try (EventLog events = new EventLog(suite.bootstrapServers(), TOPIC)) {
            log = events.readUntil(
                    all -> all.stream().anyMatch(e -> e.is(SANDBOX_REMOVED) && subject.equals(e.subject())),
                    Duration.ofSeconds(30));
        }
        String correlation = Timeline.latestDeletion(log, subject).orElseThrow();
        return Timeline.of(log, correlation);
    }

    private static List<Event> flowEvents(Timeline flow) {
        return log.stream()
                .filter(e -> e.correlationId().equals(flow.correlationId()))
                .toList();
    }

    /** Every event reacts to one that came before it in the same flow; only the request has no cause. */
    private static void assertCausalOrder(List<Event> flow) {
        Set<String> seen = new HashSet<>();
        for (Event e : flow) {
            if (e.causationId() == null) {
                assertEquals(EventTypes.DELETION_REQUESTED, e.type());
                assertEquals(e.id(), e.correlationId(), "the request's id is the flow's correlation id");
            } else {
                assertTrue(
                        seen.contains(e.causationId()), e.type() + " " + e.id() + " reacts to an event not before it");
            }
            seen.add(e.id());
        }
    }

    private static Event only(List<Event> events, String type) {
        List<Event> of = events.stream().filter(e -> e.is(type)).toList();
        assertEquals(1, of.size(), "exactly one " + type);
        return of.get(0);
    }
}
