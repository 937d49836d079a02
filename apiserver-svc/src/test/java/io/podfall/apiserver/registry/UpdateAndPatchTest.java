package io.podfall.apiserver.registry;

import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Status;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.apiserver.UpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * PUT and PATCH through the registry: the update rules, finalizer removal, and the patch applied to the stored object.
 */
class UpdateAndPatchTest extends RegistryFixture {

    @Test
    void anUpdateOfLabelsIsStoredAsObjectUpdatedWithTheNextResourceVersion() {
        create(aPod("web-1").onNode("node-1").build());
        ObjectNode body = storedJson("web-1");
        ((ObjectNode) body.path("metadata")).putObject("labels").put("app", "web");

        Effects effects = update("web-1", null, body);

        assertEquals(List.of(EventTypes.OBJECT_UPDATED), types(effects));
        Pod pod = pod(effects);
        assertEquals(Map.of("app", "web"), pod.getMetadata().getLabels());
        assertEquals(rv(2), pod.getMetadata().getResourceVersion());
        assertEquals(Json.tree(pod), Json.tree(stored("web-1")));
        Outcome outcome = Outcome.of(state, lastRequest, effects).orElseThrow();
        assertEquals(200, outcome.code());
        assertEquals(
                "web",
                outcome.body().path("metadata").path("labels").path("app").asText());
    }

    @Test
    void aStaleResourceVersionIsAConflictWithUpstreamsMessage() {
        create(aPod("web-1").build());
        ObjectNode body = storedJson("web-1");
        patch("web-1", PatchRequest.MERGE, "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}");
        ((ObjectNode) body.path("metadata")).putObject("labels").put("app", "web");

        Status status = rejection(update("web-1", null, body));

        assertEquals(409, status.getCode());
        assertEquals("Conflict", status.getReason());
        assertEquals(
                "Operation cannot be fulfilled on pods \"web-1\": the object has been modified; please apply your changes "
                        + "to the latest version and try again",
                status.getMessage());
        assertEquals(Map.of("a", "b"), stored("web-1").getMetadata().getLabels());
    }

    @Test
    void anUpdateWithoutResourceVersionIsUnconditional() {
        create(aPod("web-1").build());
        ObjectNode body = storedJson("web-1");
        ((ObjectNode) body.path("metadata")).remove("resourceVersion");
        ((ObjectNode) body.path("metadata")).putObject("annotations").put("note", "x");

        assertEquals(List.of(EventTypes.OBJECT_UPDATED), types(update("web-1", null, body)));
    }

    @Test
    void serverFieldsAreKeptAndADifferentUidIsInvalid() {
        create(aPod("web-1").build());
        ObjectNode body = storedJson("web-1");
        ObjectNode meta = (ObjectNode) body.path("metadata");
        meta.put("creationTimestamp", "2030-01-01T00:00:00Z");
        meta.remove("uid");
        meta.putObject("labels").put("a", "b");
        assertEquals(
                "2025-03-01T10:00:00Z",
                pod(update("web-1", null, body)).getMetadata().getCreationTimestamp());

        ObjectNode other = storedJson("web-1");
        ((ObjectNode) other.path("metadata")).put("uid", "someone-else");
        Status status = rejection(update("web-1", null, other));
        assertEquals(422, status.getCode());
        assertEquals(
                "Pod \"web-1\" is invalid: metadata.uid: Invalid value: \"someone-else\": field is immutable",
                status.getMessage());
    }

    @Test
    void anUpdateNeverMovesTheDeletionTimestampNorDropsTheGracePeriod() {
        create(aPod("web-1").onNode("node-1").withFinalizer("example.com/block").build());
        delete("web-1", 30L);
        ObjectNode body = storedJson("web-1");
        ((ObjectNode) body.path("metadata")).remove("deletionTimestamp");
        ((ObjectNode) body.path("metadata")).remove("deletionGracePeriodSeconds");
        ((ObjectNode) body.path("metadata")).putObject("labels").put("a", "b");

        Pod pod = pod(update("web-1", null, body));

        assertEquals("2025-03-01T10:00:30Z", pod.getMetadata().getDeletionTimestamp());
        assertEquals(30L, pod.getMetadata().getDeletionGracePeriodSeconds());
    }

    @Test
    void noFinalizerCanBeAddedToAnObjectBeingDeleted() {
        create(aPod("web-1").onNode("node-1").withFinalizer("example.com/block").build());
        delete("web-1", 30L);

        Status status = rejection(
                patch("web-1", PatchRequest.STRATEGIC, "{\"metadata\":{\"finalizers\":[\"example.com/late\"]}}"));

        assertEquals(422, status.getCode());
        assertEquals(
                "Pod \"web-1\" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object "
                        + "is being deleted, found new finalizers []string{\"example.com/late\"}",
                status.getMessage());
    }

