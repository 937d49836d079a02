package io.podfall.replay;

import static io.podfall.model.event.EventTypes.*;
import static io.podfall.replay.Scenarios.T0;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.kubelet.podworkers.Compat;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCodec;
import io.podfall.model.event.Subjects;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EngineTest {

    @Test
    void twoRunsOfTheSameInputsAppendTheSameLogByteForByte() {
        Engine first = Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted());
        Engine second = Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted());

        assertTrue(
                first.log().stream().filter(e -> e.is(SANDBOX_REMOVED)).count() == 2, "both pods went the whole way");
        assertArrayEquals(bytes(first.log()), bytes(second.log()));
    }

    @Test
    void theSuitesStartIsDoneAsTheServicesDoItOnceCaughtUp() {
        Engine engine = Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted());

        List<Event> uncaused =
                engine.log().stream().filter(e -> e.causationId() == null).toList();
        assertEquals(
                List.of(
                        "namespaces/default",
                        "namespaces/kube-system",
                        "namespaces/kube-public",
                        "namespaces/kube-node-lease",
                        "nodes/node-1"),
                uncaused.subList(0, 5).stream().map(Event::subject).toList(),
                "the system namespaces, then the node");
        assertEquals(T0.plusMillis(40), uncaused.get(4).time(), "the kubelet registers when it starts");
        assertEquals("/kubelet/node-1", uncaused.get(4).source());
        assertTrue(engine.apiServer()
                        .list(io.podfall.model.k8s.ResourceType.NODES, null)
                        .size()
                == 1);
    }

    /**
     * Recorded by a suite whose kubelet was up first: it registered its node 0.6 s before the API server started. The
     * API server reads the registration only once up, after its own start: the Lease the kubelet asks for once its Node
     * is stored finds {@code kube-node-lease} there, as live.
     */
    @Test
    void aServiceStartedLaterHandlesWhatCameBeforeItsStartOnlyThen() {
        Engine engine = Scenarios.run(
                Scenarios.node1(),
                List.of(new Input.KubeletStart(0, T0), new Input.ApiServerStart(T0.plusMillis(600))));

        Event registered = engine.log().stream()
                .filter(e -> e.is(OBJECT_CREATED) && e.subject().equals("nodes/node-1"))
                .findFirst()
                .orElseThrow();
        assertEquals(T0.plusMillis(600), registered.time(), "stored when the API server started, not before");
        assertEquals(
                List.of(),
                engine.log().stream()
                        .filter(e -> e.is(REQUEST_REJECTED))
                        .map(e -> e.subject())
                        .toList());
        assertEquals(
                1,
                engine.apiServer()
                        .list(io.podfall.model.k8s.ResourceType.LEASES, "kube-node-lease")
                        .size(),
                "node-1's Lease stored");
    }

    @Test
    void aDeletionRunsItsWholeFlowWithEveryWaitInSimulatedTime() {
        Engine engine = Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted());
        List<Event> graceful = flowOf(engine.log(), "00000000-0000-4000-8000-000000000003");
        List<Event> stubborn = flowOf(engine.log(), "00000000-0000-4000-8000-000000000004");

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
                graceful.stream()
                        .filter(e -> e.subject().endsWith("/pods/graceful"))
                        .map(Event::type)
                        .toList());
        assertEquals(
                Duration.ofMillis(500),
                between(graceful, CONTAINER_SIGNALLED, CONTAINER_EXITED),
                "the process exits 0.5 s after SIGTERM");
        List<Event> signals =
                stubborn.stream().filter(e -> e.is(CONTAINER_SIGNALLED)).toList();
        assertEquals(
                List.of("SIGTERM", "SIGKILL"),
                signals.stream().map(e -> e.data().path("signal").asText()).toList());
        assertEquals(
                Duration.ofSeconds(5),
                Duration.between(
                        first(stubborn, STOP_CONTAINER_REQUESTED).time(),
                        signals.get(1).time()),
                "SIGKILL when the 5 s from StopContainer ran out");
        assertEquals(
                T0.plusSeconds(10).plusMillis(1),
                first(stubborn, DELETION_REQUESTED).time());
    }

    @Test
    void aCompatSwitchChangesWhatTheKubeletDecides() {
        List<Input> forceDelete = List.of(
                new Input.ApiServerStart(T0),
                new Input.KubeletStart(0, T0),
                Scenarios.create(1, T0.plusSeconds(1), "stubborn", "podfall.io/on-sigterm", "ignore"),
                Scenarios.delete(2, T0.plusSeconds(10), "stubborn", 0));
        Engine fixed = Scenarios.run(Scenarios.node1(), forceDelete);
        Engine old = Scenarios.run(
                List.of(new Engine.KubeletSettings(List.of("node-1"), new Compat(false, true))), forceDelete);

        assertEquals(
                Duration.ofSeconds(2),
                killAfterStop(fixed),
                "a force delete gets the minimum grace period at the node");
        assertEquals(Duration.ofSeconds(30), killAfterStop(old), "the spec's 30 s under force-delete-uses-spec-grace");
    }

    /**
     * A recorded fact whose data does not read as its type (a damaged record) is skipped by every core that cannot read
     * it, as each service dead-letters it, and named; folding goes on and the state the rest leads to is kept.
     */
    @Test
    void aFactWhoseDataDoesNotReadIsSkippedByEachCoreAndNamed() {
        List<Event> recorded =
                Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log();
        Event created = recorded.stream()
                .filter(e -> e.is(OBJECT_CREATED) && e.subject().equals(subject("graceful")))
                .findFirst()
                .orElseThrow();
        Event damaged = new Event(
                "00000000-0000-3000-8000-00000000000d",
                created.source(),
                OBJECT_UPDATED,
                created.subject(),
                created.time(),
                created.correlationId(),
                created.id(),
                created.traceparent(),
                io.podfall.model.Json.MAPPER
                        .createObjectNode()
                        .put("object", "not an object")
                        .set(
                                "resource",
                                io.podfall.model.Json.MAPPER.createArrayNode().add("pods")));
        Engine engine = new Engine(Scenarios.node1());

        for (Event e : recorded) {
            engine.fold(e);
            if (e == created) {
                engine.fold(damaged);
            }
        }

        assertTrue(
                engine.skipped()
                        .get(0)
                        .startsWith(
                                "controller manager skipped apiserver.ObjectUpdated " + subject("graceful")
                                        + " 00000000-0000-3000-8000-00000000000d: data of apiserver.ObjectUpdated does not match its schema"),
                engine.skipped().toString());
        assertTrue(
                engine.skipped().stream().anyMatch(s -> s.startsWith("kubelet node-1 skipped ")),
                engine.skipped().toString());
        assertTrue(
                engine.apiServer()
                        .list(io.podfall.model.k8s.ResourceType.PODS, null)
                        .isEmpty(),
                "both pods' deletions folded to the end");
        assertTrue(engine.runtime().of(io.podfall.runtime.cri.RuntimeState.class).sandboxes().values().stream()
                .allMatch(java.util.Collection::isEmpty));
    }

    private static Duration killAfterStop(Engine engine) {
        Event kill = engine.log().stream()
                .filter(e -> e.is(CONTAINER_SIGNALLED)
                        && "SIGKILL".equals(e.data().path("signal").asText()))
                .findFirst()
                .orElseThrow();
        return Duration.between(first(engine.log(), STOP_CONTAINER_REQUESTED).time(), kill.time());
    }

    static List<Event> flowOf(List<Event> log, String correlationId) {
        return log.stream().filter(e -> e.correlationId().equals(correlationId)).toList();
    }

    private static Event first(List<Event> events, String type) {
        return events.stream().filter(e -> e.is(type)).findFirst().orElseThrow();
    }

    private static Duration between(List<Event> events, String from, String to) {
        return Duration.between(first(events, from).time(), first(events, to).time());
    }

    /** The log as the topic would hold it: every record's headers and value. */
    private static byte[] bytes(List<Event> log) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Event e : log) {
            for (Map.Entry<String, byte[]> h : EventCodec.headers(e)) {
                out.writeBytes(h.getKey().getBytes(StandardCharsets.UTF_8));
                out.writeBytes(h.getValue());
            }
            out.writeBytes(EventCodec.value(e));
            out.write('\n');
        }
        return out.toByteArray();
    }

    static String subject(String pod) {
        return Subjects.of("default", "pods", pod);
    }
}
