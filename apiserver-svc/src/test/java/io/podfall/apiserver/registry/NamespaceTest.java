package io.podfall.apiserver.registry;

import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.podfall.model.Json;
import io.podfall.model.apiserver.BindingRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.apiserver.UpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Namespaces as objects: the system ones, NamespaceLifecycle admission, and a namespace's termination. */
class NamespaceTest extends RegistryFixture {

    @Nested
    class SystemNamespacesOfACluster {
        @Test
        void theBootstrapCreatesDefaultKubeSystemKubePublicAndKubeNodeLeaseAsActiveNamespaces() {
            for (String name : List.of("default", "kube-system", "kube-public", "kube-node-lease")) {
                Namespace ns = namespace(name);
                assertEquals("Active", ns.getStatus().getPhase());
                assertEquals(List.of("kubernetes"), ns.getSpec().getFinalizers());
            }
            assertEquals(4, state.list(ResourceType.NAMESPACES, "").size());
        }

        @Test
        void onceTheyExistNothingIsRequestedAgain() {
            assertEquals(List.of(), SystemNamespaces.missing(state, T0));
        }

        @Test
        void replicasDecidingOnTheSameStateAskWithTheSameIdsSoTheRegistryCreatesOnce() {
            RegistryState fresh = registry.newState();
            List<Event> first = SystemNamespaces.missing(fresh, T0);
            List<Event> second = SystemNamespaces.missing(fresh, T0.plusSeconds(5));

            assertEquals(
                    first.stream().map(Event::id).toList(),
                    second.stream().map(Event::id).toList());
            first.forEach(e -> registry.handle(fresh, e, T0));
            second.forEach(e -> assertTrue(registry.handle(fresh, e, T0).isEmpty(), "a duplicate on the log"));
            assertEquals(4, fresh.resourceVersion());
        }

        @Test
        void aSystemNamespaceDeletedAndMissingAtTheNextStartIsAskedForWithANewId() {
            RegistryState fresh = registry.newState();
            String before = SystemNamespaces.missing(fresh, T0).get(3).id();
            SystemNamespaces.missing(fresh, T0).forEach(e -> registry.handle(fresh, e, T0));
            fresh.remove(
                    ResourceType.NAMESPACES,
                    fresh.get(ResourceType.NAMESPACES, "", "kube-node-lease").orElseThrow());

            List<Event> again = SystemNamespaces.missing(fresh, T0);

            assertEquals(1, again.size());
            assertFalse(again.get(0).id().equals(before));
        }

        @Test
        void theApiServerIsReadyOnlyWhenTheNamespacesNobodyMayDeleteExist() {
            RegistryState fresh = registry.newState();
            assertFalse(SystemNamespaces.ready(fresh));

            SystemNamespaces.missing(fresh, T0).forEach(e -> registry.handle(fresh, e, T0));

            assertTrue(SystemNamespaces.ready(fresh));
            assertTrue(SystemNamespaces.ready(state));
        }
    }

    @Nested
    class Lifecycle {
        @Test
        void nothingIsCreatedInANamespaceThatDoesNotExist() {
            Status status = rejection(
                    create("pods", "nope", aPod("web-1").inNamespace("nope").build()));

            assertEquals(404, status.getCode());
            assertEquals("NotFound", status.getReason());
            assertEquals("namespaces \"nope\" not found", status.getMessage());
            assertEquals("namespaces", status.getDetails().getKind());
            assertEquals(0, objects());
        }

        @Test
        void aMissingNamespaceIsFoundBeforeTheObjectIsValidated() {
            Status status = rejection(
                    create("pods", "nope", aPod("Not_Valid").inNamespace("nope").build()));

            assertEquals(404, status.getCode());
        }

        @Test
        void clusterScopedObjectsNeedNoNamespace() {
            Effects node = create(
                    "nodes",
                    "",
                    new NodeBuilder()
                            .withNewMetadata()
                            .withName("node-1")
                            .endMetadata()
                            .build());

            assertEquals(List.of(EventTypes.OBJECT_CREATED), types(node));
        }

