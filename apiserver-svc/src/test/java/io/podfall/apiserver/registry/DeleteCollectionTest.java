package io.podfall.apiserver.registry;

import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Status;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CollectionDeletionRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** deletecollection: one request on the log, every matching object deleted as a single delete would delete it. */
class DeleteCollectionTest extends RegistryFixture {
    private static final String DEPLOYMENT = """
            {"metadata":{"name":"%s","labels":{"app":"web"}},
             "spec":{"selector":{"matchLabels":{"app":"web"}},
                     "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}}}""";

    @Test
    void eachMatchingPodGetsExactlyWhatASingleDeleteWouldGiveIt() {
        // The same pods in two registries: one deleted as a collection, one pod by pod in key order.
        SinglesFixture singles = new SinglesFixture();
        for (RegistryFixture f : List.of(this, singles)) {
            f.create(
                    "pods",
                    "default",
                    labelled(aPod("a-scheduled").onNode("node-1").withGrace(20).build(), "web"));
            f.create("pods", "default", labelled(aPod("b-unscheduled").build(), "web"));
            f.create(
                    "pods",
                    "default",
                    labelled(
                            aPod("c-finished")
                                    .onNode("node-1")
                                    .inPhase("Succeeded")
                                    .build(),
                            "web"));
            f.create(
                    "pods",
                    "default",
                    labelled(
                            aPod("d-finalized")
                                    .onNode("node-1")
                                    .withFinalizer("example.com/hold")
                                    .build(),
                            "web"));
        }
        DeleteOptions options =
                new DeleteOptionsBuilder().withGracePeriodSeconds(5L).build();

        Effects collection = deleteCollection("pods", "default", "app=web", null, options);
        List<JsonNode> one = List.of("a-scheduled", "b-unscheduled", "c-finished", "d-finalized").stream()
                .flatMap(name -> singles.delete("pods", "default", name, options).events().stream())
                .map(e -> Json.tree(Map.of("type", e.type(), "subject", e.subject(), "data", e.data())))
                .toList();

        assertEquals(
                one,
                collection.events().stream()
                        .map(e -> Json.tree(Map.of("type", e.type(), "subject", e.subject(), "data", e.data())))
                        .toList());
        assertEquals(
                Json.tree(singles.state.list(ResourceType.PODS, "default")),
                Json.tree(state.list(ResourceType.PODS, "default")));
    }

    @Test
    void everyFactIsCausedByTheOneRequestAndSharesItsCorrelation() {
        create("pods", "default", labelled(aPod("web-1").onNode("node-1").build(), "web"));
        create("pods", "default", labelled(aPod("web-2").onNode("node-1").build(), "web"));

        Effects effects = deleteCollection("pods", "default", "app=web", null, new DeleteOptions());

        assertEquals(
                List.of(EventTypes.OBJECT_MARKED_TERMINATING, EventTypes.OBJECT_MARKED_TERMINATING), types(effects));
        assertEquals(
                List.of("namespaces/default/pods/web-1", "namespaces/default/pods/web-2"),
                effects.events().stream().map(Event::subject).toList());
        for (Event fact : effects.events()) {
            assertEquals(lastRequest.id(), fact.causationId());
            assertEquals(lastRequest.id(), fact.correlationId());
        }
    }

    @Test
    void onlyWhatBothSelectorsMatchInTheNamespaceIsDeleted() {
        createNamespace("other");
        create("pods", "default", labelled(aPod("web-1").onNode("node-1").build(), "web"));
        create("pods", "default", labelled(aPod("web-2").onNode("node-2").build(), "web"));
        create("pods", "default", labelled(aPod("db-1").onNode("node-1").build(), "db"));
        create(
                "pods",
                "other",
                labelled(aPod("web-1").inNamespace("other").onNode("node-1").build(), "web"));

        Effects effects = deleteCollection("pods", "default", "app=web", "spec.nodeName=node-1", new DeleteOptions());

        assertEquals(
                List.of("namespaces/default/pods/web-1"),
                effects.events().stream().map(Event::subject).toList());
    }

    @Test
    void theAnswerIsAListOfTheKindWithEveryMatchedObjectAsTheRequestLeftIt() {
        create("pods", "default", labelled(aPod("a").onNode("node-1").build(), "web"));
        create("pods", "default", labelled(aPod("b").build(), "web"));
        create("pods", "default", labelled(aPod("c").onNode("node-1").build(), "web"));
        delete(
                "pods",
                "default",
                "c",
                new DeleteOptionsBuilder().withGracePeriodSeconds(1L).build());

        Effects effects = deleteCollection("pods", "default", "app=web", null, new DeleteOptions());
        Outcome outcome = Outcome.of(state, lastRequest, effects).orElseThrow();

        assertEquals(200, outcome.code());
        assertEquals("PodList", outcome.body().path("kind").asText());
        assertEquals("v1", outcome.body().path("apiVersion").asText());
        assertEquals(
                Long.toString(state.resourceVersion()),
                outcome.body().path("metadata").path("resourceVersion").asText());
        JsonNode items = outcome.body().path("items");
        assertEquals(3, items.size());
        assertEquals(List.of("a", "b", "c"), List.of(name(items.get(0)), name(items.get(1)), name(items.get(2))));
        assertEquals(
                30,
                items.get(0).path("metadata").path("deletionGracePeriodSeconds").asInt(),
                "terminating");
        assertEquals(
                0,
                items.get(1).path("metadata").path("deletionGracePeriodSeconds").asInt(),
                "removed: its last state");
        assertEquals(
                1,
                items.get(2).path("metadata").path("deletionGracePeriodSeconds").asInt(),
                "already terminating sooner");
    }

