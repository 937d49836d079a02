package io.podfall.apiserver.registry;

import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.podfall.model.Json;
import io.podfall.model.apiserver.EvictionRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.StatusUpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.EventTypes;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pods/eviction subresource: pkg/registry/core/pod/storage/eviction.go, with no PodDisruptionBudgets. */
class EvictionTest extends RegistryFixture {

    @Test
    void aRunningPodGetsTheDisruptionTargetConditionThenIsMarkedTerminatingWithTheSpecsGrace() {
        String uid = uid(create(
                "pods", "default", aPod("web-1").onNode("node-1").withGrace(45).build()));
        running("web-1", uid);

        Effects effects = evict("web-1", eviction("policy/v1", "web-1"));

        assertEquals(List.of(EventTypes.POD_STATUS_UPDATED, EventTypes.OBJECT_MARKED_TERMINATING), types(effects));
        Pod terminating = pod(effects, 1);
        assertEquals(45L, terminating.getMetadata().getDeletionGracePeriodSeconds());
        PodCondition target = disruptionTarget(terminating);
        assertEquals("True", target.getStatus());
        assertEquals("EvictionByEvictionAPI", target.getReason());
        assertEquals("Eviction API: evicting", target.getMessage());
        assertEquals("Running", terminating.getStatus().getPhase(), "the status is otherwise kept");
        assertEquals(disruptionTarget(pod(effects, 0)), target);
    }

    @Test
    void theEvictionsDeleteOptionsGiveTheGracePeriod() {
        String uid =
                uid(create("pods", "default", aPod("web-1").onNode("node-1").build()));
        running("web-1", uid);
        ObjectNode body = eviction("policy/v1beta1", "web-1");
        body.putObject("deleteOptions").put("gracePeriodSeconds", 5);

        Effects effects = evict("web-1", body);

        assertEquals(5L, pod(effects, 1).getMetadata().getDeletionGracePeriodSeconds());
    }

    @Test
    void aPendingUnscheduledPodIsRemovedAtOnce() {
        create("pods", "default", aPod("web-1").build());

        Effects effects = evict("web-1", eviction("policy/v1", "web-1"));

        assertEquals(
                List.of(EventTypes.POD_STATUS_UPDATED, EventTypes.OBJECT_MARKED_TERMINATING, EventTypes.OBJECT_REMOVED),
                types(effects));
        assertEquals(0, objects());
    }

    @Test
    void aFinishedPodIsRemovedAtOnceWithoutAGraceWait() {
        String uid =
                uid(create("pods", "default", aPod("job-1").onNode("node-1").build()));
        handle(request(
                "/kubelet/node-1",
                EventTypes.STATUS_UPDATE_REQUESTED,
                "namespaces/default/pods/job-1",
                new StatusUpdateRequest(
                        "default",
                        "job-1",
                        uid,
                        new PodStatusBuilder().withPhase("Failed").build())));

        Effects effects = evict("job-1", eviction("policy/v1", "job-1"));

        assertEquals(
                EventTypes.OBJECT_REMOVED, types(effects).get(types(effects).size() - 1));
        assertEquals(0L, pod(effects, types(effects).size() - 1).getMetadata().getDeletionGracePeriodSeconds());
        assertEquals(0, objects());
    }

    @Test
    void theAnswerIsAStatusSuccessWithCode201() {
        create("pods", "default", aPod("web-1").onNode("node-1").build());

        Effects effects = evict("web-1", eviction("policy/v1", "web-1"));

        Outcome outcome = Outcome.of(state, lastRequest, effects).orElseThrow();
        assertEquals(201, outcome.code());
        assertEquals("Status", outcome.body().path("kind").asText());
        assertEquals("v1", outcome.body().path("apiVersion").asText());
        assertEquals("Success", outcome.body().path("status").asText());
        assertEquals(201, outcome.body().path("code").asInt());
    }

    @Test
    void evictingAgainDoesNotMoveTheConditionOrTheDeadline() {
        create("pods", "default", aPod("web-1").onNode("node-1").build());
        evict("web-1", eviction("policy/v1", "web-1"));
        long writes = writes();

        Effects again = handle(
                request(
                        Registry.SOURCE,
                        EventTypes.EVICTION_REQUESTED,
                        "namespaces/default/pods/web-1",
                        new EvictionRequest("default", "web-1", eviction("policy/v1", "web-1"))),
                T0.plusSeconds(5));

        assertEquals(List.of(), types(again));
        assertEquals(writes, writes());
        assertEquals(201, Outcome.of(state, lastRequest, again).orElseThrow().code());
    }