        @Test
        void nothingIsCreatedInATerminatingNamespace() {
            createNamespace("team-a");
            delete("namespaces", "", "team-a", new DeleteOptions());

            Status status = rejection(
                    create("pods", "team-a", aPod("web-1").inNamespace("team-a").build()));

            assertEquals(403, status.getCode());
            assertEquals("Forbidden", status.getReason());
            assertEquals(
                    "pods \"web-1\" is forbidden: unable to create new content in namespace team-a because it is being terminated",
                    status.getMessage());
            assertEquals(
                    "NamespaceTerminating",
                    status.getDetails().getCauses().get(0).getReason());
            assertEquals(
                    "metadata.namespace", status.getDetails().getCauses().get(0).getField());
            assertEquals(
                    "namespace team-a is being terminated",
                    status.getDetails().getCauses().get(0).getMessage());
        }

        @Test
        void noPodIsBoundInATerminatingNamespaceButItsPodsCanStillBeUpdatedAndDeleted() {
            createNamespace("team-a");
            String uid = create(
                            "pods",
                            "team-a",
                            aPod("web-1").inNamespace("team-a").build())
                    .events()
                    .get(0)
                    .data(ObjectChange.class)
                    .object()
                    .path("metadata")
                    .path("uid")
                    .asText();
            delete("namespaces", "", "team-a", new DeleteOptions());

            Status binding = rejection(handle(request(
                    "/controller/scheduler",
                    EventTypes.BINDING_REQUESTED,
                    "namespaces/team-a/pods/web-1",
                    new BindingRequest("team-a", "web-1", uid, "node-1"))));
            Effects labelled = handle(request(
                    Registry.SOURCE,
                    EventTypes.PATCH_REQUESTED,
                    "namespaces/team-a/pods/web-1",
                    new PatchRequest(
                            "pods",
                            "team-a",
                            "web-1",
                            null,
                            PatchRequest.MERGE,
                            json("{\"metadata\":{\"labels\":{\"a\":\"b\"}}}"))));
            Effects deleted = delete("pods", "team-a", "web-1", new DeleteOptions());

            assertEquals(403, binding.getCode());
            assertEquals(List.of(EventTypes.OBJECT_UPDATED), types(labelled));
            assertEquals(
                    EventTypes.OBJECT_REMOVED,
                    deleted.events().get(deleted.events().size() - 1).type());
        }

        @Test
        void defaultKubeSystemAndKubePublicMayNotBeDeletedKubeNodeLeaseMay() {
            for (String name : NamespaceLifecycle.IMMORTAL) {
                Status status = rejection(delete("namespaces", "", name, new DeleteOptions()));
                assertEquals(403, status.getCode());
                assertEquals(
                        "namespaces \"" + name + "\" is forbidden: this namespace may not be deleted",
                        status.getMessage());
                assertEquals(name, status.getDetails().getName());
            }
            assertEquals(
                    List.of(EventTypes.OBJECT_MARKED_TERMINATING),
                    types(delete("namespaces", "", "kube-node-lease", new DeleteOptions())));
        }

        /**
         * generateName is a prefix of the same rule (a trailing '-' masked): validated, not only the name made of it.
         */
        @Test
        void aGenerateNameIsValidatedAsAPrefixOfTheNameRule() {
            Status status = rejection(
                    create("namespaces", "", json("{\"metadata\":{\"generateName\":\"" + "a".repeat(300) + "\"}}")));

            assertEquals(422, status.getCode());
            assertEquals(
                    "metadata.generateName",
                    status.getDetails().getCauses().get(0).getField());
            assertTrue(status.getMessage().contains("must be no more than 63 characters"), status.getMessage());
            assertEquals(
                    List.of(EventTypes.OBJECT_CREATED),
                    types(create("namespaces", "", json("{\"metadata\":{\"generateName\":\"team-\"}}"))));
        }

        /**
         * The spec and status of an update are the stored ones, but the body is decoded whole first: a string is no
         * spec.
         */
        @Test
        void aPatchWhoseSpecIsNoObjectIsABadRequestThoughTheSpecWouldBeReplaced() {
            createNamespace("team-a");

            Status status = rejection(handle(request(
                    Registry.SOURCE,
                    EventTypes.PATCH_REQUESTED,
                    "namespaces/team-a",
                    new PatchRequest(
                            "namespaces", "", "team-a", null, PatchRequest.MERGE, json("{\"spec\":\"str\"}")))));

            assertEquals(400, status.getCode());
            assertTrue(
                    status.getMessage().contains("cannot unmarshal string into Go struct field Namespace.spec"),
                    status.getMessage());
        }

