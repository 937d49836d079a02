package io.podfall.kubelet.nodestatus;

import static io.podfall.kubelet.testing.ApiFacts.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.podfall.kubelet.testing.ApiFacts;
import io.podfall.model.Json;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeStatusSyncTest {
    private static final String NODE = "node-1";

    private final ApiFacts api = new ApiFacts();
    private final NodeStatusSync sync = new NodeStatusSync(List.of(NODE));
    private final NodeStatusState state = sync.newState();
    /** The node as the API server holds it. */
    private Node stored = InitialNode.of(NODE, T0);

    private Effects handle(Event event) {
        Effects.Builder out = Effects.of(event, event.time());
        sync.handle(state, event, out);
        return out.build();
    }

    private Effects fire(Timer timer) {
        Effects.Builder out = Effects.of(timer, timer.at());
        sync.fire(state, timer, out);
        return out.build();
    }

    /** The API server stores the node (as a client's update, at {@code at}). */
    private Effects store(Node node, Instant at) {
        stored = node;
        return handle(api.at(at).fact(EventTypes.OBJECT_UPDATED, ResourceType.NODES, node));
    }

    /** The API server applies the kubelet's status patch, merging the conditions by type, and answers. */
    private Effects apply(Event post, Instant at) {
        List<NodeCondition> conditions = new ArrayList<>(stored.getStatus().getConditions());
        for (JsonNode c : post.data(PatchRequest.class).patch().path("status").path("conditions")) {
            NodeCondition posted = Json.convert(c, NodeCondition.class);
            conditions.removeIf(x -> x.getType().equals(posted.getType()));
            conditions.add(posted);
        }
        stored = new NodeBuilder(stored)
                .editStatus()
                .withConditions(conditions)
                .endStatus()
                .build();
        return handle(api.at(at).answer(post, EventTypes.OBJECT_UPDATED, ResourceType.NODES, stored));
    }

    private static Node withPressure(Node node, String resource) {
        return new NodeBuilder(node)
                .editMetadata()
                .addToAnnotations("podfall.io/pressure", resource)
                .endMetadata()
                .build();
    }

    private static Event post(Effects effects) {
        List<Event> posts = effects.events().stream()
                .filter(e -> e.is(EventTypes.PATCH_REQUESTED))
                .toList();
        assertEquals(1, posts.size(), () -> effects.events().toString());
        return posts.get(0);
    }

    private static JsonNode condition(Event post, String type) {
        for (JsonNode c : post.data(PatchRequest.class).patch().path("status").path("conditions")) {
            if (c.path("type").asText().equals(type)) {
                return c;
            }
        }
        throw new AssertionError("no " + type + " in " + post.data());
    }

    @Test
    void aRegisteredNodeShowsWhatTheKubeletReportsSoNothingIsPostedUntilTheReportIsDue() {
        Effects created = handle(api.fact(EventTypes.OBJECT_CREATED, ResourceType.NODES, stored));

        assertTrue(created.events().isEmpty());
        assertEquals(
                List.of(new Timer(
                        new NodeStatusTimer("node-1"),
                        T0.plus(Duration.ofMinutes(5)),
                        created.timers().get(0).cause())),
                created.timers(),
                "nodeStatusReportFrequency after the last heartbeat");
    }

    @Test
    void memoryPressureBecomesTheMemoryPressureConditionAtOnceInTheFlowOfTheAnnotation() {
        handle(api.fact(EventTypes.OBJECT_CREATED, ResourceType.NODES, stored));
        Instant annotated = T0.plusSeconds(42);

        Effects effects = store(withPressure(stored, "memory"), annotated);

        Event post = post(effects);
        assertEquals("/kubelet/node-1", post.source());
        assertEquals("nodes/node-1", post.subject());
        assertEquals(api.now(), post.time());
        PatchRequest patch = post.data(PatchRequest.class);
        assertEquals(
                List.of("nodes", "node-1", "status", PatchRequest.STRATEGIC),
                List.of(patch.resource(), patch.name(), patch.subresource(), patch.patchType()));
        JsonNode memory = condition(post, "MemoryPressure");
        assertEquals("True", memory.path("status").asText());
        assertEquals("KubeletHasInsufficientMemory", memory.path("reason").asText());
        assertEquals(
                "kubelet has insufficient memory available",
                memory.path("message").asText());
        assertEquals(annotated.toString(), memory.path("lastTransitionTime").asText());
        assertEquals(annotated.toString(), memory.path("lastHeartbeatTime").asText());
        JsonNode ready = condition(post, "Ready");
        assertEquals("True", ready.path("status").asText());
        assertEquals(
                T0.toString(),
                ready.path("lastTransitionTime").asText(),
                "a condition that did not change keeps its transition");
        assertEquals(annotated.toString(), ready.path("lastHeartbeatTime").asText());
        assertEquals("False", condition(post, "DiskPressure").path("status").asText());
    }

    @Test
    void diskAndPidPressureBecomeTheirConditionsAndTheEndOfThePressureClearsThem() {
        handle(api.fact(EventTypes.OBJECT_CREATED, ResourceType.NODES, stored));

        Event disk = post(store(withPressure(stored, "ephemeral-storage"), T0.plusSeconds(1)));
        assertEquals(
                "KubeletHasDiskPressure",
                condition(disk, "DiskPressure").path("reason").asText());
        apply(disk, T0.plusSeconds(2));
        Event pid = post(store(withPressure(stored, "pid"), T0.plusSeconds(3)));
        assertEquals("True", condition(pid, "PIDPressure").path("status").asText());
        assertEquals("False", condition(pid, "DiskPressure").path("status").asText());
        apply(pid, T0.plusSeconds(4));

        Node relieved = new NodeBuilder(stored)
                .editMetadata()
                .removeFromAnnotations("podfall.io/pressure")
                .endMetadata()
                .build();
        Event cleared = post(store(relieved, T0.plusSeconds(5)));
        JsonNode pidCondition = condition(cleared, "PIDPressure");
        assertEquals("False", pidCondition.path("status").asText());
        assertEquals("KubeletHasSufficientPID", pidCondition.path("reason").asText());
        assertEquals(
                T0.plusSeconds(5).toString(),
                pidCondition.path("lastTransitionTime").asText());
    }

    @Test
    void theNodeLifecycleControllersUnknownIsAnsweredAtOnceWithReady() {
        handle(api.fact(EventTypes.OBJECT_CREATED, ResourceType.NODES, stored));
        NodeCondition unknown = new NodeConditionBuilder(
                        NodeConditions.find(stored.getStatus().getConditions(), "Ready"))
                .withStatus("Unknown")
                .withReason("NodeStatusUnknown")
                .withMessage("Kubelet stopped posting node status.")
                .build();
        List<NodeCondition> conditions = new ArrayList<>(stored.getStatus().getConditions());
        conditions.replaceAll(c -> c.getType().equals("Ready") ? unknown : c);

        Event post = post(store(
                new NodeBuilder(stored)
                        .editStatus()
                        .withConditions(conditions)
                        .endStatus()
                        .build(),
                T0.plusSeconds(60)));
        JsonNode ready = condition(post, "Ready");
        assertEquals("True", ready.path("status").asText());
        assertEquals(
                T0.plusSeconds(60).toString(), ready.path("lastTransitionTime").asText());
    }

    @Test
    void aNodeRegisteredWithoutCapacityGetsTheKubeletsMaxPodsWithTheNextPostAtOnce() {
        Node older = new NodeBuilder(stored)
                .editStatus()
                .withCapacity(null)
                .withAllocatable(null)
                .endStatus()
                .build();

        Event post = post(handle(api.fact(EventTypes.OBJECT_CREATED, ResourceType.NODES, older)));

        JsonNode status = post.data(PatchRequest.class).patch().path("status");
        assertEquals("110", status.path("capacity").path("pods").asText());
        assertEquals("110", status.path("allocatable").path("pods").asText());
        assertEquals("True", condition(post, "Ready").path("status").asText());
    }

    @Test
    void aNodeRegisteredWithAnotherCapacityGetsItsOwnWithTheNextPost() {
        NodeStatusSync small = new NodeStatusSync(
                List.of(NODE), NodeCapacity.DEFAULT.overriding(NODE, NodeCapacity.parse("cpu=1,memory=1Gi")));

        Event post = post(
                small.handle(small.newState(), api.fact(EventTypes.OBJECT_CREATED, ResourceType.NODES, stored), T0));

        JsonNode status = post.data(PatchRequest.class).patch().path("status");
        assertEquals("1", status.path("capacity").path("cpu").asText());
        assertEquals("1Gi", status.path("allocatable").path("memory").asText());
        assertEquals("110", status.path("allocatable").path("pods").asText());
    }

    @Test
    void aNodeThatAlsoReportsOtherResourcesIsNotPostedAgain() {
        Node more = new NodeBuilder(stored)
                .editStatus()
                .addToCapacity("ephemeral-storage", new Quantity("100Gi"))
                .addToAllocatable("ephemeral-storage", new Quantity("90Gi"))
                .endStatus()
                .build();

        assertTrue(handle(api.fact(EventTypes.OBJECT_CREATED, ResourceType.NODES, more))
                .events()
                .isEmpty());
    }

    @Test
    void anUnchangedStatusIsReportedEveryFiveMinutesEachReportARequestOfItsOwnKeyedByItsDueTime() {
        Event created = api.fact(EventTypes.OBJECT_CREATED, ResourceType.NODES, stored);
        Timer due = handle(created).timers().get(0);

        Event report = post(fire(due));
        assertEquals(report.id(), report.correlationId());
        assertNull(report.causationId());
        assertEquals(
                due.at().toString(),
                condition(report, "Ready").path("lastHeartbeatTime").asText());
        assertTrue(fire(due).isEmpty(), "one report in flight at a time");

        NodeStatusState rebuilt = sync.newState();
        Effects.Builder fact = Effects.of(created, created.time());
        sync.handle(rebuilt, created, fact);
        Effects.Builder again = Effects.of(due, due.at());
        sync.fire(rebuilt, fact.build().timers().get(0), again);
        assertEquals(
                report.id(), post(again.build()).id(), "the same due time, the same report: a rebuild recognises it");

        Effects answered = apply(report, due.at().plusMillis(80));
        assertEquals(T0.plus(Duration.ofMinutes(10)), answered.timers().get(0).at());
    }

    @Test
    void aPostInFlightIsNotRepeatedByARedeliveredOrUnrelatedFact() {
        handle(api.fact(EventTypes.OBJECT_CREATED, ResourceType.NODES, stored));
        Event annotated = api.at(T0.plusSeconds(1))
                .fact(EventTypes.OBJECT_UPDATED, ResourceType.NODES, withPressure(stored, "memory"));
        stored = withPressure(stored, "memory");
        post(handle(annotated));

        assertTrue(handle(annotated).isEmpty(), "a redelivery");
        Node labelled = new NodeBuilder(stored)
                .editMetadata()
                .addToLabels("zone", "a")
                .endMetadata()
                .build();
        assertTrue(store(labelled, T0.plusSeconds(2)).events().isEmpty(), "the same conditions are on their way");
    }

    @Test
    void aRefusedPostIsTriedAgainTenSecondsLater() {
        handle(api.fact(EventTypes.OBJECT_CREATED, ResourceType.NODES, stored));
        Event post = post(store(withPressure(stored, "memory"), T0.plusSeconds(1)));

        Effects refused = handle(api.at(T0.plusSeconds(2)).rejected(post, 500));
        Timer retry = refused.timers().get(0);
        assertEquals(T0.plusSeconds(12), retry.at());
        assertEquals(
                "True",
                condition(post(fire(retry)), "MemoryPressure").path("status").asText());
    }
}
