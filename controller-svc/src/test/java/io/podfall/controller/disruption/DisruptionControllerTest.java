package io.podfall.controller.disruption;

import static io.podfall.controller.testing.ApiServerFacts.T0;
import static io.podfall.controller.testing.ReplicaPods.aPodOf;
import static io.podfall.controller.testing.ReplicaSets.aReplicaSet;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;
import io.podfall.controller.SyncTimer;
import io.podfall.controller.testing.ApiServerFacts;
import io.podfall.controller.testing.Deployments;
import io.podfall.model.Json;
import io.podfall.model.apiserver.UpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The disruption controller's status arithmetic and writes (pkg/controller/disruption/disruption.go). */
class DisruptionControllerTest {
    private final DisruptionController controller = new DisruptionController();
    private final DisruptionState state = controller.newState();
    private final ApiServerFacts api = new ApiServerFacts();
    private final ReplicaSet rs = aReplicaSet("web").replicas(4).build();

    private Effects handle(Event event) {
        return controller.handle(state, event, T0);
    }

    /** The status the one request a fact caused writes. */
    private PodDisruptionBudgetStatus written(Effects effects) {
        assertEquals(1, effects.events().size(), () -> "one status write expected: " + effects.events());
        Event request = effects.events().get(0);
        assertEquals(EventTypes.UPDATE_REQUESTED, request.type());
        UpdateRequest update = request.data(UpdateRequest.class);
        assertEquals("status", update.subresource());
        return Json.convert(update.object().path("status"), PodDisruptionBudgetStatus.class);
    }

    private static PodDisruptionBudget budget(IntOrString minAvailable, IntOrString maxUnavailable) {
        return new PodDisruptionBudgetBuilder()
                .withNewMetadata()
                .withName("web-pdb")
                .withNamespace("default")
                .withGeneration(1L)
                .endMetadata()
                .withNewSpec()
                .withMinAvailable(minAvailable)
                .withMaxUnavailable(maxUnavailable)
                .withNewSelector()
                .addToMatchLabels("app", "web")
                .endSelector()
                .endSpec()
                .withNewStatus()
                .endStatus()
                .build();
    }

    /** The ReplicaSet (4 replicas) and three Ready pods of it, one not Ready. */
    private void threeOfFourReady() {
        handle(api.created(ResourceType.REPLICASETS, rs));
        for (String name : List.of("web-a", "web-b", "web-c")) {
            handle(api.created(aPodOf(rs, name).onNode("node-1").ready(T0).build()));
        }
        handle(api.created(
                aPodOf(rs, "web-d").onNode("node-1").inPhase("Running").build()));
    }

    private PodDisruptionBudgetStatus syncOf(PodDisruptionBudget pdb) {
        return written(handle(api.created(ResourceType.PODDISRUPTIONBUDGETS, pdb)));
    }

    @Test
    void anIntegerMinAvailableCountsThePodsAsExpected() {
        threeOfFourReady();

        PodDisruptionBudgetStatus status = syncOf(budget(new IntOrString(2), null));

        assertEquals(List.of(4, 2, 3, 1), counts(status), "expected, desired, current, allowed");
        assertEquals(1L, status.getObservedGeneration());
        Condition allowed = status.getConditions().get(0);
        assertEquals(
                List.of("DisruptionAllowed", "True", "SufficientPods", ""),
                List.of(allowed.getType(), allowed.getStatus(), allowed.getReason(), allowed.getMessage()));
        assertEquals(1L, allowed.getObservedGeneration());
    }

    @Test
    void aPercentageMinAvailableIsOfTheControllersScaleRoundedUp() {
        threeOfFourReady();

        // 60% of 4 replicas is 2.4: 3 must stay healthy, and 3 are.
        PodDisruptionBudgetStatus status = syncOf(budget(new IntOrString("60%"), null));

        assertEquals(List.of(4, 3, 3, 0), counts(status));
        assertEquals("InsufficientPods", status.getConditions().get(0).getReason());
        assertEquals("False", status.getConditions().get(0).getStatus());
    }

    @Test
    void anIntegerMaxUnavailableIsTakenFromTheControllersScale() {
        threeOfFourReady();

        PodDisruptionBudgetStatus status = syncOf(budget(null, new IntOrString(2)));

        assertEquals(List.of(4, 2, 3, 1), counts(status));
    }

    @Test
    void aPercentageMaxUnavailableRoundsUpTheUnavailable() {
        threeOfFourReady();

        // 30% of 4 is 1.2: 2 may be unavailable, so 2 must be healthy.
        PodDisruptionBudgetStatus status = syncOf(budget(null, new IntOrString("30%")));

        assertEquals(List.of(4, 2, 3, 1), counts(status));
    }

    @Test
    void aReplicaSetOfADeploymentScalesAsTheDeployment() {
        var deployment = Deployments.aDeployment("web").replicas(6).build();
        handle(api.created(ResourceType.DEPLOYMENTS, deployment));
        ReplicaSet owned = new ReplicaSetBuilder(rs)
                .editMetadata()
                .withUid("uid-web-rs")
                .addNewOwnerReference()
                .withApiVersion("apps/v1")
                .withKind("Deployment")
                .withName("web")
                .withUid(deployment.getMetadata().getUid())
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .build();
        handle(api.created(ResourceType.REPLICASETS, owned));
        handle(api.created(aPodOf(owned, "web-a").onNode("node-1").ready(T0).build()));

        PodDisruptionBudgetStatus status = syncOf(budget(null, new IntOrString(1)));

        assertEquals(6, status.getExpectedPods());
        assertEquals(5, status.getDesiredHealthy());
    }

