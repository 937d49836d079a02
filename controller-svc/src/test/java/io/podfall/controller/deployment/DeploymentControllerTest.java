package io.podfall.controller.deployment;

import static io.podfall.controller.testing.ApiServerFacts.T0;
import static io.podfall.controller.testing.Deployments.aDeployment;
import static io.podfall.controller.testing.ReplicaSets.aReplicaSet;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.podfall.controller.testing.ApiServerFacts;
import io.podfall.controller.testing.ReplicaPods;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class DeploymentControllerTest {
    private static final ResourceType DEPLOYMENTS = ResourceType.DEPLOYMENTS;
    private static final ResourceType REPLICASETS = ResourceType.REPLICASETS;

    private final DeploymentController controller = new DeploymentController();
    private final DeploymentState state = controller.newState();
    private final ApiServerFacts api = new ApiServerFacts();
    /** Every event handled, in order, to replay into a fresh controller, and what each had the controller do. */
    private final List<Event> log = new ArrayList<>();

    private final List<Effects> outcomes = new ArrayList<>();
    /** What the API server holds, by subject, as the facts so far left it. */
    private final Map<String, HasMetadata> stored = new LinkedHashMap<>();

    private Effects handle(Event fact) {
        if (!fact.is(EventTypes.REQUEST_REJECTED)) {
            ObjectChange change = fact.data(ObjectChange.class);
            if (fact.is(EventTypes.OBJECT_REMOVED)) {
                stored.remove(fact.subject());
            } else {
                stored.put(fact.subject(), change.object(change.resourceType().javaType()));
            }
        }
        log.add(fact);
        Effects effects = controller.handle(state, fact, T0);
        outcomes.add(effects);
        return effects;
    }

    /** Answers every request in the effects as the API server would, and every request the answers lead to. */
    private void settle(Effects effects) {
        Deque<Event> pending = new ArrayDeque<>(effects.events());
        while (!pending.isEmpty()) {
            Event request = pending.poll();
            Event answer = request.is(EventTypes.CREATION_REQUESTED)
                    ? api.createdFrom(request)
                    : api.patchedFrom(request, stored.get(request.subject()));
            pending.addAll(handle(answer).events());
        }
    }

    private Deployment deployment() {
        return (Deployment) stored.get("namespaces/default/deployments/web");
    }

    private List<ReplicaSet> replicaSets() {
        return stored.values().stream()
                .filter(ReplicaSet.class::isInstance)
                .map(ReplicaSet.class::cast)
                .toList();
    }

    private ReplicaSet replicaSet(String name) {
        return (ReplicaSet) stored.get("namespaces/default/replicasets/" + name);
    }

    /** A user's change of the stored Deployment: a new generation. */
    private Effects updateDeployment(Consumer<Deployment> change) {
        Deployment d = Json.convert(Json.tree(deployment()), Deployment.class);
        change.accept(d);
        d.getMetadata().setGeneration(d.getMetadata().getGeneration() + 1);
        return handle(api.updated(DEPLOYMENTS, d));
    }

    /** What the ReplicaSet controller would report once the pods of the ReplicaSet run: all of them available. */
    private Effects podsComeUp(ReplicaSet rs) {
        ReplicaSet reported = Json.convert(Json.tree(rs), ReplicaSet.class);
        int replicas = rs.getSpec().getReplicas();
        reported.setStatus(new ReplicaSetStatus(
                replicas, List.of(), replicas, rs.getMetadata().getGeneration(), replicas, replicas, 0));
        return handle(api.updated(REPLICASETS, reported));
    }

    private void allPodsComeUp() {
        replicaSets().forEach(rs -> settle(podsComeUp(rs)));
    }

    /** A Deployment created, its ReplicaSet created and its pods up, every request answered. */
    private void running(Deployment d) {
        settle(handle(api.created(DEPLOYMENTS, d)));
        allPodsComeUp();
    }

    private static List<Event> ofType(Effects effects, String type, ResourceType resource) {
        return effects.events().stream()
                .filter(e -> e.is(type) && e.subject().contains("/" + resource.plural() + "/"))
                .toList();
    }

    private static ReplicaSet asked(Event creation) {
        return Json.convert(creation.data(CreationRequest.class).object(), ReplicaSet.class);
    }

    private static DeploymentCondition condition(DeploymentStatus status, String type) {
        return status.getConditions().stream()
                .filter(c -> type.equals(c.getType()))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void createsTheReplicaSetOfItsTemplateNamedByItsHash() {
        Deployment d = aDeployment("web").replicas(3).build();

        Effects effects = handle(api.created(DEPLOYMENTS, d));

        List<Event> creations = ofType(effects, EventTypes.CREATION_REQUESTED, REPLICASETS);
        assertEquals(1, creations.size());
        assertEquals("/controller/deployment", creations.get(0).source());
        String hash = DeploymentUtil.computeHash(d.getSpec().getTemplate(), null);
        ReplicaSet rs = asked(creations.get(0));
        assertEquals("web-" + hash, rs.getMetadata().getName());
        assertEquals(
                "namespaces/default/replicasets/web-" + hash, creations.get(0).subject());
        assertEquals(
                Map.of("app", "web", "pod-template-hash", hash),
                rs.getMetadata().getLabels());
        assertEquals(
                Map.of("app", "web", "pod-template-hash", hash),
                rs.getSpec().getSelector().getMatchLabels());
        assertEquals(
                Map.of("app", "web", "pod-template-hash", hash),
                rs.getSpec().getTemplate().getMetadata().getLabels());
        OwnerReference owner = rs.getMetadata().getOwnerReferences().get(0);
        assertEquals(
                List.of("apps/v1", "Deployment", "web", "uid-web", true, true),
                List.of(
                        owner.getApiVersion(),
                        owner.getKind(),
                        owner.getName(),
                        owner.getUid(),
                        owner.getController(),
                        owner.getBlockOwnerDeletion()));
        assertEquals(3, rs.getSpec().getReplicas());
        assertEquals(
                Map.of(
                        "deployment.kubernetes.io/revision",
                        "1",
                        "deployment.kubernetes.io/desired-replicas",
                        "3",
                        "deployment.kubernetes.io/max-replicas",
                        "4"),
                rs.getMetadata().getAnnotations());
        PatchRequest status =
                ofType(effects, EventTypes.PATCH_REQUESTED, DEPLOYMENTS).get(0).data(PatchRequest.class);
        assertEquals("status", status.subresource());
        assertEquals(
                "1",
                status.patch()
                        .path("metadata")
                        .path("annotations")
                        .path("deployment.kubernetes.io/revision")
                        .asText());
        DeploymentStatus written = Json.convert(status.patch().path("status"), DeploymentStatus.class);
        assertEquals("NewReplicaSetCreated", condition(written, "Progressing").getReason());
        assertEquals(
                "Created new replica set \"web-" + hash + "\"",
                condition(written, "Progressing").getMessage());
        assertEquals(
                "MinimumReplicasUnavailable", condition(written, "Available").getReason());
        assertEquals(1L, written.getObservedGeneration());
    }

    @Test
    void nothingIsAskedAgainWhileItsRequestsAreUnanswered() {
        Event created = api.created(DEPLOYMENTS, aDeployment("web").replicas(3).build());
        handle(created);

        assertEquals(Effects.NONE, handle(created), "a redelivered fact");
        assertTrue(
                handle(api.updated(DEPLOYMENTS, aDeployment("web").replicas(3).build()))
                        .events()
                        .isEmpty(),
                "another change before the ReplicaSet is seen");
    }

    @Test
    void theStatusIsWrittenOnlyWhenItChanges() {
        running(aDeployment("web").replicas(2).build());
        DeploymentStatus status = deployment().getStatus();
        assertEquals(
                List.of(2, 2, 2, 2, 0),
                List.of(
                        status.getReplicas(),
                        status.getUpdatedReplicas(),
                        status.getReadyReplicas(),
                        status.getAvailableReplicas(),
                        status.getUnavailableReplicas()));
        assertEquals("NewReplicaSetAvailable", condition(status, "Progressing").getReason());
        assertEquals("True", condition(status, "Available").getStatus());

        ReplicaSet rs = replicaSets().get(0);
        rs.getMetadata().getLabels().put("team", "a");
        assertEquals(
                Effects.NONE, handle(api.updated(REPLICASETS, rs)), "a change of its ReplicaSet that changes no count");
    }

    @Test
    void aScaleOfTheDeploymentScalesItsReplicaSet() {
        running(aDeployment("web").replicas(2).build());
        String name = replicaSets().get(0).getMetadata().getName();

        Effects effects = updateDeployment(d -> d.getSpec().setReplicas(5));

        PatchRequest scale =
                ofType(effects, EventTypes.PATCH_REQUESTED, REPLICASETS).get(0).data(PatchRequest.class);
        assertEquals(name, scale.name());
        assertNull(scale.subresource());
        assertEquals(5, scale.patch().path("spec").path("replicas").asInt());
        assertEquals(
                "5",
                scale.patch()
                        .path("metadata")
                        .path("annotations")
                        .path("deployment.kubernetes.io/desired-replicas")
                        .asText());
        assertEquals(
                "7",
                scale.patch()
                        .path("metadata")
                        .path("annotations")
                        .path("deployment.kubernetes.io/max-replicas")
                        .asText());
        assertEquals(List.of(), ofType(effects, EventTypes.CREATION_REQUESTED, REPLICASETS));
    }

    @Test
    void aNewTemplateRollsOutWithinMaxSurgeAndMaxUnavailable() {
        running(aDeployment("web").replicas(4).build());
        String oldName = replicaSets().get(0).getMetadata().getName();

        Effects effects = updateDeployment(
                d -> d.getSpec().getTemplate().getSpec().getContainers().get(0).setImage("nginx:1.28"));

        ReplicaSet created = asked(
                ofType(effects, EventTypes.CREATION_REQUESTED, REPLICASETS).get(0));
        assertEquals(1, created.getSpec().getReplicas(), "4 + 25% surge (rounded up) = 5 pods at most");
        assertEquals("2", created.getMetadata().getAnnotations().get("deployment.kubernetes.io/revision"));
        PatchRequest old =
                ofType(effects, EventTypes.PATCH_REQUESTED, REPLICASETS).get(0).data(PatchRequest.class);
        assertEquals(oldName, old.name());
        assertEquals(
                3,
                old.patch().path("spec").path("replicas").asInt(),
                "4 - 25% unavailable (rounded down) = 3 available at least");
        settle(effects);
        String newName = created.getMetadata().getName();

        for (int step = 0;
                replicaSet(oldName).getSpec().getReplicas() > 0
                        || replicaSet(newName).getSpec().getReplicas() < 4;
                step++) {
            assertTrue(step < 20, "the rollout ends");
            for (ReplicaSet rs : replicaSets()) {
                settle(podsComeUp(rs));
                int pods = replicaSets().stream()
                        .mapToInt(r -> r.getSpec().getReplicas())
                        .sum();
                int availableLeft = replicaSets().stream()
                        .mapToInt(r -> Math.min(
                                r.getSpec().getReplicas(),
                                r.getStatus() == null
                                        ? 0
                                        : DeploymentUtil.value(r.getStatus().getAvailableReplicas())))
                        .sum();
                assertTrue(pods <= 5, "at most replicas + maxSurge: " + pods);
                assertTrue(availableLeft >= 3, "at least replicas - maxUnavailable available: " + availableLeft);
            }
        }
        allPodsComeUp();
        DeploymentStatus status = deployment().getStatus();
        assertEquals(
                List.of(4, 4, 4, 0, 2L),
                List.of(
                        status.getReplicas(),
                        status.getUpdatedReplicas(),
                        status.getAvailableReplicas(),
                        status.getUnavailableReplicas(),
                        status.getObservedGeneration()));
        assertEquals("NewReplicaSetAvailable", condition(status, "Progressing").getReason());
        assertEquals(
                "ReplicaSet \"" + newName + "\" has successfully progressed.",
                condition(status, "Progressing").getMessage());
        assertEquals("2", deployment().getMetadata().getAnnotations().get("deployment.kubernetes.io/revision"));
    }

    @Test
    void theOldTemplateAgainMakesItsReplicaSetTheNewOneWithTheNextRevision() {
        running(aDeployment("web")
                .replicas(1)
                .rollingUpdate(new IntOrString(1), new IntOrString(0))
                .build());
        String first = replicaSets().get(0).getMetadata().getName();
        settle(updateDeployment(
                d -> d.getSpec().getTemplate().getSpec().getContainers().get(0).setImage("nginx:1.28")));
        allPodsComeUp();
        allPodsComeUp();

        Effects effects = updateDeployment(
                d -> d.getSpec().getTemplate().getSpec().getContainers().get(0).setImage("nginx:1.27"));

        assertEquals(List.of(), ofType(effects, EventTypes.CREATION_REQUESTED, REPLICASETS));
        PatchRequest back =
                ofType(effects, EventTypes.PATCH_REQUESTED, REPLICASETS).get(0).data(PatchRequest.class);
        assertEquals(first, back.name());
        assertEquals(
                "3",
                back.patch()
                        .path("metadata")
                        .path("annotations")
                        .path("deployment.kubernetes.io/revision")
                        .asText());
        assertEquals(
                "1",
                back.patch()
                        .path("metadata")
                        .path("annotations")
                        .path("deployment.kubernetes.io/revision-history")
                        .asText());
        assertEquals(1, back.patch().path("spec").path("replicas").asInt());
    }

    @Test
    void aScaleDuringARolloutIsSharedInProportion() {
        running(aDeployment("web")
                .replicas(4)
                .rollingUpdate(new IntOrString(1), new IntOrString(0))
                .build());
        settle(updateDeployment(
                d -> d.getSpec().getTemplate().getSpec().getContainers().get(0).setImage("nginx:1.28")));
        ReplicaSet newRS = replicaSets().get(1);
        settle(podsComeUp(newRS));
        assertEquals(
                List.of(3, 2),
                replicaSets().stream().map(rs -> rs.getSpec().getReplicas()).toList());

        Effects effects = updateDeployment(d -> d.getSpec().setReplicas(8));

        Map<String, Integer> sizes = new LinkedHashMap<>();
        ofType(effects, EventTypes.PATCH_REQUESTED, REPLICASETS)
                .forEach(e -> sizes.put(
                        e.data(PatchRequest.class).name(),
                        e.data(PatchRequest.class)
                                .patch()
                                .path("spec")
                                .path("replicas")
                                .asInt()));
        assertEquals(
                Map.of(
                        replicaSets().get(0).getMetadata().getName(),
                        5,
                        newRS.getMetadata().getName(),
                        4),
                sizes,
                "8 + 1 surge = 9 pods, shared as the 3:2 of the 5 the ReplicaSets were sized for: 5.4 and 3.6, rounded");
    }

    @Test
    void recreateScalesTheOldReplicaSetToZeroAndWaitsForItsPodsToBeGone() {
        running(aDeployment("web").replicas(2).recreate().build());
        ReplicaSet old = replicaSets().get(0);
        List<io.fabric8.kubernetes.api.model.Pod> pods = List.of(
                ReplicaPods.aPodOf(old, "web-a").onNode("node-1").ready(T0).build(),
                ReplicaPods.aPodOf(old, "web-b").onNode("node-1").ready(T0).build());
        pods.forEach(p -> handle(api.created(p)));

        Effects effects = updateDeployment(
                d -> d.getSpec().getTemplate().getSpec().getContainers().get(0).setImage("nginx:1.28"));
        assertEquals(
                0,
                ofType(effects, EventTypes.PATCH_REQUESTED, REPLICASETS)
                        .get(0)
                        .data(PatchRequest.class)
                        .patch()
                        .path("spec")
                        .path("replicas")
                        .asInt());
        assertEquals(List.of(), ofType(effects, EventTypes.CREATION_REQUESTED, REPLICASETS));
        settle(effects);
        settle(podsComeUp(replicaSets().get(0)));
        for (io.fabric8.kubernetes.api.model.Pod p : pods) {
            p.getMetadata().setDeletionTimestamp(T0.plusSeconds(30).toString());
            assertEquals(List.of(), handle(api.markedTerminating(p)).events(), "a terminating pod still runs");
        }
        assertEquals(List.of(), handle(api.removed(pods.get(0))).events());

        Effects last = handle(api.removed(pods.get(1)));

        ReplicaSet created =
                asked(ofType(last, EventTypes.CREATION_REQUESTED, REPLICASETS).get(0));
        assertEquals(2, created.getSpec().getReplicas(), "all at once");
    }

    @Test
    void aDeploymentBeingDeletedGetsNoReplicaSetOnlyItsStatus() {
        Effects effects = handle(api.created(
                DEPLOYMENTS, aDeployment("web").replicas(2).terminating(T0).build()));

        assertEquals(List.of(), ofType(effects, EventTypes.CREATION_REQUESTED, REPLICASETS));
        assertEquals(1, ofType(effects, EventTypes.PATCH_REQUESTED, DEPLOYMENTS).size());
    }

    @Test
    void aDeploymentBeingDeletedIsNotScaled() {
        running(aDeployment("web").replicas(2).build());

        Effects effects = updateDeployment(d -> {
            d.getSpec().setReplicas(5);
            d.getMetadata().setDeletionTimestamp(T0.toString());
        });

        assertEquals(List.of(), ofType(effects, EventTypes.PATCH_REQUESTED, REPLICASETS));
    }

    @Test
    void aRejectedCreationIsRetriedAfterABackoff() {
        Effects first = handle(api.created(DEPLOYMENTS, aDeployment("web").build()));
        Event status = ofType(first, EventTypes.PATCH_REQUESTED, DEPLOYMENTS).get(0);
        assertEquals(
                List.of(),
                handle(api.patchedFrom(status, stored.get(status.subject()))).events(),
                "the creation is still unanswered");

        Effects rejected = handle(api.rejected(
                ofType(first, EventTypes.CREATION_REQUESTED, REPLICASETS).get(0), 500, "InternalError"));

        assertEquals(List.of(), rejected.events(), "no retry on the rejection itself");
        Timer retry = rejected.timers().get(0);
        assertEquals("deployment/retry/default/web", retry.key().id());
        assertEquals(T0.plusMillis(5), retry.at());
        assertEquals(
                1,
                ofType(controller.fire(state, retry, retry.at()), EventTypes.CREATION_REQUESTED, REPLICASETS)
                        .size());
    }

    @Test
    void aNameTakenByAnotherReplicaSetIsAHashCollisionCountedInTheStatus() {
        Deployment d = aDeployment("web").build();
        String taken = "web-" + DeploymentUtil.computeHash(d.getSpec().getTemplate(), null);
        handle(api.created(REPLICASETS, aReplicaSetNamed(taken)));

        Effects effects = handle(api.created(DEPLOYMENTS, d));

        assertEquals(List.of(), ofType(effects, EventTypes.CREATION_REQUESTED, REPLICASETS));
        Event status = ofType(effects, EventTypes.PATCH_REQUESTED, DEPLOYMENTS).get(0);
        assertEquals(
                1,
                status.data(PatchRequest.class)
                        .patch()
                        .path("status")
                        .path("collisionCount")
                        .asInt());
        Effects next = handle(api.patchedFrom(status, stored.get(status.subject())));
        assertEquals(
                "web-" + DeploymentUtil.computeHash(d.getSpec().getTemplate(), 1),
                asked(ofType(next, EventTypes.CREATION_REQUESTED, REPLICASETS).get(0))
                        .getMetadata()
                        .getName());
    }

    private static ReplicaSet aReplicaSetNamed(String name) {
        ReplicaSet rs = aReplicaSet("other").build();
        rs.getMetadata().setName(name);
        return rs;
    }

    @Test
    void replayingTheSameFactsGivesTheSameEffects() {
        running(aDeployment("web").replicas(2).build());
        settle(updateDeployment(
                d -> d.getSpec().getTemplate().getSpec().getContainers().get(0).setImage("nginx:1.28")));
        allPodsComeUp();

        DeploymentController rebuilt = new DeploymentController();
        DeploymentState fresh = rebuilt.newState();
        List<Effects> replayed =
                log.stream().map(e -> rebuilt.handle(fresh, e, T0)).toList();

        assertEquals(outcomes, replayed);
        assertTrue(
                outcomes.stream()
                                .filter(e -> !ofType(e, EventTypes.CREATION_REQUESTED, REPLICASETS)
                                        .isEmpty())
                                .count()
                        == 2,
                "two ReplicaSets asked for, once each");
    }
}