    @Test
    void aBodyWithoutKindIsAPolicyV1Eviction() {
        create("pods", "default", aPod("web-1").onNode("node-1").build());
        ObjectNode body = Json.MAPPER.createObjectNode();
        body.putObject("metadata").put("name", "web-1");

        assertEquals(
                EventTypes.OBJECT_MARKED_TERMINATING,
                types(evict("web-1", body)).get(1));
    }

    @Test
    void aMissingPodIsNotFound() {
        assertEquals(
                404, rejection(evict("ghost", eviction("policy/v1", "ghost"))).getCode());
    }

    @Test
    void aBodyOfAnotherKindOrNameIsABadRequestAndChangesNothing() {
        create("pods", "default", aPod("web-1").onNode("node-1").build());
        ObjectNode otherKind = eviction("v1", "web-1").put("kind", "Pod");
        ObjectNode badOptions = eviction("policy/v1", "web-1");
        badOptions.putObject("deleteOptions").put("gracePeriodSeconds", "soon");

        assertEquals(400, rejection(evict("web-1", otherKind)).getCode());
        assertEquals(
                "name in URL does not match name in Eviction object",
                rejection(evict("web-1", eviction("policy/v1", "web-2"))).getMessage());
        assertEquals(400, rejection(evict("web-1", badOptions)).getCode());
        assertEquals(
                400, rejection(evict("web-1", Json.MAPPER.createArrayNode())).getCode());
        for (JsonNode grace : List.<JsonNode>of(
                Json.MAPPER.getNodeFactory().textNode("30"),
                Json.MAPPER.getNodeFactory().numberNode(1.5))) {
            ObjectNode typed = eviction("policy/v1", "web-1");
            typed.putObject("deleteOptions").set("gracePeriodSeconds", grace);
            assertEquals(400, rejection(evict("web-1", typed)).getCode(), "as Go decodes it, not coerced: " + grace);
        }
        assertEquals(1, writes());
    }

    @Test
    void aUidPreconditionThatFailsIsAConflictBeforeTheConditionIsWritten() {
        create("pods", "default", aPod("web-1").onNode("node-1").build());
        ObjectNode body = eviction("policy/v1", "web-1");
        body.putObject("deleteOptions").putObject("preconditions").put("uid", "other");

        assertEquals(409, rejection(evict("web-1", body)).getCode());
        assertEquals(1, writes());
    }

    @Test
    void aResourceVersionPreconditionHoldsAcrossTheEvictionsOwnConditionWrite() {
        create("pods", "default", aPod("web-1").onNode("node-1").build());
        ObjectNode body = eviction("policy/v1", "web-1");
        body.putObject("deleteOptions").putObject("preconditions").put("resourceVersion", rv(1));

        assertEquals(
                EventTypes.OBJECT_MARKED_TERMINATING,
                types(evict("web-1", body)).get(1));
    }

    // --- helpers ---

    private Effects evict(String name, JsonNode body) {
        return handle(request(
                Registry.SOURCE,
                EventTypes.EVICTION_REQUESTED,
                "namespaces/default/pods/" + name,
                new EvictionRequest("default", name, body)));
    }

    private void running(String name, String uid) {
        handle(request(
                "/kubelet/node-1",
                EventTypes.STATUS_UPDATE_REQUESTED,
                "namespaces/default/pods/" + name,
                new StatusUpdateRequest(
                        "default",
                        name,
                        uid,
                        new PodStatusBuilder().withPhase("Running").build())));
    }

    private static ObjectNode eviction(String apiVersion, String name) {
        ObjectNode body =
                Json.MAPPER.createObjectNode().put("apiVersion", apiVersion).put("kind", "Eviction");
        body.putObject("metadata").put("name", name).put("namespace", "default");
        return body;
    }

    private static Pod pod(Effects effects, int i) {
        return effects.events().get(i).data(ObjectChange.class).object(Pod.class);
    }

    private static String uid(Effects creation) {
        return pod(creation, 0).getMetadata().getUid();
    }

    private static PodCondition disruptionTarget(Pod pod) {
        return pod.getStatus().getConditions().stream()
                .filter(c -> c.getType().equals("DisruptionTarget"))
                .findFirst()
                .orElseThrow();
    }
}
