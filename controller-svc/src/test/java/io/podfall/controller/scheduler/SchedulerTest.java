package io.podfall.controller.scheduler;

import static io.podfall.controller.testing.ApiServerFacts.T0;
import static io.podfall.controller.testing.Nodes.aNode;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.podfall.controller.testing.ApiServerFacts;
import io.podfall.model.Json;
import io.podfall.model.apiserver.BindingRequest;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SchedulerTest {
    private static final String NOT_READY = "node.kubernetes.io/not-ready";

    private final Scheduler scheduler = new Scheduler();
    private final SchedulerState state = scheduler.newState();
    private final ApiServerFacts api = new ApiServerFacts();

    private Effects handle(Event event) {
        return scheduler.handle(state, event, T0);
    }

    /** Pod name → node name of every binding requested, in order. */
    private static List<String> bindings(Effects effects) {
        return effects.events().stream()
                .filter(e -> e.is(EventTypes.BINDING_REQUESTED))
                .map(e -> e.data(BindingRequest.class))
                .map(b -> b.name() + "->" + b.nodeName())
                .toList();
    }

    /** The message of the PodScheduled condition the effects write. */
    private static String message(Effects effects) {
        return condition(effects).path("message").asText();
    }

    private static JsonNode condition(Effects effects) {
        return effects.events().stream()
                .filter(e -> e.is(EventTypes.PATCH_REQUESTED))
                .findFirst()
                .orElseThrow()
                .data(PatchRequest.class)
                .patch()
                .path("status")
                .path("conditions")
                .get(0);
    }

    private static ResourceRequirements resources(String cpu, String memory) {
        return new ResourceRequirementsBuilder()
                .addToRequests("cpu", new Quantity(cpu))
                .addToRequests("memory", new Quantity(memory))
                .build();
    }

    /** The pod with its one container requesting this much. */
    private static Pod requesting(Pod pod, String cpu, String memory) {
        return new PodBuilder(pod)
                .editSpec()
                .editFirstContainer()
                .withResources(resources(cpu, memory))
                .endContainer()
                .endSpec()
                .build();
    }

    private static Pod selecting(Pod pod, Map<String, String> nodeSelector) {
        return new PodBuilder(pod)
                .editSpec()
                .withNodeSelector(nodeSelector)
                .endSpec()
                .build();
    }

    private static Pod requiring(Pod pod, NodeSelectorTerm... terms) {
        return new PodBuilder(pod)
                .editSpec()
                .withNewAffinity()
                .withNewNodeAffinity()
                .withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .withNodeSelectorTerms(terms)
                .endRequiredDuringSchedulingIgnoredDuringExecution()
                .endNodeAffinity()
                .endAffinity()
                .endSpec()
                .build();
    }

    private static NodeSelectorTerm term(NodeSelectorRequirement... expressions) {
        return new NodeSelectorTermBuilder().withMatchExpressions(expressions).build();
    }

    private static NodeSelectorRequirement expression(String key, String operator, String... values) {
        return new NodeSelectorRequirement(key, operator, List.of(values));
    }

    @Test
    void bindsAPendingPodToTheOnlyReadyNode() {
        handle(api.created(aNode("node-1").build()));

        Effects effects = handle(api.created(aPod("web-1").build()));

        assertEquals(1, effects.events().size());
        Event binding = effects.events().get(0);
        assertEquals(EventTypes.BINDING_REQUESTED, binding.type());
        assertEquals("/controller/scheduler", binding.source());
        assertEquals("namespaces/default/pods/web-1", binding.subject());
        assertEquals(new BindingRequest("default", "web-1", "uid-web-1", "node-1"), binding.data(BindingRequest.class));
        assertEquals(Optional.of("node-1"), state.assumedNode("uid-web-1"));
        assertEquals(1, state.podsOn("node-1"));
    }

    @Test
    void spreadsPodsOverNodesByCountAndBreaksTiesByName() {
        handle(api.created(aNode("node-2").build()));
        handle(api.created(aNode("node-1").build()));
        handle(api.created(aPod("already-there").onNode("node-1").build()));

        assertEquals(List.of("a->node-2"), bindings(handle(api.created(aPod("a").build()))));
        assertEquals(List.of("b->node-1"), bindings(handle(api.created(aPod("b").build()))));
        assertEquals(List.of("c->node-2"), bindings(handle(api.created(aPod("c").build()))));
    }

    @Test
    void neverBindsBoundTerminatingOrForeignPods() {
        handle(api.created(aNode("node-1").build()));

        assertTrue(handle(api.created(aPod("bound").onNode("node-1").build()))
                .events()
                .isEmpty());
        assertTrue(handle(api.created(
                        aPod("leaving").terminating(T0.plusSeconds(30), 30).build()))
                .events()
                .isEmpty());
        Pod foreign = new PodBuilder(aPod("foreign").build())
                .editSpec()
                .withSchedulerName("my-scheduler")
                .endSpec()
                .build();
        assertTrue(handle(api.created(foreign)).events().isEmpty());
        assertEquals(List.of(), state.queue());
    }

    @Test
    void aPodMarkedTerminatingBeforeANodeRegistersIsNeverBound() {
        Pod web = aPod("web-1").build();
        handle(api.created(web));
        handle(api.markedTerminating(aPod("web-1").terminating(T0, 0).build()));

        assertTrue(handle(api.created(aNode("node-1").build())).events().isEmpty());
    }

    @Test
    void anAssumedPodIsNotBoundTwice() {
        handle(api.created(aNode("node-1").build()));
        Event created = api.created(aPod("web-1").build());
        assertEquals(1, handle(created).events().size());

        assertTrue(handle(created).events().isEmpty(), "duplicate ObjectCreated");
        assertTrue(handle(api.statusUpdated(aPod("web-1").build())).events().isEmpty(), "update before PodBound");
        assertTrue(handle(api.created(aNode("node-2").build())).events().isEmpty(), "another node registers");
        assertEquals(Optional.of("node-1"), state.assumedNode("uid-web-1"));
    }

    @Test
    void podBoundConfirmsTheAssumption() {
        handle(api.created(aNode("node-1").build()));
        Pod web = aPod("web-1").build();
        handle(api.created(web));

        assertTrue(handle(api.bound(web, "node-1")).events().isEmpty());

        assertEquals(Optional.empty(), state.assumedNode("uid-web-1"));
        assertEquals(1, state.podsOn("node-1"));
    }

    @Test
    void podsWaitForANodeAndAreBoundInCreationOrderWhenOneRegisters() {
        assertEquals(List.of(), bindings(handle(api.created(aPod("c").build()))));
        assertEquals(List.of(), bindings(handle(api.created(aPod("a").build()))));
        assertEquals(List.of(), bindings(handle(api.created(aPod("b").build()))));
        assertEquals(List.of("uid-c", "uid-a", "uid-b"), state.queue());

        Effects effects = handle(api.created(aNode("node-1").build()));

        assertEquals(List.of("c->node-1", "a->node-1", "b->node-1"), bindings(effects));
        assertEquals(3, effects.events().stream().map(Event::id).distinct().count());
        assertEquals(List.of(), state.queue());
    }

    @Test
    void aPodThatFindsNoNodeIsToldWhyOnceAsLongAsTheReasonStaysTheSame() {
        handle(api.created(aNode("node-1").tainted(NOT_READY, "NoSchedule").build()));
        Pod pod = aPod("web-1").build();
        Effects effects = handle(api.created(pod));

        assertEquals(
                List.of(EventTypes.PATCH_REQUESTED),
                effects.events().stream().map(Event::type).toList());
        PatchRequest patch = effects.events().get(0).data(PatchRequest.class);
        assertEquals("status", patch.subresource());
        assertEquals("web-1", patch.name());
        var condition = patch.patch().path("status").path("conditions").path(0);
        assertEquals("PodScheduled", condition.path("type").asText());
        assertEquals("False", condition.path("status").asText());
        assertEquals("Unschedulable", condition.path("reason").asText());
        assertEquals(
                "0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }. "
                        + "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
                condition.path("message").asText());

        assertTrue(
                handle(api.updated(ResourceType.PODS, pod)).events().isEmpty(), "its own patch stored: said already");
        assertEquals(
                List.of("web-1->node-2"),
                bindings(handle(api.created(aNode("node-2").build()))));
    }

    @Test
    void aNewReasonIsWrittenAgainKeepingTheTransitionTime() {
        handle(api.created(aNode("node-1").tainted(NOT_READY, "NoSchedule").build()));
        Effects first = handle(api.created(aPod("web-1").build()));
        Effects later =
                scheduler.handle(state, api.created(aNode("node-2").cordoned().build()), T0.plusSeconds(10));

        assertEquals(
                "0/2 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, "
                        + "1 node(s) were unschedulable. "
                        + "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
                message(later));
        assertEquals(
                condition(first).path("lastTransitionTime").asText(),
                condition(later).path("lastTransitionTime").asText());
    }

    @Test
    void aPassCountsThePodsItAssumesAlongTheWay() {
        handle(api.created(aNode("node-1").build()));
        handle(api.created(aNode("node-2").build()));
        Event bindingOfA = handle(api.created(aPod("a").build())).events().get(0);
        Event bindingOfB = handle(api.created(aPod("b").build())).events().get(0);
        handle(api.rejected(bindingOfA));
        handle(api.rejected(bindingOfB));

        Effects effects = handle(api.created(aPod("c").build()));

        assertEquals(List.of("a->node-1", "b->node-2", "c->node-1"), bindings(effects));
        assertEquals(2, state.podsOn("node-1"));
        assertEquals(1, state.podsOn("node-2"));
    }

    @Test
    void taintedAndCordonedNodesAreSkippedAsUpstreamNodeConditionsAreNot() {
        handle(api.created(
                aNode("node-1").notReady().tainted(NOT_READY, "NoSchedule").build()));
        handle(api.created(aNode("node-2").cordoned().build()));

        assertEquals(List.of(), bindings(handle(api.created(aPod("web-1").build()))));
        assertEquals(List.of("uid-web-1"), state.queue());

        assertEquals(
                List.of("web-1->node-3"),
                bindings(handle(api.created(aNode("node-3").notReady().build()))),
                "the scheduler reads no condition: the node lifecycle controller's taint keeps pods away");
    }

    @Test
    void aPodToleratingTheUnschedulableTaintMayGoToACordonedNode() {
        handle(api.created(aNode("node-1").cordoned().build()));
        Pod tolerant = new PodBuilder(aPod("agent").build())
                .editSpec()
                .addNewToleration()
                .withKey("node.kubernetes.io/unschedulable")
                .withOperator("Exists")
                .withEffect("NoSchedule")
                .endToleration()
                .endSpec()
                .build();

        assertEquals(List.of(), bindings(handle(api.created(aPod("web-1").build()))));
        assertEquals(List.of("agent->node-1"), bindings(handle(api.created(tolerant))));
    }

    @Test
    void aRejectedBindingIsForgottenAndRetriedOnTheNextChange() {
        handle(api.created(aNode("node-1").build()));
        Event binding = handle(api.created(aPod("web-1").build())).events().get(0);
        Event rejection = api.rejected(binding);

        assertTrue(handle(rejection).events().isEmpty(), "no retry on the rejection itself");
        assertEquals(Optional.empty(), state.assumedNode("uid-web-1"));
        assertEquals(0, state.podsOn("node-1"));
        assertEquals(List.of("uid-web-1"), state.queue());
        assertTrue(handle(rejection).events().isEmpty(), "duplicate rejection");

        assertEquals(
                List.of("web-1->node-1", "other->node-1"),
                bindings(handle(api.created(aPod("other").build()))));
    }

    @Test
    void aDuplicateFactStartsNoPass() {
        Event node = api.created(aNode("node-1").build());
        handle(node);
        handle(api.rejected(handle(api.created(aPod("web-1").build())).events().get(0)));

        assertEquals(Effects.NONE, handle(node));
        assertEquals(List.of("uid-web-1"), state.queue());
    }

    @Test
    void aRejectionOfAnotherRequestLeavesTheAssumption() {
        handle(api.created(aNode("node-1").build()));
        handle(api.created(aPod("web-1").build()));
        Event unrelated = api.created(aPod("web-2").build());

        handle(api.rejected(Event.causedBy(
                unrelated.asCause(),
                unrelated.id(),
                0,
                "/controller/scheduler",
                EventTypes.BINDING_REQUESTED,
                unrelated.subject(),
                T0,
                new BindingRequest("default", "web-2", "uid-web-2", "node-1"))));

        assertEquals(Optional.of("node-1"), state.assumedNode("uid-web-1"));
    }

    @Test
    void aRemovedPodNoLongerCountsOnItsNode() {
        handle(api.created(aNode("node-1").build()));
        Pod web = aPod("web-1").build();
        handle(api.created(web));

        handle(api.removed(web));

        assertEquals(0, state.podsOn("node-1"));
        assertEquals(Optional.empty(), state.assumedNode("uid-web-1"));
        assertFalse(state.knowsPod("uid-web-1"));
    }

    @Test
    void aFinishedPodNoLongerCountsOnItsNode() {
        handle(api.created(aNode("node-1").build()));
        handle(api.created(aNode("node-2").build()));
        handle(api.created(aPod("done").onNode("node-1").build()));
        handle(api.created(aPod("busy").onNode("node-2").build()));

        handle(api.statusUpdated(
                aPod("done").onNode("node-1").inPhase("Succeeded").build()));

        assertEquals(0, state.podsOn("node-1"));
        assertEquals(
                List.of("web-1->node-1"),
                bindings(handle(api.created(aPod("web-1").build()))));
    }

    @Test
    void aStaleFactDoesNotUndoABinding() {
        handle(api.created(aNode("node-1").build()));
        Pod web = aPod("web-1").build();
        Event created = api.created(web);
        handle(created);
        handle(api.bound(web, "node-1"));

        assertTrue(handle(created).events().isEmpty());
        assertEquals(1, state.podsOn("node-1"));
        assertEquals(List.of(), state.queue());
    }

    @Test
    void aNodeUnderPressureGetsNoNewPodsTheOtherNodeDoes() {
        handle(api.created(aNode("node-1")
                .tainted("node.kubernetes.io/memory-pressure", "NoSchedule")
                .build()));
        handle(api.created(aNode("node-2").build()));
        handle(api.created(aPod("busy").onNode("node-2").build()));

        assertEquals(
                List.of("web-1->node-2"),
                bindings(handle(api.created(aPod("web-1").build()))),
                "the busier node, since the idle one is tainted");
    }

    @Test
    void aPodThatToleratesTheTaintMayGoThere() {
        handle(api.created(aNode("node-1")
                .tainted("node.kubernetes.io/memory-pressure", "NoSchedule")
                .build()));
        Pod tolerant = new PodBuilder(aPod("agent").build())
                .editSpec()
                .addNewToleration()
                .withKey("node.kubernetes.io/memory-pressure")
                .withOperator("Exists")
                .withEffect("NoSchedule")
                .endToleration()
                .endSpec()
                .build();

        assertEquals(List.of("agent->node-1"), bindings(handle(api.created(tolerant))));
    }

    @Test
    void aNoExecuteTaintKeepsPodsAwayAPreferNoScheduleTaintDoesNot() {
        handle(api.created(aNode("node-1")
                .tainted("node.kubernetes.io/unreachable", "NoExecute")
                .build()));
        assertEquals(List.of(), bindings(handle(api.created(aPod("web-1").build()))));

        handle(api.created(
                aNode("node-2").tainted("example.com/slow", "PreferNoSchedule").build()));
        assertEquals(
                List.of("web-1->node-2"),
                state.assumedNode("uid-web-1").map(n -> "web-1->" + n).stream().toList());
    }

    @Test
    void withTheOnlyNodeTaintedThePodStaysPendingSaysWhyAndIsPlacedWhenTheTaintGoes() {
        Event tainted = api.created(aNode("node-1")
                .tainted("node.kubernetes.io/memory-pressure", "NoSchedule")
                .build());
        handle(tainted);

        Effects pending = handle(api.created(aPod("web-1").build()));
        assertEquals(List.of(), bindings(pending));
        assertEquals(
                "0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/memory-pressure: }. "
                        + "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
                message(pending));

        assertEquals(
                List.of("web-1->node-1"),
                bindings(handle(api.updated(ResourceType.NODES, aNode("node-1").build()))));
    }

    @Test
    void theUnschedulableMessageCountsEachReasonSortedAsUpstreamSortsThem() {
        handle(api.created(aNode("node-1")
                .tainted("node.kubernetes.io/disk-pressure", "NoSchedule")
                .build()));
        handle(api.created(aNode("node-2").cordoned().build()));
        handle(api.created(aNode("node-3").cordoned().build()));
        handle(api.created(aNode("node-4").allocatable("1", "1Gi").build()));

        Effects pending = handle(api.created(requesting(aPod("web-1").build(), "2", "2Gi")));

        assertEquals(
                "0/4 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, "
                        + "1 node(s) had untolerated taint {node.kubernetes.io/disk-pressure: }, "
                        + "2 node(s) were unschedulable. preemption: 0/4 nodes are available: "
                        + "1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling.",
                message(pending));
    }

    @Test
    void withNoNodeAtAllThePodIsToldSo() {
        assertEquals(
                "no nodes available to schedule pods",
                message(handle(api.created(aPod("web-1").build()))));
    }

    @Test
    void aFullNodeGetsNoMorePodsThePodWaitsSaysWhyAndIsPlacedWhenOneLeaves() {
        handle(api.created(aNode("node-1").allowingPods(2).build()));
        handle(api.created(aNode("node-2").allowingPods(1).cordoned().build()));
        Pod first = aPod("web-1").build();
        handle(api.created(first));
        handle(api.created(aPod("web-2").build()));

        Effects pending = handle(api.created(aPod("web-3").build()));

        assertEquals(List.of(), bindings(pending));
        assertEquals(
                "0/2 nodes are available: 1 Too many pods, 1 node(s) were unschedulable. preemption: "
                        + "0/2 nodes are available: 1 No preemption victims found for incoming pod, "
                        + "1 Preemption is not helpful for scheduling.",
                message(pending));
        assertEquals(2, state.podsOn("node-1"));
        assertEquals(List.of("web-3->node-1"), bindings(handle(api.removed(first))));
    }

    @Test
    void aPodGoesOnlyWhereItsRequestsFitBesideThoseOfThePodsThere() {
        handle(api.created(aNode("node-1").allocatable("1", "1Gi").build()));
        handle(api.created(aNode("node-2").allocatable("2", "1Gi").build()));
        handle(api.created(requesting(aPod("big").onNode("node-2").build(), "1500m", "100Mi")));

        assertEquals(
                List.of("a->node-1"),
                bindings(handle(api.created(requesting(aPod("a").build(), "600m", "100Mi")))),
                "node-1 is the less loaded");
        assertEquals(
                List.of("b->node-2"),
                bindings(handle(api.created(requesting(aPod("b").build(), "500m", "100Mi")))),
                "node-1 has 400m left, node-2 exactly 500m");
        assertEquals(new Resources(2000, 200L << 20), state.usage("node-2").requested());

        Effects pending = handle(api.created(requesting(aPod("c").build(), "100m", "1000Mi")));
        // node-2 is short of both: a node names every resource it lacks
        assertEquals(
                "0/2 nodes are available: 1 Insufficient cpu, 2 Insufficient memory. preemption: "
                        + "0/2 nodes are available: 2 No preemption victims found for incoming pod.",
                message(pending));
    }

    @Test
    void podsThatAskTheSameAreEachToldWhyAfterThePassPlacedTheOneThatFits() {
        handle(api.created(requesting(aPod("a").build(), "600m", "64Mi")));
        handle(api.created(requesting(aPod("b").build(), "600m", "64Mi")));
        handle(api.created(requesting(aPod("c").build(), "600m", "64Mi")));

        Effects pass =
                handle(api.created(aNode("node-1").allocatable("1", "1Gi").build()));

        assertEquals(List.of("a->node-1"), bindings(pass));
        List<String> told = pass.events().stream()
                .filter(e -> e.is(EventTypes.PATCH_REQUESTED))
                .map(e -> e.data(PatchRequest.class).name() + ": "
                        + e.data(PatchRequest.class)
                                .patch()
                                .path("status")
                                .path("conditions")
                                .get(0)
                                .path("message")
                                .asText())
                .toList();
        String insufficient = "0/1 nodes are available: 1 Insufficient cpu. preemption: "
                + "0/1 nodes are available: 1 No preemption victims found for incoming pod.";
        assertEquals(List.of("b: " + insufficient, "c: " + insufficient), told);
    }

    @Test
    void aTerminatingPodKeepsItsRequestsOnItsNodeUntilItIsGone() {
        handle(api.created(aNode("node-1").allocatable("1", "1Gi").build()));
        Pod old = requesting(aPod("web-old").onNode("node-1").build(), "800m", "100Mi");
        handle(api.created(old));
        handle(api.markedTerminating(requesting(
                aPod("web-old")
                        .onNode("node-1")
                        .terminating(T0.plusSeconds(30), 30)
                        .build(),
                "800m",
                "100Mi")));

        Effects pending = handle(api.created(requesting(aPod("web-new").build(), "800m", "100Mi")));
        assertEquals(List.of(), bindings(pending));
        assertEquals(
                "0/1 nodes are available: 1 Insufficient cpu. preemption: "
                        + "0/1 nodes are available: 1 No preemption victims found for incoming pod.",
                message(pending));

        assertEquals(List.of("web-new->node-1"), bindings(handle(api.removed(old))));
    }

    @Test
    void aNodeSelectorOrRequiredAffinityKeepsThePodToMatchingNodes() {
        handle(api.created(
                aNode("node-1").labelled("disk", "ssd").labelled("cores", "8").build()));
        handle(api.created(
                aNode("node-2").labelled("disk", "hdd").labelled("cores", "2").build()));

        assertEquals(
                List.of("fast->node-1"),
                bindings(handle(api.created(selecting(aPod("fast").build(), Map.of("disk", "ssd"))))));
        assertEquals(
                List.of("big->node-1"),
                bindings(handle(api.created(requiring(aPod("big").build(), term(expression("cores", "Gt", "4")))))));
        assertEquals(
                List.of("small->node-2"),
                bindings(handle(api.created(requiring(
                        aPod("small").build(),
                        term(expression("disk", "NotIn", "ssd"), expression("cores", "Exists")))))));
        assertEquals(
                List.of("named->node-2"),
                bindings(handle(api.created(requiring(
                        aPod("named").build(),
                        new NodeSelectorTermBuilder()
                                .withMatchExpressions(expression("gpu", "DoesNotExist"))
                                .withMatchFields(expression("metadata.name", "In", "node-2"))
                                .build())))));

        Effects pending = handle(api.created(selecting(aPod("nowhere").build(), Map.of("no-such", "node"))));
        assertEquals(
                "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: "
                        + "0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
                message(pending));
    }

    @Test
    void termsAreOredAndATermWithNoRequirementMatchesNothing() {
        handle(api.created(aNode("node-1").labelled("zone", "a").build()));

        assertEquals(
                List.of(), bindings(handle(api.created(requiring(aPod("empty").build(), new NodeSelectorTerm())))));
        assertEquals(
                List.of("either->node-1"),
                bindings(handle(api.created(requiring(
                        aPod("either").build(),
                        term(expression("zone", "In", "b")),
                        term(expression("zone", "In", "a", "c")))))));
        assertEquals(
                List.of(),
                bindings(handle(api.created(requiring(aPod("lt").build(), term(expression("zone", "Lt", "3")))))),
                "Gt and Lt read the label as an integer");
    }

    @Test
    void nodesLeftOutByMatchFieldsAreNamedAsThePreFilterNamesThem() {
        handle(api.created(
                aNode("node-1").tainted("example.com/dedicated", "NoSchedule").build()));
        handle(api.created(aNode("node-2").build()));
        handle(api.created(aNode("node-3").build()));

        Effects pending = handle(api.created(requiring(
                aPod("pinned").build(),
                new NodeSelectorTermBuilder()
                        .withMatchFields(expression("metadata.name", "In", "node-1"))
                        .build())));

        assertEquals(
                "0/3 nodes are available: 1 node(s) had untolerated taint {example.com/dedicated: }, "
                        + "2 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: "
                        + "0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
                message(pending));
    }

    @Test
    void podRequestsAreTheLargerOfTheRunningSetAndTheInitPeakPlusOverhead() {
        Pod pod = new PodBuilder(aPod("web-1").build())
                .editSpec()
                .editFirstContainer()
                .withResources(resources("100m", "100Mi"))
                .endContainer()
                .addNewContainer()
                .withName("limited")
                .withNewResources()
                .addToLimits("cpu", new Quantity("200m"))
                .endResources()
                .endContainer()
                .addNewInitContainer()
                .withName("sidecar")
                .withRestartPolicy("Always")
                .withResources(resources("50m", "300Mi"))
                .endInitContainer()
                .addNewInitContainer()
                .withName("migrate")
                .withResources(resources("1", "64Mi"))
                .endInitContainer()
                .addToOverhead("cpu", new Quantity("10m"))
                .endSpec()
                .build();

        // running: 100m + 200m (its limit) + 50m, 100Mi + 300Mi; init peak: migrate beside the sidecar, 1050m, 364Mi
        assertEquals(
                new Resources(1060, 400L << 20),
                Resources.podRequests(Json.MAPPER.valueToTree(pod).path("spec")));
    }
}
