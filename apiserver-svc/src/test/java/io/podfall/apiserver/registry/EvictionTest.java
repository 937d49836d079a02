package io.podfall.apiserver.registry;

import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatusBuilder;
import io.podfall.model.Json;
import io.podfall.model.apiserver.EvictionRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.apiserver.StatusUpdateRequest;
import io.podfall.model.apiserver.UpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.DisruptionBudgets;
import io.podfall.model.k8s.ResourceType;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The pods/eviction subresource: pkg/registry/core/pod/storage/eviction.go, without PodDisruptionBudgets and with them
 * (checkAndDecrement).
 */
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
        writeStatus("job-1", uid, new PodStatusBuilder().withPhase("Failed").build());

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

    // --- with PodDisruptionBudgets ---

    @Test
    void aReadyPodTakesOneDisruptionFromItsBudgetBeforeTheDisruptionTargetAndTheDeletion() {
        readyPod("web-1");
        budget("web-pdb", 1, 3, 2);

        Effects effects = evict("web-1", eviction("policy/v1", "web-1"));

        assertEquals(
                List.of(EventTypes.OBJECT_UPDATED, EventTypes.POD_STATUS_UPDATED, EventTypes.OBJECT_MARKED_TERMINATING),
                types(effects));
        PodDisruptionBudget pdb =
                effects.events().get(0).data(ObjectChange.class).object(PodDisruptionBudget.class);
        assertEquals(0, pdb.getStatus().getDisruptionsAllowed());
        assertEquals(Map.of("web-1", "2025-03-01T10:00:00Z"), pdb.getStatus().getDisruptedPods());
        Condition allowed = pdb.getStatus().getConditions().get(0);
        assertEquals(
                List.of("DisruptionAllowed", "False", "InsufficientPods"),
                List.of(allowed.getType(), allowed.getStatus(), allowed.getReason()),
                "the last disruption taken turns the condition");
        assertEquals(201, Outcome.of(state, lastRequest, effects).orElseThrow().code());
    }

    @Test
    void aBudgetWithDisruptionsLeftKeepsItsCondition() {
        readyPod("web-1");
        budget("web-pdb", 2, 3, 1);

        Effects effects = evict("web-1", eviction("policy/v1", "web-1"));

        PodDisruptionBudget pdb =
                effects.events().get(0).data(ObjectChange.class).object(PodDisruptionBudget.class);
        assertEquals(1, pdb.getStatus().getDisruptionsAllowed());
        assertEquals("SufficientPods", pdb.getStatus().getConditions().get(0).getReason());
    }

    @Test
    void noDisruptionAllowedIsA429WithUpstreamsMessageAndCauseAndWritesNothing() {
        readyPod("web-1");
        budget("web-pdb", 0, 2, 2);
        long writes = writes();

        Effects effects = evict("web-1", eviction("policy/v1", "web-1"));

        Status refused = rejection(effects);
        assertEquals(429, refused.getCode());
        assertEquals("TooManyRequests", refused.getReason());
        assertEquals("Cannot evict pod as it would violate the pod's disruption budget.", refused.getMessage());
        assertEquals("DisruptionBudget", refused.getDetails().getCauses().get(0).getReason());
        assertEquals(
                "The disruption budget web-pdb needs 2 healthy pods and has 2 currently",
                refused.getDetails().getCauses().get(0).getMessage());
        assertEquals(null, refused.getDetails().getRetryAfterSeconds(), "no Retry-After for a budget at 0");
        assertEquals(writes, writes());
        assertEquals(429, Outcome.of(state, lastRequest, effects).orElseThrow().code());
    }

    @Test
    void aStatusOfAnOlderSpecIsA429UntilTheControllerCatchesUp() {
        readyPod("web-1");
        budget("web-pdb", 1, 3, 2);
        ObjectNode spec = Json.MAPPER.createObjectNode();
        spec.putObject("spec").put("minAvailable", 1);
        handle(request(
                Registry.SOURCE,
                EventTypes.PATCH_REQUESTED,
                "namespaces/default/poddisruptionbudgets/web-pdb",
                new PatchRequest("poddisruptionbudgets", "default", "web-pdb", null, PatchRequest.MERGE, spec)));

        Status refused = rejection(evict("web-1", eviction("policy/v1", "web-1")));

        assertEquals(429, refused.getCode());
        assertEquals(10, refused.getDetails().getRetryAfterSeconds());
        assertEquals(
                "The disruption budget web-pdb is still being processed by the server.",
                refused.getDetails().getCauses().get(0).getMessage());
    }

    @Test
    void aPodTwoBudgetsSelectIsUpstreams500() {
        readyPod("web-1");
        budget("web-pdb", 1, 3, 2);
        budget("other-pdb", 1, 3, 2);

        Status refused = rejection(evict("web-1", eviction("policy/v1", "web-1")));

        assertEquals(500, refused.getCode());
        assertEquals(
                "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
                refused.getMessage());
    }

    @Test
    void anUnreadyPodIsEvictedWithoutTakingADisruptionWhileTheBudgetIsHealthy() {
        String uid = uid(create(
                "pods",
                "default",
                aPod("web-1").onNode("node-1").withLabel("app", "web").build()));
        running("web-1", uid);
        budget("web-pdb", 0, 2, 2);

        Effects effects = evict("web-1", eviction("policy/v1", "web-1"));

        assertEquals(List.of(EventTypes.POD_STATUS_UPDATED, EventTypes.OBJECT_MARKED_TERMINATING), types(effects));
    }

    @Test
    void anUnreadyPodOfAnAlwaysAllowBudgetIsEvictedEvenWhenTheBudgetIsShort() {
        String uid = uid(create(
                "pods",
                "default",
                aPod("web-1").onNode("node-1").withLabel("app", "web").build()));
        running("web-1", uid);
        budget("web-pdb", 0, 1, 2);
        ObjectNode policy = Json.MAPPER.createObjectNode();
        policy.putObject("spec").put("unhealthyPodEvictionPolicy", "AlwaysAllow");
        handle(request(
                Registry.SOURCE,
                EventTypes.PATCH_REQUESTED,
                "namespaces/default/poddisruptionbudgets/web-pdb",
                new PatchRequest("poddisruptionbudgets", "default", "web-pdb", null, PatchRequest.MERGE, policy)));

        Effects effects = evict("web-1", eviction("policy/v1", "web-1"));

        assertEquals(List.of(EventTypes.POD_STATUS_UPDATED, EventTypes.OBJECT_MARKED_TERMINATING), types(effects));
    }

    @Test
    void tooManyEvictionsNotYetConfirmedAreForbidden() {
        readyPod("web-1");
        budget("web-pdb", 1, 3, 2);
        PodDisruptionBudget pdb =
                (PodDisruptionBudget) state.get(ResourceType.PODDISRUPTIONBUDGETS, "default", "web-pdb")
                        .orElseThrow();
        Map<String, String> disrupted = new TreeMap<>();
        for (int i = 0; i <= EvictionRest.MAX_DISRUPTED_POD_SIZE; i++) {
            disrupted.put("gone-" + i, "2025-03-01T10:00:00Z");
        }
        pdb.getStatus().setDisruptedPods(disrupted);
        handle(request(
                Registry.SOURCE,
                EventTypes.UPDATE_REQUESTED,
                "namespaces/default/poddisruptionbudgets/web-pdb",
                new UpdateRequest("poddisruptionbudgets", "default", "web-pdb", "status", Json.tree(pdb))));

        Status refused = rejection(evict("web-1", eviction("policy/v1", "web-1")));

        assertEquals(403, refused.getCode());
        assertEquals(
                "poddisruptionbudget.policy \"web-pdb\" is forbidden: DisruptedPods map too big - too many evictions"
                        + " not confirmed by PDB controller",
                refused.getMessage());
    }

    @Test
    void aPendingPodSkipsTheBudget() {
        create("pods", "default", aPod("web-1").withLabel("app", "web").build());
        budget("web-pdb", 0, 2, 2);

        assertEquals(
                EventTypes.OBJECT_REMOVED,
                types(evict("web-1", eviction("policy/v1", "web-1"))).get(2));
    }

    // --- helpers ---

    /** A Running, Ready pod labelled app=web on node-1. */
    private void readyPod(String name) {
        String uid = uid(create(
                "pods",
                "default",
                aPod(name).onNode("node-1").withLabel("app", "web").build()));
        writeStatus(
                name,
                uid,
                new PodStatusBuilder()
                        .withPhase("Running")
                        .addNewCondition()
                        .withType("Ready")
                        .withStatus("True")
                        .endCondition()
                        .build());
    }

    /** A budget minAvailable 2 over app=web, its status as the disruption controller would write it. */
    private void budget(String name, int allowed, int currentHealthy, int desiredHealthy) {
        PodDisruptionBudget pdb = new PodDisruptionBudgetBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withMinAvailable(new IntOrString(desiredHealthy))
                .withNewSelector()
                .addToMatchLabels("app", "web")
                .endSelector()
                .endSpec()
                .build();
        assertEquals(List.of(EventTypes.OBJECT_CREATED), types(create("poddisruptionbudgets", "default", pdb)));
        PodDisruptionBudgetStatus status = new PodDisruptionBudgetStatusBuilder()
                .withObservedGeneration(1L)
                .withDisruptionsAllowed(allowed)
                .withCurrentHealthy(currentHealthy)
                .withDesiredHealthy(desiredHealthy)
                .withExpectedPods(currentHealthy)
                .build();
        DisruptionBudgets.updateDisruptionAllowedCondition(status, T0);
        pdb.setStatus(status);
        Effects written = handle(request(
                Registry.SOURCE,
                EventTypes.UPDATE_REQUESTED,
                "namespaces/default/poddisruptionbudgets/" + name,
                new UpdateRequest("poddisruptionbudgets", "default", name, "status", Json.tree(pdb))));
        assertEquals(List.of(EventTypes.OBJECT_UPDATED), types(written));
    }

    private Effects evict(String name, JsonNode body) {
        return handle(request(
                Registry.SOURCE,
                EventTypes.EVICTION_REQUESTED,
                "namespaces/default/pods/" + name,
                new EvictionRequest("default", name, body)));
    }

    private void running(String name, String uid) {
        writeStatus(name, uid, new PodStatusBuilder().withPhase("Running").build());
    }

    /** The pod's kubelet writes its status. */
    private void writeStatus(String name, String uid, PodStatus status) {
        handle(request(
                "/kubelet/node-1",
                EventTypes.STATUS_UPDATE_REQUESTED,
                "namespaces/default/pods/" + name,
                new StatusUpdateRequest("default", name, uid, status)));
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