        @Test
        void aNamespaceNameIsAnRfc1123Label() {
            Status status = rejection(create("namespaces", "", json("{\"metadata\":{\"name\":\"team.a\"}}")));

            assertEquals(422, status.getCode());
            assertEquals("metadata.name", status.getDetails().getCauses().get(0).getField());
            assertTrue(status.getMessage().contains("a lowercase RFC 1123 label must consist of"), status.getMessage());
        }
    }

    @Nested
    class Termination {
        @Test
        void theFirstDeleteMarksTheNamespaceTerminatingNowWithoutGraceAndKeepsItsFinalizer() {
            createNamespace("team-a");

            Effects effects = delete(
                    "namespaces",
                    "",
                    "team-a",
                    new DeleteOptionsBuilder()
                            .withPropagationPolicy("Background")
                            .build());

            assertEquals(List.of(EventTypes.OBJECT_MARKED_TERMINATING), types(effects));
            Namespace ns = effects.events().get(0).data(ObjectChange.class).object(Namespace.class);
            assertEquals("Terminating", ns.getStatus().getPhase());
            assertEquals("2025-03-01T10:00:00Z", ns.getMetadata().getDeletionTimestamp());
            assertNull(ns.getMetadata().getDeletionGracePeriodSeconds());
            assertEquals(List.of("kubernetes"), ns.getSpec().getFinalizers());
            assertEquals(List.of(), ns.getMetadata().getFinalizers());
            assertAnsweredTerminating(effects);
        }

        @Test
        void whileTheNamespaceControllerEmptiesItAnotherDeleteChangesNothingAndAnswersTheNamespace() {
            createNamespace("team-a");
            delete("namespaces", "", "team-a", new DeleteOptions());

            Effects again = delete("namespaces", "", "team-a", new DeleteOptions());

            assertEquals(List.of(), types(again));
            assertAnsweredTerminating(again);
        }

        @Test
        void finalizeTakingTheLastFinalizerOfATerminatingNamespaceRemovesIt() {
            createNamespace("team-a");
            delete("namespaces", "", "team-a", new DeleteOptions());

            Effects effects = finalizeNamespace("team-a", List.of());

            assertEquals(List.of(EventTypes.OBJECT_REMOVED), types(effects));
            assertTrue(state.get(ResourceType.NAMESPACES, "", "team-a").isEmpty());
            assertEquals(
                    200, Outcome.of(state, lastRequest, effects).orElseThrow().code());
        }

        @Test
        void finalizeWritesOnlyTheFinalizersNeverThePhase() {
            createNamespace("team-a");

            Effects effects = updateNamespace("team-a", Kinds.FINALIZE, body -> {
                body.withObjectProperty("spec").putArray("finalizers");
                body.withObjectProperty("status").put("phase", "Terminating");
            });

            assertEquals(List.of(EventTypes.OBJECT_UPDATED), types(effects), "an active namespace stays");
            assertEquals(List.of(), namespace("team-a").getSpec().getFinalizers());
            assertEquals("Active", namespace("team-a").getStatus().getPhase());
        }

        @Test
        void anUpdateOfTheNamespaceItselfNeverChangesItsFinalizers() {
            createNamespace("team-a");

            updateNamespace(
                    "team-a", null, body -> body.withObjectProperty("spec").putArray("finalizers"));

            assertEquals(List.of("kubernetes"), namespace("team-a").getSpec().getFinalizers());
        }

        @Test
        void aFinalizerNameMustBeStandardOrQualified() {
            createNamespace("team-a");

            Status status = rejection(finalizeNamespace("team-a", List.of("kubernetes", "mine")));

            assertEquals(422, status.getCode());
            assertEquals(
                    "spec.finalizers[1]", status.getDetails().getCauses().get(0).getField());
            assertTrue(
                    status.getMessage().endsWith("name is neither a standard finalizer name nor is it fully qualified"),
                    status.getMessage());
            assertEquals(
                    List.of(EventTypes.OBJECT_UPDATED),
                    types(finalizeNamespace("team-a", List.of("kubernetes", "example.com/mine"))));
        }

        @Test
        void theFinalizeSubresourceCannotBePatched() {
            createNamespace("team-a");

            Status status = rejection(handle(request(
                    Registry.SOURCE,
                    EventTypes.PATCH_REQUESTED,
                    "namespaces/team-a",
                    new PatchRequest(
                            "namespaces",
                            "",
                            "team-a",
                            Kinds.FINALIZE,
                            PatchRequest.MERGE,
                            json("{\"spec\":{\"finalizers\":[]}}")))));

            assertEquals(405, status.getCode());
        }

