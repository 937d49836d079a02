package io.podfall.controller.namespace;

import static io.podfall.controller.testing.ApiServerFacts.T0;
import static io.podfall.model.event.EventTypes.COLLECTION_DELETION_REQUESTED;
import static io.podfall.model.event.EventTypes.OBJECT_MARKED_TERMINATING;
import static io.podfall.model.event.EventTypes.OBJECT_REMOVED;
import static io.podfall.model.event.EventTypes.UPDATE_REQUESTED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.podfall.controller.testing.ApiServerFacts;
import io.podfall.model.apiserver.CollectionDeletionRequest;
import io.podfall.model.apiserver.UpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.k8s.ResourceType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NamespaceControllerTest {
    private final NamespaceController controller = new NamespaceController();
    private final NamespaceControllerState state = controller.newState();
    private final ApiServerFacts api = new ApiServerFacts();
    private final List<Event> delivered = new ArrayList<>();

    private Effects deliver(Event fact) {
        delivered.add(fact);
        return controller.handle(state, fact, T0);
    }

    private static Namespace namespace(String name) {
        return new NamespaceBuilder()
                .withNewMetadata()
                .withName(name)
                .withUid("uid-ns-" + name)
                .endMetadata()
                .withNewSpec()
                .withFinalizers("kubernetes")
                .endSpec()
                .withNewStatus()
                .withPhase("Active")
                .endStatus()
                .build();
    }

    private static Namespace terminating(Namespace ns) {
        return new NamespaceBuilder(ns)
                .editMetadata()
                .withDeletionTimestamp(T0.toString())
                .endMetadata()
                .editStatus()
                .withPhase("Terminating")
                .endStatus()
                .build();
    }

    private static Pod pod(String ns, String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace(ns)
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build();
    }

    private static Service service(String ns, String name) {
        return new ServiceBuilder()
                .withNewMetadata()
                .withNamespace(ns)
                .withName(name)
                .endMetadata()
                .build();
    }

    private static List<String> types(Effects effects) {
        return effects.events().stream().map(Event::type).toList();
    }

    @Test
    void aTerminatingNamespaceHasEachResourceWithContentDeletedByOneCollectionDeleteInItsFlow() {
        Namespace ns = namespace("team-a");
        deliver(api.created(ResourceType.NAMESPACES, ns));
        deliver(api.created(pod("team-a", "web-1")));
        deliver(api.created(pod("team-a", "web-2")));
        deliver(api.created(ResourceType.SERVICES, service("team-a", "web")));
        deliver(api.created(pod("other", "db")));

        Event marked = api.markedTerminating(ResourceType.NAMESPACES, terminating(ns));
        Effects emptying = deliver(marked);

        assertEquals(List.of(COLLECTION_DELETION_REQUESTED, COLLECTION_DELETION_REQUESTED), types(emptying));
        List<CollectionDeletionRequest> requests = emptying.events().stream()
                .map(e -> e.data(CollectionDeletionRequest.class))
                .toList();
        assertEquals(
                List.of("pods", "services"),
                requests.stream().map(CollectionDeletionRequest::resource).toList());
        requests.forEach(r -> {
            assertEquals("team-a", r.namespace());
            assertEquals("Background", r.options().getPropagationPolicy());
            assertEquals(null, r.labelSelector());
        });
        emptying.events().forEach(e -> {
            assertEquals(marked.id(), e.causationId());
            assertEquals(NamespaceController.SOURCE, e.source());
        });
        assertEquals("namespaces/team-a/pods", emptying.events().get(0).subject());
    }

    @Test
    void theNamespaceIsFinalizedOnceItsLastObjectIsRemovedNotBefore() {
        Namespace ns = namespace("team-a");
        deliver(api.created(ResourceType.NAMESPACES, ns));
        Pod web1 = pod("team-a", "web-1");
        Pod web2 = pod("team-a", "web-2");
        deliver(api.created(web1));
        deliver(api.created(web2));
        Effects emptying = deliver(api.markedTerminating(ResourceType.NAMESPACES, terminating(ns)));
        Event collection = emptying.events().get(0);

        assertTrue(deliver(api.answer(collection, OBJECT_MARKED_TERMINATING, ResourceType.PODS, web1))
                .isEmpty());
        assertTrue(deliver(api.answer(collection, OBJECT_MARKED_TERMINATING, ResourceType.PODS, web2))
                .isEmpty());
        assertTrue(deliver(api.removed(web1)).isEmpty(), "web-2 still terminates");
        Effects finalized = deliver(api.removed(web2));

        assertEquals(List.of(UPDATE_REQUESTED), types(finalized));
        UpdateRequest finalize = finalized.events().get(0).data(UpdateRequest.class);
        assertEquals("namespaces", finalize.resource());
        assertEquals("team-a", finalize.name());
        assertEquals("finalize", finalize.subresource());
        assertTrue(finalize.object().path("spec").path("finalizers").isEmpty(), "kubernetes taken out");
    }

    @Test
    void anEmptyNamespaceIsFinalizedAtOnceAndOnlyOnce() {
        Namespace ns = namespace("empty");
        deliver(api.created(ResourceType.NAMESPACES, ns));
        Event marked = api.markedTerminating(ResourceType.NAMESPACES, terminating(ns));
        assertEquals(List.of(UPDATE_REQUESTED), types(deliver(marked)));
        assertTrue(controller.handle(state, marked, T0).isEmpty(), "a redelivery");
        assertTrue(
                deliver(api.updated(ResourceType.NAMESPACES, terminating(ns))).isEmpty(), "finalize still in flight");
    }

    @Test
    void aNamespaceWithoutTheKubernetesFinalizerOrNotBeingDeletedIsLeftAlone() {
        Namespace ns = namespace("team-a");
        deliver(api.created(ResourceType.NAMESPACES, ns));
        deliver(api.created(pod("team-a", "web-1")));
        assertTrue(deliver(api.updated(ResourceType.NAMESPACES, ns)).isEmpty());
        Namespace finalized = new NamespaceBuilder(terminating(ns))
                .editSpec()
                .withFinalizers(List.of())
                .endSpec()
                .build();
        assertTrue(deliver(api.updated(ResourceType.NAMESPACES, finalized)).isEmpty());
    }

    @Test
    void aRefusedCollectionDeleteIsAskedAgainAfterABreathWhileContentRemains() {
        Namespace ns = namespace("team-a");
        deliver(api.created(ResourceType.NAMESPACES, ns));
        deliver(api.created(pod("team-a", "web-1")));
        Event collection = deliver(api.markedTerminating(ResourceType.NAMESPACES, terminating(ns)))
                .events()
                .get(0);

        Effects refused = deliver(api.rejected(collection, 500, "InternalError"));
        assertTrue(refused.events().isEmpty());
        Timer retry = refused.timers().get(0);
        assertEquals(T0.plus(NamespaceController.RETRY_AFTER), retry.at());

        Effects again = controller.fire(state, retry, retry.at());
        assertEquals(List.of(COLLECTION_DELETION_REQUESTED), types(again));
        assertEquals(
                "pods",
                again.events().get(0).data(CollectionDeletionRequest.class).resource());
    }

    @Test
    void replayingTheSameFactsGivesTheSameRequests() {
        Namespace ns = namespace("team-a");
        deliver(api.created(ResourceType.NAMESPACES, ns));
        Pod web1 = pod("team-a", "web-1");
        deliver(api.created(web1));
        Effects live = deliver(api.markedTerminating(ResourceType.NAMESPACES, terminating(ns)));
        Effects liveFinalize = deliver(api.answer(live.events().get(0), OBJECT_REMOVED, ResourceType.PODS, web1));

        NamespaceControllerState rebuilt = controller.newState();
        List<Event> replayed = new ArrayList<>();
        for (Event e : delivered) {
            replayed.addAll(controller.handle(rebuilt, e, T0).events());
        }
        List<Event> expected = new ArrayList<>(live.events());
        expected.addAll(liveFinalize.events());
        assertEquals(expected, replayed);
    }
}
