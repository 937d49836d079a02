package io.podfall.controller.nodelifecycle;

import static io.podfall.controller.testing.ApiServerFacts.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.podfall.controller.testing.ApiServerFacts;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.core.TimerKey;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeLifecycleControllerTest {
    private final ApiServerFacts api = new ApiServerFacts();
    private NodeLifecycleController controller = new NodeLifecycleController();
    private NodeLifecycleState state = controller.newState();
    /** node-1 as the API server holds it. */
    private Node node = node("True", T0);

    /**
     * A node as its kubelet registers it: the four kubelet conditions, Ready as given, beating at {@code heartbeat}.
     */
    private static Node node(String ready, Instant heartbeat) {
        List<NodeCondition> conditions = new ArrayList<>();
        for (String type : List.of("MemoryPressure", "DiskPressure", "PIDPressure")) {
            conditions.add(condition(type, "False", heartbeat));
        }
        conditions.add(condition("Ready", ready, heartbeat));
        return new NodeBuilder()
                .withNewMetadata()
                .withName("node-1")
                .withCreationTimestamp(T0.toString())
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .withNewStatus()
                .withConditions(conditions)
                .endStatus()
                .build();
    }

    private static NodeCondition condition(String type, String status, Instant heartbeat) {
        return new NodeConditionBuilder()
                .withType(type)
                .withStatus(status)
                .withReason("Kubelet")
                .withMessage("kubelet")
                .withLastHeartbeatTime(heartbeat.toString())
                .withLastTransitionTime(T0.toString())
                .build();
    }

    private static Node withCondition(Node node, String type, String status, Instant heartbeat) {
        List<NodeCondition> conditions = new ArrayList<>(node.getStatus().getConditions());
        conditions.replaceAll(c -> c.getType().equals(type) ? condition(type, status, heartbeat) : c);
        return new NodeBuilder(node)
                .editStatus()
                .withConditions(conditions)
                .endStatus()
                .build();
    }

    private static Lease lease(Instant renewTime) {
        return new LeaseBuilder()
                .withNewMetadata()
                .withName("node-1")
                .withNamespace("kube-node-lease")
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity("node-1")
                .withLeaseDurationSeconds(40)
                .withRenewTime(ZonedDateTime.ofInstant(renewTime, ZoneOffset.UTC))
                .endSpec()
                .build();
    }

    private Effects handle(Event event) {
        Effects.Builder out = Effects.of(event, event.time());
        controller.handle(state, event, out);
        return out.build();
    }

    private Effects fire(Timer timer) {
        Effects.Builder out = Effects.of(timer, timer.at());
        controller.fire(state, timer, out);
        return out.build();
    }

    /** The API server stores the node as a client (or kubelet) wrote it, at {@code at}. */
    private Effects store(Node next, Instant at) {
        node = next;
        return handle(api.at(at).updated(ResourceType.NODES, next));
    }

    /** The API server applies the controller's patch to the node and answers with the fact. */
    private Effects apply(Event patch, Instant at) {
        Event answer = api.at(at).patchedFrom(patch, node);
        node = answer.data(ObjectChange.class).object(Node.class);
        return handle(answer);
    }

    private static Event only(Effects effects) {
        assertEquals(1, effects.events().size(), () -> effects.events().toString());
        Event e = effects.events().get(0);
        assertEquals(EventTypes.PATCH_REQUESTED, e.type());
        assertEquals("/controller/nodelifecycle", e.source());
        assertEquals("nodes/node-1", e.subject());
        return e;
    }

    private static JsonNode patch(Event e) {
        return e.data(PatchRequest.class).patch();
    }

    private static List<String> taints(Event e) {
        List<String> out = new ArrayList<>();
        patch(e).path("spec")
                .path("taints")
                .forEach(t ->
                        out.add(t.path("key").asText() + ":" + t.path("effect").asText()));
        return out;
    }

    /** The node registered at T0, its lease created; returns the timer of its grace period. */
    private Timer registered() {
        Event created = api.at(T0).created(node);
        handle(created);
        node = created.data(ObjectChange.class).object(Node.class);
        return handle(api.created(ResourceType.LEASES, lease(T0))).timers().get(0);
    }

    @Test
    void aNodeWhoseLeaseIsRenewedStaysReady() {
        Timer grace = registered();
        assertEquals(T0.plusSeconds(50), grace.at(), "node-monitor-grace-period: 50 s in 1.32");

        Effects renewed = handle(api.at(T0.plusSeconds(10)).updated(ResourceType.LEASES, lease(T0.plusSeconds(10))));
        Timer moved = renewed.timers().get(0);
        assertEquals(T0.plusSeconds(60), moved.at());
        assertTrue(fire(grace).isEmpty(), "the renewal moved the deadline: the old timer finds nothing to do");
    }

    @Test
    void aLeaseNotRenewedWithinTheGracePeriodMakesTheKubeletsConditionsUnknown() {
        Timer grace = registered();

        Event unknown = only(fire(grace));

        PatchRequest request = unknown.data(PatchRequest.class);
        assertEquals(
                List.of("nodes", "status", PatchRequest.STRATEGIC),
                List.of(request.resource(), request.subresource(), request.patchType()));
        assertEquals(
                node.getMetadata().getResourceVersion(),
                patch(unknown).path("metadata").path("resourceVersion").asText(),
                "conditional on the node it read");
        JsonNode conditions = patch(unknown).path("status").path("conditions");
        assertEquals(4, conditions.size());
        for (JsonNode c : conditions) {
            assertEquals("Unknown", c.path("status").asText(), c.toString());
            assertEquals("NodeStatusUnknown", c.path("reason").asText());
            assertEquals(
                    "Kubelet stopped posting node status.", c.path("message").asText());
            assertEquals(
                    T0.plusSeconds(50).toString(), c.path("lastTransitionTime").asText());
            assertEquals(T0.toString(), c.path("lastHeartbeatTime").asText(), "the kubelet's last heartbeat stays");
        }
    }

    @Test
    void anUnreachableNodeIsTaintedNoScheduleAndNoExecuteAndBothGoWhenTheKubeletIsBack() {
        Timer grace = registered();
        Event unknown = only(fire(grace));

        Event tainted = only(apply(unknown, T0.plusSeconds(50)));
        assertEquals(
                List.of("node.kubernetes.io/unreachable:NoSchedule", "node.kubernetes.io/unreachable:NoExecute"),
                taints(tainted));
        assertEquals(
                T0.plusSeconds(50).toString(),
                patch(tainted)
                        .path("spec")
                        .path("taints")
                        .get(1)
                        .path("timeAdded")
                        .asText());
        assertTrue(apply(tainted, T0.plusSeconds(51)).isEmpty(), "tainted as it should be");

        Instant back = T0.plusSeconds(90);
        Effects ready = store(withCondition(node, "Ready", "True", back), back);
        assertEquals(List.of(), taints(only(ready)), "markNodeAsReachable");
        assertEquals(back.plusSeconds(50), ready.timers().get(0).at(), "heard from again: a new grace period");
    }

    @Test
    void pressureConditionsTaintTheNodeNoScheduleUntilTheyClear() {
        registered();

        Event memory = only(store(withCondition(node, "MemoryPressure", "True", T0.plusSeconds(5)), T0.plusSeconds(5)));
        assertEquals(List.of("node.kubernetes.io/memory-pressure:NoSchedule"), taints(memory));
        apply(memory, T0.plusSeconds(6));

        Event pid = only(store(withCondition(node, "PIDPressure", "True", T0.plusSeconds(7)), T0.plusSeconds(7)));
        assertEquals(
                List.of("node.kubernetes.io/memory-pressure:NoSchedule", "node.kubernetes.io/pid-pressure:NoSchedule"),
                taints(pid));
        apply(pid, T0.plusSeconds(8));

        Event cleared =
                only(store(withCondition(node, "MemoryPressure", "False", T0.plusSeconds(9)), T0.plusSeconds(9)));
        assertEquals(List.of("node.kubernetes.io/pid-pressure:NoSchedule"), taints(cleared));
    }

    @Test
    void aCordonedNodeIsTaintedUnschedulableAndTaintsOfOthersAreKept() {
        registered();
        Node cordoned = new NodeBuilder(node)
                .editSpec()
                .withUnschedulable(true)
                .addNewTaint()
                .withKey("dedicated")
                .withValue("gpu")
                .withEffect("NoSchedule")
                .endTaint()
                .endSpec()
                .build();

        Event patch = only(store(cordoned, T0.plusSeconds(1)));
        assertEquals(List.of("dedicated:NoSchedule", "node.kubernetes.io/unschedulable:NoSchedule"), taints(patch));
    }

    @Test
    void oneTaintWriteInFlightAtATimeAndARefusedOneIsDecidedAgainFromTheNewerNode() {
        registered();
        Event memory = only(store(withCondition(node, "MemoryPressure", "True", T0.plusSeconds(5)), T0.plusSeconds(5)));

        assertTrue(
                store(withCondition(node, "DiskPressure", "True", T0.plusSeconds(6)), T0.plusSeconds(6))
                        .events()
                        .isEmpty(),
                "the write in flight comes back first");
        Effects refused = handle(api.at(T0.plusSeconds(7)).rejected(memory, 409, "Conflict"));
        Event again = only(refused);
        assertEquals(
                List.of("node.kubernetes.io/memory-pressure:NoSchedule", "node.kubernetes.io/disk-pressure:NoSchedule"),
                taints(again));
        assertEquals(
                node.getMetadata().getResourceVersion(),
                patch(again).path("metadata").path("resourceVersion").asText());

        assertTrue(
                handle(api.at(T0.plusSeconds(8)).rejected(again, 409, "Conflict"))
                        .isEmpty(),
                "refused at the version the cache still shows: asking again would be refused again");
    }

    @Test
    void theKubeletsOwnPostOfReadyCountsAsAHeartbeatToo() {
        registered();
        Instant posted = T0.plusSeconds(45);

        Effects heard = store(withCondition(node, "Ready", "True", posted), posted);

        assertEquals(posted.plusSeconds(50), heard.timers().get(0).at());
    }

    @Test
    void aNodeThatNeverPostedReadyGetsTheStartupGracePeriodAndNeverUpdatedConditions() {
        Node silent = new NodeBuilder()
                .withNewMetadata()
                .withName("node-1")
                .withCreationTimestamp(T0.toString())
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .build();
        node = silent;
        Timer startup = handle(api.at(T0).created(silent)).timers().get(0);
        assertEquals(T0.plusSeconds(60), startup.at());

        JsonNode conditions = patch(only(fire(startup))).path("status").path("conditions");
        assertEquals("NodeStatusNeverUpdated", conditions.get(0).path("reason").asText());
        assertEquals(
                "Kubelet never posted node status.",
                conditions.get(0).path("message").asText());
    }

    @Test
    void theGracePeriodIsASetting() {
        controller = new NodeLifecycleController(Duration.ofSeconds(40));
        state = controller.newState();
        assertEquals(T0.plusSeconds(40), registered().at());
    }

    @Test
    void aRemovedNodeIsForgotten() {
        Timer grace = registered();
        Effects removed = handle(api.at(T0.plusSeconds(1)).removed(ResourceType.NODES, node));
        assertEquals(
                List.of("nodelifecycle/node-1"),
                removed.cancelledTimers().stream().map(TimerKey::id).toList());
        assertTrue(fire(grace).isEmpty());
    }

    @Test
    void taintsOfTheNodeAsStoredAreNotAskedForAgain() {
        registered();
        Node tainted = new NodeBuilder(withCondition(node, "MemoryPressure", "True", T0.plusSeconds(5)))
                .editSpec()
                .withTaints(new io.fabric8.kubernetes.api.model.TaintBuilder()
                        .withKey("node.kubernetes.io/memory-pressure")
                        .withEffect("NoSchedule")
                        .build())
                .endSpec()
                .build();
        assertTrue(store(tainted, T0.plusSeconds(5)).events().isEmpty());
    }
}
