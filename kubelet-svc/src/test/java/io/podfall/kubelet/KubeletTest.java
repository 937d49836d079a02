package io.podfall.kubelet;

import static io.podfall.kubelet.testing.ApiFacts.T0;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.podfall.kubelet.nodestatus.InitialNode;
import io.podfall.kubelet.podworkers.PodWorkers;
import io.podfall.kubelet.testing.ApiFacts;
import io.podfall.model.core.CompositeState;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The kubelet's parts side by side: the pod workers and the node's status and Lease, on one log. */
class KubeletTest {
    private final Kubelet kubelet = new Kubelet(new PodWorkers(List.of("node-1")), 40);
    private final CompositeState state = kubelet.newState();
    private final ApiFacts api = new ApiFacts();

    private Effects handle(Event event) {
        return kubelet.handle(state, event, event.time());
    }

    private static List<String> types(Effects effects) {
        return effects.events().stream().map(Event::type).toList();
    }

    @Test
    void aRegisteredNodeGetsItsLeaseAndItsStatusReportAndPodWorkersStillRunPods() {
        Effects registered =
                handle(api.fact(EventTypes.OBJECT_CREATED, ResourceType.NODES, InitialNode.of("node-1", T0)));
        assertEquals(List.of(EventTypes.CREATION_REQUESTED), types(registered), "the node's Lease");
        assertEquals(
                List.of("nodestatus/node-1"),
                registered.timers().stream().map(t -> t.key().id()).toList());

        Effects bound = handle(api.fact(
                EventTypes.POD_BOUND,
                ResourceType.PODS,
                aPod("web-1").withUid("uid-web-1").onNode("node-1").build()));
        assertEquals(List.of(EventTypes.RUN_POD_SANDBOX_REQUESTED), types(bound));
    }

    @Test
    void pressureBothEvictsAPodAndBecomesANodeConditionInOneStepWithDistinctIds() {
        var node = InitialNode.of("node-1", T0);
        handle(api.fact(EventTypes.OBJECT_CREATED, ResourceType.NODES, node));
        handle(api.fact(
                EventTypes.POD_BOUND,
                ResourceType.PODS,
                aPod("web-1").withUid("uid-web-1").onNode("node-1").build()));

        Effects pressured = handle(api.at(T0.plusSeconds(5))
                .fact(
                        EventTypes.OBJECT_UPDATED,
                        ResourceType.NODES,
                        new NodeBuilder(node)
                                .editMetadata()
                                .addToAnnotations("podfall.io/pressure", "memory")
                                .endMetadata()
                                .build()));

        List<String> types = types(pressured);
        assertEquals(EventTypes.POD_EVICTED, types.get(0), "the pod workers decide first: " + types);
        assertEquals(EventTypes.PATCH_REQUESTED, types.get(types.size() - 1), "then the node's status: " + types);
        assertEquals(
                pressured.events().size(),
                pressured.events().stream().map(Event::id).distinct().count());
    }
}