    @Test
    void aSpecChangeIsForbidden() {
        create(aPod("web-1").build());

        Status status = rejection(patch(
                "web-1",
                PatchRequest.STRATEGIC,
                "{\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"nginx:2\"}]}}"));

        assertEquals(422, status.getCode());
        assertEquals("Invalid", status.getReason());
        assertTrue(
                status.getMessage()
                        .startsWith("Pod \"web-1\" is invalid: spec: Forbidden: pod updates may not change fields "
                                + "other than `metadata.labels`"),
                status.getMessage());
        assertEquals(
                "nginx:1.27", stored("web-1").getSpec().getContainers().get(0).getImage());
    }

    @Test
    void aBodyWithoutDefaultsIsNoSpecChange() {
        create(aPod("web-1").build());
        ObjectNode body = (ObjectNode) Json.tree(aPod("web-1").build());
        body.putObject("metadata").put("name", "web-1").putObject("labels").put("a", "b");

        assertEquals(List.of(EventTypes.OBJECT_UPDATED), types(update("web-1", null, body)));
    }

    @Test
    void theMainResourceKeepsTheStatusAndTheStatusSubresourceKeepsTheSpec() {
        create(aPod("web-1").build());

        Effects main = patch(
                "web-1",
                PatchRequest.MERGE,
                "{\"status\":{\"phase\":\"Running\"},\"metadata\":{\"labels\":{\"a\":\"b\"}}}");
        assertEquals("Pending", pod(main).getStatus().getPhase());

        Effects status = handle(request(
                EventTypes.PATCH_REQUESTED,
                new PatchRequest(
                        "pods",
                        "default",
                        "web-1",
                        "status",
                        PatchRequest.MERGE,
                        json("{\"status\":{\"phase\":\"Running\"}}"))));
        assertEquals(List.of(EventTypes.OBJECT_UPDATED), types(status));
        assertEquals("Running", stored("web-1").getStatus().getPhase());
    }

    @Test
    void anUpdateThatChangesNothingWritesNothingAndAnswersTheStoredObject() {
        create(aPod("web-1").build());

        Effects effects = update("web-1", null, storedJson("web-1"));

        assertTrue(effects.events().isEmpty());
        Outcome outcome = Outcome.of(state, lastRequest, effects).orElseThrow();
        assertEquals(200, outcome.code());
        assertEquals(
                rv(1), outcome.body().path("metadata").path("resourceVersion").asText());
    }

    @Test
    void theNameInTheBodyMustBeTheUrls() {
        create(aPod("web-1").build());
        ObjectNode body = storedJson("web-1");
        ((ObjectNode) body.path("metadata")).put("name", "web-2");

        Status status = rejection(update("web-1", null, body));

        assertEquals(400, status.getCode());
        assertEquals("the name of the object (web-2) does not match the name on the URL (web-1)", status.getMessage());
    }

    @Test
    void updatingAMissingPodIsNotFound() {
        assertEquals(404, rejection(patch("ghost", PatchRequest.MERGE, "{}")).getCode());
    }

    // --- finalizers: store.go shouldDeleteDuringUpdate ---

    @Test
    void removingTheLastFinalizerOfAPodWaitingAtGraceZeroRemovesIt() {
        create(aPod("x").onNode("node-1").withFinalizer("example.com/block").build());
        delete("x", 30L);
        delete("x", 0L); // the kubelet's final delete: held by the finalizer, at grace 0

        Effects effects = patch("x", PatchRequest.MERGE, "{\"metadata\":{\"finalizers\":null}}");

        assertEquals(List.of(EventTypes.OBJECT_REMOVED), types(effects));
        Pod last = pod(effects);
        assertTrue(last.getMetadata().getFinalizers().isEmpty());
        assertEquals(Long.toString(state.resourceVersion()), last.getMetadata().getResourceVersion());
        assertFalse(state.get(ResourceType.PODS, "default", "x").isPresent());
        assertEquals(200, Outcome.of(state, lastRequest, effects).orElseThrow().code());
    }

