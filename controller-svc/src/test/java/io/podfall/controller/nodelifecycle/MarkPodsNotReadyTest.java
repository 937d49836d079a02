package io.podfall.controller.nodelifecycle;

import static io.podfall.controller.testing.ApiServerFacts.T0;
import static io.podfall.model.k8s.ResourceType.PODS;
import static io.podfall.model.k8s.ResourceType.SERVICES;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.podfall.controller.ControllerManager;
import io.podfall.controller.endpoint.EndpointsController;
import io.podfall.controller.testing.ApiServerFacts;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.CompositeState;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * MarkPodsNotReady, with the endpoints controller beside the node lifecycle controller in one controller manager: the
 * pods of a node that went silent become NotReady, and their service stops sending them traffic.
 */
class MarkPodsNotReadyTest {
    private static final Instant SILENT = T0.plusSeconds(50);

    private final ControllerManager manager =
            new ControllerManager(List.of(new EndpointsController(), new NodeLifecycleController()));
    private final CompositeState state = manager.newState();
    private final ApiServerFacts api = new ApiServerFacts();
    private Node node1;
    private Timer grace;

    private Effects handle(Event event) {
        return manager.handle(state, event, event.time());
    }

    private static Node node(String name) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withCreationTimestamp(T0.toString())
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .withReason("KubeletReady")
                .withLastHeartbeatTime(T0.toString())
                .withLastTransitionTime(T0.toString())
                .endCondition()
                .endStatus()
                .build();
    }

    /** A pod labelled app=web on the node with that IP, Running and Ready since T0. */
    private static Pod pod(String name, String node, String ip) {
        return new PodBuilder(aPod(name).onNode(node).build())
                .editMetadata()
                .addToLabels("app", "web")
                .endMetadata()
                .withNewStatus()
                .withPhase("Running")
                .withPodIP(ip)
                .withPodIPs(new PodIP(ip))
                .addNewCondition()
                .withType("ContainersReady")
                .withStatus("True")
                .withLastTransitionTime(T0.toString())
                .endCondition()
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .withLastTransitionTime(T0.toString())
                .endCondition()
                .endStatus()
                .build();
    }

    /**
     * node-1 with web-1 and web-2, node-2 with web-3, a service web over them whose Endpoints list all three Ready;
     * node-1's Lease renewed last at T0.
     */
    private void threeReadyPodsOnTwoNodes() {
        Event created = api.created(node("node-1"));
        handle(created);
        node1 = created.data(ObjectChange.class).object(Node.class);
        handle(api.created(node("node-2")));
        grace = handle(api.created(
                        ResourceType.LEASES,
                        new LeaseBuilder()
                                .withNewMetadata()
                                .withName("node-1")
                                .withNamespace("kube-node-lease")
                                .endMetadata()
                                .withNewSpec()
                                .withRenewTime(ZonedDateTime.ofInstant(T0, ZoneOffset.UTC))
                                .endSpec()
                                .build()))
                .timers()
                .get(0);
        for (Pod p : List.of(
                pod("web-1", "node-1", "10.244.1.2"),
                pod("web-2", "node-1", "10.244.1.3"),
                pod("web-3", "node-2", "10.244.2.2"))) {
            handle(api.created(PODS, p));
        }
        Event create = handle(api.created(
                        SERVICES,
                        new ServiceBuilder()
                                .withNewMetadata()
                                .withName("web")
                                .withNamespace("default")
                                .endMetadata()
                                .withNewSpec()
                                .withSelector(Map.of("app", "web"))
                                .withClusterIP("10.96.0.10")
                                .addNewPort()
                                .withName("http")
                                .withPort(80)
                                .withProtocol("TCP")
                                .withTargetPort(new IntOrString(8080))
                                .endPort()
                                .endSpec()
                                .build()))
                .events()
                .get(0);
        assertEquals(
                "10.244.1.2,10.244.1.3,10.244.2.2",
                addresses(
                        create.data(io.podfall.model.apiserver.CreationRequest.class)
                                .object(),
                        "addresses"));
        handle(api.createdFrom(create));
    }

    /** The node lifecycle controller's Ready Unknown, stored: what it causes. */
    private Effects nodeGoesUnknown() {
        Effects fired = manager.fire(state, grace, grace.at());
        assertEquals(1, fired.events().size(), () -> fired.events().toString());
        return handle(api.at(SILENT).patchedFrom(fired.events().get(0), node1));
    }

    private static List<Event> podStatusPatches(Effects effects) {
        return effects.events().stream()
                .filter(e -> e.is(EventTypes.PATCH_REQUESTED) && e.subject().contains("/pods/"))
                .toList();
    }

    private static String addresses(JsonNode endpoints, String field) {
        StringBuilder out = new StringBuilder();
        for (JsonNode subset : endpoints.path("subsets")) {
            for (JsonNode a : subset.path(field)) {
                out.append(out.isEmpty() ? "" : ",").append(a.path("ip").asText());
            }
        }
        return out.toString();
    }

    @Test
    void thePodsOfANodeWhoseReadyTheControllerMadeUnknownGetReadyFalseThroughTheStatusSubresource() {
        threeReadyPodsOnTwoNodes();

        List<Event> marks = podStatusPatches(nodeGoesUnknown());

        assertEquals(
                List.of("namespaces/default/pods/web-1", "namespaces/default/pods/web-2"),
                marks.stream().map(Event::subject).toList(),
                "node-2's pod is left alone");
        PatchRequest request = marks.get(0).data(PatchRequest.class);
        assertEquals(List.of("status", PatchRequest.STRATEGIC), List.of(request.subresource(), request.patchType()));
        JsonNode patch = request.patch();
        assertTrue(patch.path("metadata").path("resourceVersion").isTextual(), "conditional, as UpdateStatus is");
        JsonNode conditions = patch.path("status").path("conditions");
        assertEquals(1, conditions.size(), "ContainersReady untouched, as upstream leaves it");
        assertEquals("Ready", conditions.get(0).path("type").asText());
        assertEquals("False", conditions.get(0).path("status").asText());
        assertEquals(
                SILENT.toString(), conditions.get(0).path("lastTransitionTime").asText());
        assertEquals(
                marks.get(0).causationId(),
                marks.get(1).causationId(),
                "both caused by the node's Ready Unknown being stored");
    }

    @Test
    void theEndpointsControllerThenMovesThosePodsToNotReadyAddresses() {
        threeReadyPodsOnTwoNodes();
        List<Event> marks = podStatusPatches(nodeGoesUnknown());

        Pod web1 = pod("web-1", "node-1", "10.244.1.2");
        Effects first = handle(api.at(SILENT).podStatusPatchedFrom(marks.get(0), web1));
        Event update = first.events().get(0);
        assertEquals(EventTypes.PATCH_REQUESTED, update.type());
        assertEquals("namespaces/default/endpoints/web", update.subject());
        JsonNode endpoints = update.data(PatchRequest.class).patch();
        assertEquals("10.244.1.3,10.244.2.2", addresses(endpoints, "addresses"));
        assertEquals("10.244.1.2", addresses(endpoints, "notReadyAddresses"));
        assertEquals(1, first.events().size(), "the node lifecycle controller asks nothing more");
    }

    @Test
    void aPodAlreadyNotReadyIsNotWrittenAndANodeTheKubeletReportsNotReadyMarksNothing() {
        threeReadyPodsOnTwoNodes();
        Pod notReady = new PodBuilder(pod("web-2", "node-1", "10.244.1.3"))
                .editStatus()
                .editLastCondition()
                .withStatus("False")
                .endCondition()
                .endStatus()
                .build();
        handle(api.statusUpdated(notReady));

        assertEquals(
                List.of("namespaces/default/pods/web-1"),
                podStatusPatches(nodeGoesUnknown()).stream().map(Event::subject).toList());

        Node kubeletSaysNotReady = new NodeBuilder(node("node-2"))
                .editStatus()
                .editFirstCondition()
                .withStatus("False")
                .withLastHeartbeatTime(T0.plusSeconds(60).toString())
                .endCondition()
                .endStatus()
                .build();
        assertEquals(
                List.of(),
                podStatusPatches(handle(api.at(T0.plusSeconds(60)).updated(ResourceType.NODES, kubeletSaysNotReady))),
                "upstream marks pods only when its own write takes Ready from True");
    }

    @Test
    void aPodBoundToANodeThatIsNotReadyIsMarkedAtOnceAndARefusedMarkIsMadeAgainFromTheNewerPod() {
        threeReadyPodsOnTwoNodes();
        nodeGoesUnknown();
        Pod moved = pod("web-4", "node-1", "10.244.1.9");
        Event bound = api.at(SILENT.plusSeconds(1)).bound(moved, "node-1");

        List<Event> marks = podStatusPatches(handle(bound));
        assertEquals(
                List.of("namespaces/default/pods/web-4"),
                marks.stream().map(Event::subject).toList());

        Pod newer = new PodBuilder(moved)
                .editMetadata()
                .addToLabels("v", "2")
                .endMetadata()
                .build();
        handle(api.updated(PODS, newer));
        List<Event> again = podStatusPatches(handle(api.rejected(marks.get(0), 409, "Conflict")));
        assertEquals(1, again.size());
        assertEquals(
                newer.getMetadata().getResourceVersion(),
                again.get(0)
                        .data(PatchRequest.class)
                        .patch()
                        .path("metadata")
                        .path("resourceVersion")
                        .asText());
    }
}
