package io.podfall.controller.scheduler;

import static io.podfall.controller.testing.ApiServerFacts.T0;
import static io.podfall.controller.testing.Nodes.aNode;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.controller.testing.ApiServerFacts;
import io.podfall.model.apiserver.BindingRequest;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SchedulerTest {
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
    void aPodThatFindsNoNodeIsToldItIsUnschedulableOnce() {
        handle(api.created(aNode("node-1").notReady().build()));
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
                "0/1 nodes are available: 1 node(s) were not ready or unschedulable.",
                condition.path("message").asText());

        assertTrue(
                handle(api.updated(ResourceType.PODS, pod)).events().isEmpty(), "its own patch stored: said already");
        assertEquals(
                List.of("web-1->node-2"),
                bindings(handle(api.created(aNode("node-2").build()))));
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
    void notReadyCordonedAndTerminatingNodesAreSkipped() {
        handle(api.created(aNode("node-1").notReady().build()));
        handle(api.created(aNode("node-2").cordoned().build()));
        handle(api.created(aNode("node-3").terminating(T0).build()));

        assertEquals(List.of(), bindings(handle(api.created(aPod("web-1").build()))));
        assertEquals(List.of("uid-web-1"), state.queue());

        assertEquals(
                List.of("web-1->node-4"),
                bindings(handle(api.created(aNode("node-4").build()))));
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
                "0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/memory-pressure: }.",
                pending.events()
                        .get(0)
                        .data(PatchRequest.class)
                        .patch()
                        .path("status")
                        .path("conditions")
                        .get(0)
                        .path("message")
                        .asText());

        assertEquals(
                List.of("web-1->node-1"),
                bindings(handle(api.updated(ResourceType.NODES, aNode("node-1").build()))));
    }

    @Test
    void theUnschedulableMessageCountsEachReason() {
        handle(api.created(aNode("node-1")
                .tainted("node.kubernetes.io/disk-pressure", "NoSchedule")
                .build()));
        handle(api.created(aNode("node-2").notReady().build()));
        handle(api.created(aNode("node-3").cordoned().build()));

        Effects pending = handle(api.created(aPod("web-1").build()));
        assertEquals(
                "0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/disk-pressure: }, "
                        + "2 node(s) were not ready or unschedulable.",
                pending.events()
                        .get(0)
                        .data(PatchRequest.class)
                        .patch()
                        .path("status")
                        .path("conditions")
                        .get(0)
                        .path("message")
                        .asText());
    }

    @Test
    void aFullNodeGetsNoMorePodsThePodWaitsSaysWhyAndIsPlacedWhenOneLeaves() {
        handle(api.created(aNode("node-1").allowingPods(2).build()));
        handle(api.created(aNode("node-2").allowingPods(1).notReady().build()));
        Pod first = aPod("web-1").build();
        handle(api.created(first));
        handle(api.created(aPod("web-2").build()));

        Effects pending = handle(api.created(aPod("web-3").build()));

        assertEquals(List.of(), bindings(pending));
        assertEquals(
                "0/2 nodes are available: 1 Too many pods, 1 node(s) were not ready or unschedulable.",
                pending.events()
                        .get(0)
                        .data(PatchRequest.class)
                        .patch()
                        .path("status")
                        .path("conditions")
                        .get(0)
                        .path("message")
                        .asText());
        assertEquals(2, state.podsOn("node-1"));
        assertEquals(List.of("web-3->node-1"), bindings(handle(api.removed(first))));
    }
}