    @Test
    void removingTheLastFinalizerWithinTheGracePeriodOnlyUpdates() {
        create(aPod("x").onNode("node-1").withFinalizer("example.com/block").build());
        delete("x", 30L);

        Effects effects = patch("x", PatchRequest.JSON, "[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]");

        assertEquals(List.of(EventTypes.OBJECT_UPDATED), types(effects), "the kubelet's final delete removes it later");
        assertTrue(stored("x").getMetadata().getFinalizers().isEmpty());
        assertEquals(List.of(EventTypes.OBJECT_MARKED_TERMINATING, EventTypes.OBJECT_REMOVED), types(delete("x", 0L)));
    }

    @Test
    void removingOneOfTwoFinalizersKeepsTheObject() {
        create(aPod("x").withFinalizer("a.io/one").withFinalizer("b.io/two").build());
        delete("x", 0L);

        Effects effects = patch(
                "x", PatchRequest.STRATEGIC, "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"a.io/one\"]}}");

        assertEquals(List.of(EventTypes.OBJECT_UPDATED), types(effects));
        assertEquals(List.of("b.io/two"), stored("x").getMetadata().getFinalizers());
    }

    @Test
    void aPutWithoutFinalizersRemovesAnObjectHeldAtGraceZero() {
        create(aPod("x").withFinalizer("example.com/block").build());
        delete("x", 0L);
        ObjectNode body = storedJson("x");
        ((ObjectNode) body.path("metadata")).remove("finalizers");

        assertEquals(List.of(EventTypes.OBJECT_REMOVED), types(update("x", null, body)));
    }

    // --- the garbage collector's patches: pkg/controller/garbagecollector/patch.go ---

    @Test
    void theGarbageCollectorsPatchRemovesOneOwnerReferenceOfAPodAndNamesItsUid() {
        create(aPod("z").build());
        patch(
                "z",
                PatchRequest.MERGE,
                "{\"metadata\":{\"ownerReferences\":[" + ownerReference("rs-a") + "," + ownerReference("rs-b") + "]}}");
        String uid = stored("z").getMetadata().getUid();

        Effects effects = patch(
                "z",
                PatchRequest.STRATEGIC,
                "{\"metadata\":{\"ownerReferences\":[{\"$patch\":\"delete\",\"uid\":\"uid-rs-a\"}],\"uid\":\"" + uid
                        + "\"}}");

        assertEquals(List.of(EventTypes.OBJECT_UPDATED), types(effects));
        assertEquals(
                List.of("uid-rs-b"),
                stored("z").getMetadata().getOwnerReferences().stream()
                        .map(r -> r.getUid())
                        .toList());
        Status status = rejection(
                patch(
                        "z",
                        PatchRequest.STRATEGIC,
                        "{\"metadata\":{\"ownerReferences\":[{\"$patch\":\"delete\",\"uid\":\"uid-rs-b\"}],\"uid\":\"another\"}}"));
        assertEquals(
                422,
                status.getCode(),
                "the uid in the patch is a precondition: another object of that name is left alone");
    }

    @Test
    void theGarbageCollectorsFinalizerPatchCarriesTheResourceVersionItSaw() {
        create(aPod("z").withFinalizer("foregroundDeletion").build());
        delete("z", 0L);
        String seen = stored("z").getMetadata().getResourceVersion();
        patch("z", PatchRequest.MERGE, "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}");

        assertEquals(
                409,
                rejection(patch(
                                "z",
                                PatchRequest.MERGE,
                                "{\"metadata\":{\"resourceVersion\":\"" + seen + "\",\"finalizers\":[]}}"))
                        .getCode());
        assertEquals(
                List.of(EventTypes.OBJECT_REMOVED),
                types(patch(
                        "z",
                        PatchRequest.MERGE,
                        "{\"metadata\":{\"resourceVersion\":\""
                                + stored("z").getMetadata().getResourceVersion() + "\",\"finalizers\":[]}}")));
    }

    // --- patch types ---

    @Test
    void kubectlLabelAndAnnotateAreStrategicMergePatches() {
        create(aPod("y").build());

        patch("y", PatchRequest.STRATEGIC, "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}");
        patch("y", PatchRequest.STRATEGIC, "{\"metadata\":{\"annotations\":{\"note\":\"hi\"}}}");
        patch("y", PatchRequest.STRATEGIC, "{\"metadata\":{\"labels\":{\"a\":null,\"c\":\"d\"}}}");

        assertEquals(Map.of("c", "d"), stored("y").getMetadata().getLabels());
        assertEquals(Map.of("note", "hi"), stored("y").getMetadata().getAnnotations());
    }

