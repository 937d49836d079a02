package io.podfall.controller.tainteviction;

import static io.podfall.controller.testing.ApiServerFacts.T0;
import static io.podfall.controller.testing.Nodes.aNode;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.podfall.controller.PodsByNode.PodKey;
import io.podfall.controller.testing.ApiServerFacts;
import io.podfall.controller.testing.Nodes;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class TaintEvictionControllerTest {
    private static final String UNREACHABLE = "node.kubernetes.io/unreachable";
    private static final String NOT_READY = "node.kubernetes.io/not-ready";
    private static final Instant TAINTED = T0.plusSeconds(50);

    private final TaintEvictionController controller = new TaintEvictionController();
    private final TaintEvictionState state = controller.newState();
    private final ApiServerFacts api = new ApiServerFacts();

    private Effects handle(Event event) {
        return controller.handle(state, event, event.time());
    }

    private Effects fire(Timer timer) {
        return controller.fire(state, timer, timer.at());
    }

    private static Toleration tolerating(String key, Long seconds) {
        return new TolerationBuilder()
                .withKey(key)
                .withOperator("Exists")
                .withEffect("NoExecute")
                .withTolerationSeconds(seconds)
                .build();
    }

    private static Pod pod(String name, Toleration... tolerations) {
        return new PodBuilder(aPod(name).onNode("node-1").withUid("uid-" + name).build())
                .editSpec()
                .withTolerations(tolerations)
                .endSpec()
                .build();
    }

    /** node-1 created untainted at T0, with the pods on it. */
    private void nodeWith(Pod... pods) {
        handle(api.at(T0).created(aNode("node-1").build()));
        for (Pod p : pods) {
            handle(api.created(ResourceType.PODS, p));
        }
    }

    private Effects taint(Instant at, String... keys) {
        Nodes node = aNode("node-1");
        for (String key : keys) {
            node.tainted(key, "NoExecute");
        }
        Node tainted = node.build();
        return handle(api.at(at).updated(ResourceType.NODES, tainted));
    }

    private static List<String> requests(Effects effects) {
        return effects.events().stream()
                .map(e -> e.type().substring("apiserver.".length()) + " " + e.subject())
                .toList();
    }

    private static Timer timer(Effects effects) {
        assertEquals(1, effects.timers().size(), () -> effects.timers().toString());
        return effects.timers().get(0);
    }

    @Test
    void aPodThatDoesNotTolerateTheTaintGetsTheDisruptionTargetConditionAndIsDeletedAtOnce() {
        nodeWith(pod("web-1"), pod("web-2", tolerating(UNREACHABLE, null)));

        Effects effects = taint(TAINTED, UNREACHABLE);

        assertEquals(
                List.of(
                        "PatchRequested namespaces/default/pods/web-1",
                        "DeletionRequested namespaces/default/pods/web-1"),
                requests(effects),
                "web-2 tolerates it for ever");
        PatchRequest patch = effects.events().get(0).data(PatchRequest.class);
        assertEquals(List.of("status", PatchRequest.STRATEGIC), List.of(patch.subresource(), patch.patchType()));
        assertEquals("uid-web-1", patch.patch().path("metadata").path("uid").asText());
        JsonNode condition = patch.patch().path("status").path("conditions").get(0);
        assertEquals("DisruptionTarget", condition.path("type").asText());
        assertEquals("True", condition.path("status").asText());
        assertEquals("DeletionByTaintManager", condition.path("reason").asText());
        assertEquals(
                "Taint manager: deleting due to NoExecute taint",
                condition.path("message").asText());
        assertEquals(TAINTED.toString(), condition.path("lastTransitionTime").asText());
        DeletionRequest delete = effects.events().get(1).data(DeletionRequest.class);
        assertEquals(null, delete.options().getGracePeriodSeconds(), "the pod's own grace period");
        assertTrue(effects.timers().isEmpty());
    }

    @Test
    void aPodThatToleratesTheTaintForAWhileIsDeletedWhenItsTolerationSecondsHavePassed() {
        nodeWith(pod("web-1", tolerating(UNREACHABLE, 5L)));

        Effects tainted = taint(TAINTED, UNREACHABLE);

        assertEquals(List.of(), requests(tainted));
        Timer due = timer(tainted);
        assertEquals(TAINTED.plusSeconds(5), due.at(), "from when the controller saw the taint");
        assertEquals(new TaintEvictionTimer(new PodKey("default", "web-1")), due.key());
        assertEquals(
                List.of(
                        "PatchRequested namespaces/default/pods/web-1",
                        "DeletionRequested namespaces/default/pods/web-1"),
                requests(fire(due)));
    }

    @Test
    void onlyTheTolerationsThatMatchATaintCount() {
        nodeWith(pod("web-1", tolerating(NOT_READY, 2L), tolerating(UNREACHABLE, 300L)));

        assertEquals(
                TAINTED.plusSeconds(300), timer(taint(TAINTED, UNREACHABLE)).at());
    }

    @Test
    void theSmallestTolerationSecondsOfThoseThatMatchCount() {
        nodeWith(pod("web-1", tolerating(NOT_READY, 2L), tolerating(UNREACHABLE, 300L)));

        assertEquals(
                TAINTED.plusSeconds(2),
                timer(taint(TAINTED, UNREACHABLE, NOT_READY)).at());
    }

    @Test
    void anEvictionAlreadyScheduledKeepsItsTimeWhenTheTaintsChange() {
        nodeWith(pod("web-1", tolerating(NOT_READY, 30L), tolerating(UNREACHABLE, 30L)));
        Timer first = timer(taint(TAINTED, NOT_READY));

        Effects swapped = taint(TAINTED.plusSeconds(10), UNREACHABLE);

        assertEquals(List.of(), requests(swapped));
        assertTrue(swapped.timers().isEmpty(), "the one due at " + first.at() + " stands");
        assertEquals(2, requests(fire(first)).size());
    }

    @Test
    void theTaintsGoneOrThePodRemovedCancelTheEviction() {
        nodeWith(pod("web-1", tolerating(UNREACHABLE, 5L)), pod("web-2", tolerating(UNREACHABLE, 5L)));
        Effects tainted = taint(TAINTED, UNREACHABLE);
        assertEquals(2, tainted.timers().size());

        Effects removed = handle(api.removed(pod("web-2")));
        assertEquals(List.of(new TaintEvictionTimer(new PodKey("default", "web-2"))), removed.cancelledTimers());

        Effects untainted = taint(TAINTED.plusSeconds(2));
        assertEquals(List.of(new TaintEvictionTimer(new PodKey("default", "web-1"))), untainted.cancelledTimers());
        assertEquals(List.of(), requests(fire(tainted.timers().get(0))), "a stale timer finds nothing to do");
    }

    @Test
    void aPodBoundToATaintedNodeIsLookedAtWhenBound() {
        nodeWith();
        taint(TAINTED, UNREACHABLE);

        Effects bound = handle(api.at(TAINTED.plusSeconds(1)).bound(pod("web-1"), "node-1"));

        assertEquals(2, requests(bound).size());
    }

    @Test
    void aPodThatHasTheConditionAlreadyIsOnlyDeletedAgain() {
        Pod marked = new PodBuilder(pod("web-1"))
                .withNewStatus()
                .addNewCondition()
                .withType("DisruptionTarget")
                .withStatus("True")
                .withReason("DeletionByTaintManager")
                .withMessage("Taint manager: deleting due to NoExecute taint")
                .endCondition()
                .endStatus()
                .build();
        nodeWith(marked);

        assertEquals(List.of("DeletionRequested namespaces/default/pods/web-1"), requests(taint(TAINTED, UNREACHABLE)));
    }

    @Test
    void aPodUpdateThatChangesNeitherNodeNorTolerationsDecidesNothing() {
        nodeWith(pod("web-1", tolerating(UNREACHABLE, 5L)));
        taint(TAINTED, UNREACHABLE);

        Effects relabelled = handle(api.at(TAINTED.plusSeconds(1))
                .updated(
                        ResourceType.PODS,
                        new PodBuilder(pod("web-1", tolerating(UNREACHABLE, 5L)))
                                .editMetadata()
                                .addToLabels("v", "2")
                                .endMetadata()
                                .build()));

        assertEquals(Effects.NONE, relabelled);
    }
}