    @Test
    void aPodOfAnUnknownControllerFailsTheSyncSafe() {
        Pod orphan = new PodBuilder(aPod("web-x").withLabel("app", "web").build())
                .editMetadata()
                .addNewOwnerReference()
                .withApiVersion("apps/v1")
                .withKind("StatefulSet")
                .withName("db")
                .withUid("uid-db")
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .build();
        handle(api.created(orphan));

        PodDisruptionBudgetStatus status = syncOf(budget(null, new IntOrString(1)));

        assertEquals(0, status.getDisruptionsAllowed());
        Condition failed = status.getConditions().get(0);
        assertEquals(
                List.of("False", "SyncFailed", "found no controllers for pod \"web-x\""),
                List.of(failed.getStatus(), failed.getReason(), failed.getMessage()));
    }

    @Test
    void aDisruptedPodIsNotHealthyUntilItsDeletionTimeoutThenARecheckDropsIt() {
        threeOfFourReady();
        PodDisruptionBudget pdb = budget(new IntOrString(2), null);
        Instant evicted = T0.plusSeconds(10);
        PodDisruptionBudgetStatus status = new PodDisruptionBudgetStatus();
        status.setDisruptedPods(Map.of("web-a", evicted.toString()));
        status.setObservedGeneration(1L);
        pdb.setStatus(status);

        Effects effects = controller.handle(state, api.created(ResourceType.PODDISRUPTIONBUDGETS, pdb), evicted);

        PodDisruptionBudgetStatus within = written(effects);
        assertEquals(Map.of("web-a", evicted.toString()), within.getDisruptedPods());
        assertEquals(2, within.getCurrentHealthy(), "web-a is on its way out");
        assertEquals(0, within.getDisruptionsAllowed());
        Timer recheck = effects.timers().get(0);
        assertEquals(new SyncTimer("disruption", SyncTimer.Purpose.RECHECK, "default/web-pdb"), recheck.key());
        assertEquals(evicted.plus(DisruptionController.DELETION_TIMEOUT).plusMillis(1), recheck.at());

        // The write answered, then the timeout passes with web-a never deleted.
        PodDisruptionBudget stored =
                new PodDisruptionBudgetBuilder(pdb).withStatus(within).build();
        handle(api.answer(
                effects.events().get(0), EventTypes.OBJECT_UPDATED, ResourceType.PODDISRUPTIONBUDGETS, stored));
        PodDisruptionBudgetStatus expired = written(controller.fire(state, recheck, recheck.at()));
        assertEquals(Map.of(), expired.getDisruptedPods());
        assertEquals(List.of(4, 2, 3, 1), counts(expired));
    }

    @Test
    void aTerminatingPodLeavesTheDisruptedPodsAndIsNotHealthy() {
        threeOfFourReady();
        PodDisruptionBudget pdb = budget(new IntOrString(2), null);
        PodDisruptionBudgetStatus status = new PodDisruptionBudgetStatus();
        status.setDisruptedPods(Map.of("web-a", T0.toString()));
        pdb.setStatus(status);
        handle(api.markedTerminating(
                aPodOf(rs, "web-a").onNode("node-1").ready(T0).terminating(T0).build()));

        PodDisruptionBudgetStatus written = syncOf(pdb);

        assertEquals(Map.of(), written.getDisruptedPods());
        assertEquals(2, written.getCurrentHealthy());
    }

    @Test
    void aStatusThatAlreadySaysItAndARedeliveredFactWriteNothing() {
        threeOfFourReady();
        Event created = api.created(ResourceType.PODDISRUPTIONBUDGETS, budget(new IntOrString(2), null));
        Effects first = handle(created);
        PodDisruptionBudget stored = new PodDisruptionBudgetBuilder(budget(new IntOrString(2), null))
                .withStatus(written(first))
                .build();

        Effects answered = handle(api.answer(
                first.events().get(0), EventTypes.OBJECT_UPDATED, ResourceType.PODDISRUPTIONBUDGETS, stored));

        assertTrue(answered.events().isEmpty(), "its own write seen back");
        assertTrue(handle(created).isEmpty(), "a redelivery");
    }

    @Test
    void aConflictIsRetriedFromTheCacheAfterTheBackoff() {
        threeOfFourReady();
        PodDisruptionBudget pdb = budget(new IntOrString(2), null);
        Effects first = handle(api.created(ResourceType.PODDISRUPTIONBUDGETS, pdb));
        // The Eviction API took the disruption meanwhile: web-b evicted, the controller's write is stale.
        PodDisruptionBudgetStatus decremented = written(first);
        decremented.setDisruptionsAllowed(0);
        decremented.setDisruptedPods(Map.of("web-b", T0.toString()));
        assertTrue(
                handle(api.updated(
                                ResourceType.PODDISRUPTIONBUDGETS,
                                new PodDisruptionBudgetBuilder(pdb)
                                        .withStatus(decremented)
                                        .build()))
                        .events()
                        .isEmpty(),
                "one write in flight at a time");

        Effects rejected = handle(api.rejected(first.events().get(0), 409, "Conflict"));
        Timer retry = rejected.timers().get(0);
        PodDisruptionBudgetStatus again = written(controller.fire(state, retry, retry.at()));

        assertEquals(Map.of("web-b", T0.toString()), again.getDisruptedPods());
        assertEquals(List.of(4, 2, 2, 0), counts(again), "web-b no longer counts");
    }

    /** expectedPods, desiredHealthy, currentHealthy, disruptionsAllowed. */
    private static List<Integer> counts(PodDisruptionBudgetStatus status) {
        return List.of(
                status.getExpectedPods(),
                status.getDesiredHealthy(),
                status.getCurrentHealthy(),
                status.getDisruptionsAllowed());
    }
}