    @Test
    void aJsonPatchThatFailsIs422AndStoresNothing() {
        create(aPod("y").build());

        Status status = rejection(
                patch(
                        "y",
                        PatchRequest.JSON,
                        "[{\"op\":\"test\",\"path\":\"/metadata/name\",\"value\":\"z\"},{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{}}]"));

        assertEquals(422, status.getCode());
        assertEquals("Invalid", status.getReason());
        assertEquals(rv(1), stored("y").getMetadata().getResourceVersion());
    }

    @Test
    void aPatchIsAppliedToTheObjectAsStoredWhenTheRequestIsRead() {
        create(aPod("y").build());
        Event first = request(
                EventTypes.PATCH_REQUESTED,
                new PatchRequest(
                        "pods",
                        "default",
                        "y",
                        null,
                        PatchRequest.JSON,
                        json("[{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"a\":\"1\"}}]")));
        Event second = request(
                EventTypes.PATCH_REQUESTED,
                new PatchRequest(
                        "pods",
                        "default",
                        "y",
                        null,
                        PatchRequest.JSON,
                        json("[{\"op\":\"add\",\"path\":\"/metadata/labels/b\",\"value\":\"2\"}]")));

        handle(first);
        handle(second);

        assertEquals(Map.of("a", "1", "b", "2"), stored("y").getMetadata().getLabels());
    }

    @Test
    void aPatchWithAStaleResourceVersionIsAConflict() {
        create(aPod("y").build());
        patch("y", PatchRequest.MERGE, "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}");

        assertEquals(
                409,
                rejection(patch("y", PatchRequest.MERGE, "{\"metadata\":{\"resourceVersion\":\"1\",\"labels\":null}}"))
                        .getCode());
    }

    @Test
    void anUnknownPatchTypeIs415NamingTheAcceptedOnes() {
        create(aPod("y").build());

        Status status = rejection(patch("y", "application/apply-patch+yaml", "{}"));

        assertEquals(415, status.getCode());
        assertEquals("UnsupportedMediaType", status.getReason());
        assertEquals(
                "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, "
                        + "application/merge-patch+json, application/strategic-merge-patch+json",
                status.getMessage());
    }

    @Test
    void aNodeCanBePatchedAndItsStatusUpdated() {
        handle(request(
                "/kubelet/node-1",
                EventTypes.CREATION_REQUESTED,
                new CreationRequest(
                        "nodes",
                        "",
                        json("{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"node-1\"}}"))));

        Effects labelled = handle(request(
                EventTypes.PATCH_REQUESTED,
                new PatchRequest(
                        "nodes",
                        "",
                        "node-1",
                        null,
                        PatchRequest.STRATEGIC,
                        json("{\"metadata\":{\"labels\":{\"zone\":\"a\"}},\"spec\":{\"unschedulable\":true}}"))));

        assertEquals(List.of(EventTypes.OBJECT_UPDATED), types(labelled));
        JsonNode node = labelled.events().get(0).data(ObjectChange.class).object();
        assertEquals("a", node.path("metadata").path("labels").path("zone").asText());
        assertTrue(node.path("spec").path("unschedulable").asBoolean());
        assertEquals("nodes/node-1", labelled.events().get(0).subject());
    }

    // --- helpers ---

    private Event request(String type, Object data) {
        return request(Registry.SOURCE, type, data);
    }

    private Event request(String source, String type, Object data) {
        return request(source, type, "namespaces/default/pods/x", data);
    }

    private void create(Pod pod) {
        handle(request(EventTypes.CREATION_REQUESTED, new CreationRequest("pods", "default", Json.tree(pod))));
    }

    private Effects update(String name, String subresource, JsonNode object) {
        return handle(
                request(EventTypes.UPDATE_REQUESTED, new UpdateRequest("pods", "default", name, subresource, object)));
    }

    private Effects patch(String name, String patchType, String patch) {
        return handle(request(
                EventTypes.PATCH_REQUESTED, new PatchRequest("pods", "default", name, null, patchType, json(patch))));
    }

    private Effects delete(String name, long grace) {
        return handle(request(
                EventTypes.DELETION_REQUESTED,
                new DeletionRequest(
                        "pods",
                        "default",
                        name,
                        new DeleteOptionsBuilder().withGracePeriodSeconds(grace).build())));
    }

    private static String ownerReference(String replicaSet) {
        return "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"" + replicaSet + "\",\"uid\":\"uid-"
                + replicaSet + "\",\"controller\":true,\"blockOwnerDeletion\":true}";
    }

    private ObjectNode storedJson(String name) {
        return (ObjectNode) Json.tree(stored(name));
    }

    private static Pod pod(Effects effects) {
        return effects.events().get(0).data(ObjectChange.class).object(Pod.class);
    }
}