        @Test
        void anOrphanFinalizerHoldsAFinalizedNamespaceUntilTheGarbageCollectorRemovesIt() {
            createNamespace("team-a");
            Effects marked = delete(
                    "namespaces",
                    "",
                    "team-a",
                    new DeleteOptionsBuilder().withPropagationPolicy("Orphan").build());
            assertEquals(
                    List.of(Registry.FINALIZER_ORPHAN),
                    marked.events()
                            .get(0)
                            .data(ObjectChange.class)
                            .object(Namespace.class)
                            .getMetadata()
                            .getFinalizers());

            assertEquals(List.of(EventTypes.OBJECT_UPDATED), types(finalizeNamespace("team-a", List.of())));
            Effects released = handle(request(
                    "/controller/garbagecollector",
                    EventTypes.PATCH_REQUESTED,
                    "namespaces/team-a",
                    new PatchRequest(
                            "namespaces",
                            "",
                            "team-a",
                            null,
                            PatchRequest.MERGE,
                            json("{\"metadata\":{\"finalizers\":null}}"))));

            assertEquals(List.of(EventTypes.OBJECT_REMOVED), types(released));
        }

        @Test
        void orphanDependentsFalseAsksForForegroundDeletionOfTheNamespace() {
            createNamespace("team-a");

            Effects marked = delete(
                    "namespaces",
                    "",
                    "team-a",
                    new DeleteOptionsBuilder().withOrphanDependents(false).build());

            assertEquals(
                    List.of(Registry.FINALIZER_FOREGROUND),
                    marked.events()
                            .get(0)
                            .data(ObjectChange.class)
                            .object(Namespace.class)
                            .getMetadata()
                            .getFinalizers());
        }

        @Test
        void aUidPreconditionThatDoesNotMatchIsAConflictAsTheNamespaceStorageWordsIt() {
            createNamespace("team-a");

            Status status = rejection(delete(
                    "namespaces",
                    "",
                    "team-a",
                    new DeleteOptionsBuilder()
                            .withNewPreconditions()
                            .withUid("other")
                            .endPreconditions()
                            .build()));

            assertEquals(409, status.getCode());
            assertEquals(
                    "Operation cannot be fulfilled on namespaces \"team-a\": Precondition failed: UID in precondition: other, "
                            + "UID in object meta: "
                            + namespace("team-a").getMetadata().getUid(),
                    status.getMessage());
        }

        @Test
        void aFinalizedTerminatingNamespaceIsRemovedByTheNextDelete() {
            createNamespace("team-a");
            finalizeNamespace("team-a", List.of());
            delete("namespaces", "", "team-a", new DeleteOptions());

            Effects effects = delete("namespaces", "", "team-a", new DeleteOptions());

            assertEquals(List.of(EventTypes.OBJECT_REMOVED), types(effects));
            assertEquals(
                    "Namespace",
                    Outcome.of(state, lastRequest, effects)
                            .orElseThrow()
                            .body()
                            .path("kind")
                            .asText(),
                    "a namespace's delete answers with the object");
        }
    }

    private Namespace namespace(String name) {
        return (Namespace) state.get(ResourceType.NAMESPACES, "", name).orElseThrow();
    }

    private Effects finalizeNamespace(String name, List<String> finalizers) {
        return updateNamespace(
                name, Kinds.FINALIZE, body -> body.withObjectProperty("spec").set("finalizers", Json.tree(finalizers)));
    }

    /** A PUT of the namespace as stored, changed by {@code change}, to the namespace or its {@code subresource}. */
    private Effects updateNamespace(String name, String subresource, Consumer<ObjectNode> change) {
        ObjectNode body = (ObjectNode) Json.tree(namespace(name));
        change.accept(body);
        return handle(request(
                Registry.SOURCE,
                EventTypes.UPDATE_REQUESTED,
                "namespaces/" + name,
                new UpdateRequest("namespaces", "", name, subresource, body)));
    }

    /** A namespace's delete answers 200 with the namespace, here terminating. */
    private void assertAnsweredTerminating(Effects effects) {
        Outcome outcome = Outcome.of(state, lastRequest, effects).orElseThrow();
        assertEquals(200, outcome.code());
        assertEquals("Terminating", outcome.body().path("status").path("phase").asText());
    }
}