    @Test
    void appsV1WorkloadsAreDeletedAsACollectionToo() {
        create("deployments", "default", json(DEPLOYMENT.formatted("web")));
        create("deployments", "default", json(DEPLOYMENT.formatted("api")));

        Effects effects = deleteCollection(
                "deployments",
                "default",
                null,
                null,
                new DeleteOptionsBuilder().withPropagationPolicy("Foreground").build());

        assertEquals(
                List.of(EventTypes.OBJECT_MARKED_TERMINATING, EventTypes.OBJECT_MARKED_TERMINATING), types(effects));
        for (Event fact : effects.events()) {
            assertEquals(
                    List.of(Registry.FINALIZER_FOREGROUND),
                    fact.data(ObjectChange.class)
                            .object(ResourceType.DEPLOYMENTS.javaType())
                            .getMetadata()
                            .getFinalizers());
        }
        assertEquals(
                "DeploymentList",
                Outcome.of(state, lastRequest, effects)
                        .orElseThrow()
                        .body()
                        .path("kind")
                        .asText());
    }

    @Test
    void nothingMatchedIsAnEmptyListAndNoWrite() {
        create("pods", "default", labelled(aPod("web-1").build(), "web"));

        Effects effects = deleteCollection("pods", "default", "app=db", null, new DeleteOptions());

        assertEquals(List.of(), types(effects));
        assertEquals(
                0,
                Outcome.of(state, lastRequest, effects)
                        .orElseThrow()
                        .body()
                        .path("items")
                        .size());
        assertEquals(1, objects());
    }

    @Test
    void aRefusalEndsItTheDeletionsBeforeItStayAndTheRefusalIsTheAnswer() {
        String uidA = pod(create("pods", "default", aPod("a").onNode("node-1").build()))
                .getMetadata()
                .getUid();
        create("pods", "default", aPod("b").onNode("node-1").build());
        create("pods", "default", aPod("c").onNode("node-1").build());

        // A uid precondition holds for one object at most: "b" is refused, "c" is never reached.
        Effects effects = deleteCollection(
                "pods",
                "default",
                null,
                null,
                new DeleteOptionsBuilder()
                        .withNewPreconditions()
                        .withUid(uidA)
                        .endPreconditions()
                        .build());

        assertEquals(List.of(EventTypes.OBJECT_MARKED_TERMINATING, EventTypes.REQUEST_REJECTED), types(effects));
        assertEquals(409, Outcome.of(state, lastRequest, effects).orElseThrow().code());
        assertTrue(stored("a").getMetadata().getDeletionTimestamp() != null, "not atomic, as upstream");
        assertEquals(null, stored("c").getMetadata().getDeletionTimestamp());
    }

    @Test
    void badOptionsOrSelectorsAreRefusedBeforeAnythingIsDeleted() {
        create("pods", "default", aPod("web-1").build());

        Status policy = rejection(deleteCollection(
                "pods",
                "default",
                null,
                null,
                new DeleteOptionsBuilder().withPropagationPolicy("Sideways").build()));
        Status selector = rejection(deleteCollection("pods", "default", null, "spec.image=nginx", new DeleteOptions()));
        Status dryRun = rejection(deleteCollection(
                "pods",
                "default",
                null,
                null,
                new DeleteOptionsBuilder().withDryRun("All").build()));

        assertEquals(422, policy.getCode());
        assertEquals(400, selector.getCode());
        assertEquals("field label not supported: spec.image", selector.getMessage());
        assertEquals(400, dryRun.getCode());
        assertEquals(null, stored("web-1").getMetadata().getDeletionTimestamp());
    }

    @Test
    void namespacesAndCollectionsAcrossAllNamespacesAreNotServed() {
        createNamespace("team-a");

        assertEquals(
                405,
                rejection(deleteCollection("namespaces", "", null, null, new DeleteOptions()))
                        .getCode());
        assertEquals(
                405,
                rejection(deleteCollection("pods", "", null, null, new DeleteOptions()))
                        .getCode());
        assertTrue(state.get(ResourceType.NAMESPACES, "", "team-a").isPresent());
    }

    @Test
    void theSameRequestSeenAgainOnTheLogDeletesNothingMore() {
        create("pods", "default", aPod("web-1").onNode("node-1").build());
        Effects first = deleteCollection("pods", "default", null, null, new DeleteOptions());

        assertEquals(1, first.events().size());
        assertEquals(List.of(), types(handle(lastRequest)));
    }

    // --- helpers ---

    /** A second registry for the same requests as single deletes. */
    private static final class SinglesFixture extends RegistryFixture {}

    private Effects deleteCollection(
            String resource, String namespace, String labelSelector, String fieldSelector, DeleteOptions options) {
        return handle(request(
                Registry.SOURCE,
                EventTypes.COLLECTION_DELETION_REQUESTED,
                Subjects.ofCollection(namespace, resource),
                new CollectionDeletionRequest(resource, namespace, labelSelector, fieldSelector, options)));
    }

    private static Pod labelled(Pod pod, String app) {
        pod.getMetadata().setLabels(Map.of("app", app));
        return pod;
    }

    private static Pod pod(Effects created) {
        return created.events().get(0).data(ObjectChange.class).object(Pod.class);
    }

    private static String name(JsonNode object) {
        return object.path("metadata").path("name").asText();
    }
}
