package io.podfall.controller.replicaset;

import static io.podfall.controller.testing.ApiServerFacts.T0;
import static io.podfall.controller.testing.ReplicaPods.aPodOf;
import static io.podfall.controller.testing.ReplicaSets.aReplicaSet;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.podfall.controller.Expectations;
import io.podfall.controller.testing.ApiServerFacts;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplicaSetControllerTest {
    private static final ResourceType RS = ResourceType.REPLICASETS;

    private final ReplicaSetController controller = new ReplicaSetController();
    private final ReplicaSetState state = controller.newState();
    private final ApiServerFacts api = new ApiServerFacts();
    /** Every event handled, in order, to replay into a fresh controller. */
    private final List<Event> log = new ArrayList<>();

    private Effects handle(Event event) {
        return handle(event, T0);
    }

    private Effects handle(Event event, Instant now) {
        log.add(event);
        return controller.handle(state, event, now);
    }

    private static List<Event> ofType(Effects effects, String type) {
        return effects.events().stream().filter(e -> e.is(type)).toList();
    }

    /** The pod each creation asks for. */
    private static List<Pod> podsAskedFor(Effects effects) {
        return ofType(effects, EventTypes.CREATION_REQUESTED).stream()
                .map(e -> Json.convert(e.data(CreationRequest.class).object(), Pod.class))
                .toList();
    }

    /** The names of the pods whose deletion is asked for, in order. */
    private static List<String> deletions(Effects effects) {
        return ofType(effects, EventTypes.DELETION_REQUESTED).stream()
                .map(e -> e.data(DeletionRequest.class).name())
                .toList();
    }

    /** The status a status patch writes. */
    private static ReplicaSetStatus statusWritten(Event patch) {
        PatchRequest request = patch.data(PatchRequest.class);
        assertEquals("status", request.subresource());
        assertEquals(PatchRequest.MERGE, request.patchType());
        return Json.convert(request.patch().path("status"), ReplicaSetStatus.class);
    }

    /** A ReplicaSet stored and handled; its pods already there and its status already written. */
    private ReplicaSet existing(ReplicaSet rs, Pod... pods) {
        api.created(RS, rs);
        for (Pod pod : pods) {
            handle(api.created(pod));
        }
        Effects effects = handle(api.created(RS, rs));
        ofType(effects, EventTypes.PATCH_REQUESTED).forEach(patch -> handle(api.patchedFrom(patch, rs)));
        return rs;
    }

    @Test
    void createsTheMissingPodsFromItsTemplateWithAControllerReference() {
        ReplicaSet rs = aReplicaSet("web").replicas(3).build();

        Effects effects = handle(api.created(RS, rs));

        List<Event> creations = ofType(effects, EventTypes.CREATION_REQUESTED);
        assertEquals(3, creations.size());
        assertEquals(3, creations.stream().map(Event::id).distinct().count());
        Event first = creations.get(0);
        assertEquals("/controller/replicaset", first.source());
        assertEquals("namespaces/default/pods/", first.subject(), "the name is the API server's to generate");
        CreationRequest request = first.data(CreationRequest.class);
        assertEquals("pods", request.resource());
        assertEquals("default", request.namespace());
        Pod pod = podsAskedFor(effects).get(0);
        assertEquals("web-", pod.getMetadata().getGenerateName());
        assertNull(pod.getMetadata().getName());
        assertEquals(Map.of("app", "web"), pod.getMetadata().getLabels());
        OwnerReference owner = pod.getMetadata().getOwnerReferences().get(0);
        assertEquals(
                List.of("apps/v1", "ReplicaSet", "web", "uid-web", true, true),
                List.of(
                        owner.getApiVersion(),
                        owner.getKind(),
                        owner.getName(),
                        owner.getUid(),
                        owner.getController(),
                        owner.getBlockOwnerDeletion()));
        assertEquals("nginx:1.27", pod.getSpec().getContainers().get(0).getImage());
    }

    @Test
    void noPodIsAskedForTwiceWhileTheCreationsAreUnanswered() {
        ReplicaSet rs = aReplicaSet("web").replicas(2).build();
        Event created = api.created(RS, rs);
        Effects first = handle(created);
        assertEquals(2, podsAskedFor(first).size());

        assertEquals(Effects.NONE, handle(created), "a redelivered fact");
        Effects relabelled =
                handle(api.updated(RS, aReplicaSet("web").replicas(2).build()));
        assertEquals(List.of(), podsAskedFor(relabelled), "another change of the ReplicaSet before its pods are seen");
        Event answer =
                api.createdFrom(ofType(first, EventTypes.CREATION_REQUESTED).get(0));
        assertEquals(List.of(), podsAskedFor(handle(answer)), "one of two creations answered");
    }

    @Test
    void answeredCreationsLetTheNextChangeScaleUp() {
        ReplicaSet rs = aReplicaSet("web").replicas(2).build();
        Effects first = handle(api.created(RS, rs));
        for (Event creation : ofType(first, EventTypes.CREATION_REQUESTED)) {
            handle(api.createdFrom(creation));
        }

        Effects scaled = handle(
                api.updated(RS, aReplicaSet("web").replicas(3).generation(2).build()));

        assertEquals(1, podsAskedFor(scaled).size());
    }

    @Test
    void aPodMarkedTerminatingIsReplacedAtOnceWhileItStillTerminates() {
        ReplicaSet rs = api.created(RS, aReplicaSet("web").replicas(2).build())
                .data(ObjectChange.class)
                .object(ReplicaSet.class);
        Pod a = aPodOf(rs, "web-a").onNode("node-1").ready(T0).build();
        existing(rs, a, aPodOf(rs, "web-b").onNode("node-1").ready(T0).build());

        Effects effects = handle(api.markedTerminating(aPodOf(rs, "web-a")
                .onNode("node-1")
                .ready(T0)
                .terminating(T0.plusSeconds(30))
                .build()));

        assertEquals(1, podsAskedFor(effects).size());
        assertTrue(state.pod("uid-web-a").isPresent(), "the terminating pod is still known");
        assertEquals(
                1,
                statusWritten(ofType(effects, EventTypes.PATCH_REQUESTED).get(0))
                        .getReplicas(),
                "a terminating pod is no replica");
    }

    @Test
    void theFinalDeletesGraceZeroThenTheRemovalOfAReplacedPodAskForNothingMore() {
        ReplicaSet rs = api.created(RS, aReplicaSet("web").replicas(2).build())
                .data(ObjectChange.class)
                .object(ReplicaSet.class);
        existing(
                rs,
                aPodOf(rs, "web-a").onNode("node-1").ready(T0).build(),
                aPodOf(rs, "web-b").onNode("node-1").ready(T0).build());
        Pod terminating = aPodOf(rs, "web-a")
                .onNode("node-1")
                .ready(T0)
                .terminating(T0.plusSeconds(30))
                .build();
        assertEquals(1, podsAskedFor(handle(api.markedTerminating(terminating))).size());

        // store.go: the kubelet's final delete writes grace 0 (watch MODIFIED), then deletes the pod (DELETED).
        Pod atGraceZero = new PodBuilder(terminating)
                .editMetadata()
                .withDeletionTimestamp(T0.toString())
                .withDeletionGracePeriodSeconds(0L)
                .endMetadata()
                .build();
        Effects graceZero = handle(api.markedTerminating(atGraceZero));
        Effects removed = handle(api.removed(atGraceZero));

        assertEquals(List.of(), podsAskedFor(graceZero), "already replaced");
        assertEquals(List.of(), podsAskedFor(removed));
        assertEquals(List.of(), ofType(graceZero, EventTypes.DELETION_REQUESTED));
        assertEquals(List.of(), ofType(removed, EventTypes.DELETION_REQUESTED));
    }

    @Test
    void aFinishedPodIsReplaced() {
        ReplicaSet rs = api.created(RS, aReplicaSet("web").replicas(1).build())
                .data(ObjectChange.class)
                .object(ReplicaSet.class);
        existing(rs, aPodOf(rs, "web-a").onNode("node-1").ready(T0).build());

        Effects effects = handle(api.statusUpdated(
                aPodOf(rs, "web-a").onNode("node-1").inPhase("Failed").build()));

        assertEquals(1, podsAskedFor(effects).size());
    }

    @Test
    void podsOfAnotherControllerOrOfNoneDoNotCount() {
        ReplicaSet other = api.created(RS, aReplicaSet("other").build())
                .data(ObjectChange.class)
                .object(ReplicaSet.class);
        handle(api.created(aPodOf(other, "other-a").labelled("app", "web").build()));
        Pod orphan = aPodOf(other, "orphan").labelled("app", "web").build();
        orphan.getMetadata().setOwnerReferences(List.of());
        handle(api.created(orphan));

        Effects effects = handle(api.created(RS, aReplicaSet("web").replicas(1).build()));

        assertEquals(1, podsAskedFor(effects).size());
    }

    @Test
    void scaleDownDeletesUnassignedThenPendingThenNotReadyPodsFirst() {
        ReplicaSet rs = api.created(RS, aReplicaSet("web").replicas(4).build())
                .data(ObjectChange.class)
                .object(ReplicaSet.class);
        existing(
                rs,
                aPodOf(rs, "ready").onNode("node-1").ready(T0).build(),
                aPodOf(rs, "running-not-ready")
                        .onNode("node-2")
                        .inPhase("Running")
                        .build(),
                aPodOf(rs, "pending").onNode("node-3").build(),
                aPodOf(rs, "unassigned").build());

        assertEquals(
                List.of("unassigned", "pending"),
                deletions(handle(api.updated(
                        RS, aReplicaSet("web").replicas(2).generation(2).build()))));
    }

    @Test
    void aDeletionInFlightBlocksFurtherDeletionsUntilThePodIsSeenTerminating() {
        ReplicaSet rs = api.created(RS, aReplicaSet("web").replicas(2).build())
                .data(ObjectChange.class)
                .object(ReplicaSet.class);
        existing(
                rs,
                aPodOf(rs, "a").onNode("node-1").ready(T0).createdAt(T0).build(),
                aPodOf(rs, "b").onNode("node-1").ready(T0).createdAt(T0).build());
        Effects scaled = handle(
                api.updated(RS, aReplicaSet("web").replicas(1).generation(2).build()));
        List<String> victims = deletions(scaled);
        assertEquals(1, victims.size());
        String survivor = victims.get(0).equals("a") ? "b" : "a";

        assertEquals(
                List.of(),
                deletions(handle(api.updated(
                        RS, aReplicaSet("web").replicas(0).generation(3).build()))),
                "scaled to 0 while the first deletion is unanswered");

        Effects observed = handle(api.markedTerminating(aPodOf(rs, victims.get(0))
                .onNode("node-1")
                .ready(T0)
                .createdAt(T0)
                .terminating(T0.plusSeconds(30))
                .build()));
        assertEquals(List.of(survivor), deletions(observed));
    }

    @Test
    void aRejectedCreationIsRetriedAfterABackoffAndShownAsReplicaFailure() {
        ReplicaSet rs = aReplicaSet("web").replicas(1).build();
        Effects first = handle(api.created(RS, rs));
        Event creation = ofType(first, EventTypes.CREATION_REQUESTED).get(0);
        handle(api.patchedFrom(ofType(first, EventTypes.PATCH_REQUESTED).get(0), rs));

        Effects rejected = handle(api.rejected(creation, 403, "Forbidden"));

        assertEquals(List.of(), rejected.events(), "no retry on the rejection itself");
        Timer retry = rejected.timers().get(0);
        assertEquals("replicaset/retry/default/web", retry.key().id());
        assertEquals(T0.plusMillis(5), retry.at());
        assertEquals(
                List.of(),
                handle(api.updated(RS, aReplicaSet("web").replicas(1).build()), T0.plusMillis(1))
                        .events(),
                "nothing while the backoff runs");

        Effects retried = controller.fire(state, retry, retry.at());

        assertEquals(1, podsAskedFor(retried).size());
        ReplicaSetStatus status =
                statusWritten(ofType(retried, EventTypes.PATCH_REQUESTED).get(0));
        assertEquals("ReplicaFailure", status.getConditions().get(0).getType());
        assertEquals("FailedCreate", status.getConditions().get(0).getReason());
        assertEquals(
                "Forbidden: namespaces/default/pods/",
                status.getConditions().get(0).getMessage());
    }

    @Test
    void theBackoffDoublesWithEveryRejectionInARow() {
        ReplicaSet rs = aReplicaSet("web").replicas(1).build();
        Event creation = ofType(handle(api.created(RS, rs)), EventTypes.CREATION_REQUESTED)
                .get(0);
        Timer first = handle(api.rejected(creation, 403, "Forbidden")).timers().get(0);
        Event again = ofType(controller.fire(state, first, first.at()), EventTypes.CREATION_REQUESTED)
                .get(0);

        Timer second = handle(api.rejected(again, 403, "Forbidden"), first.at())
                .timers()
                .get(0);

        assertEquals(first.at().plusMillis(10), second.at());
    }

    @Test
    void anAnswerThatNeverComesEndsTheExpectationAfterFiveMinutes() {
        ReplicaSet rs = aReplicaSet("web").replicas(1).build();
        Effects first = handle(api.created(RS, rs));
        Timer timeout = first.timers().stream()
                .filter(t -> t.key().id().equals("replicaset/expectations/default/web"))
                .findFirst()
                .orElseThrow();
        assertEquals(T0.plus(Expectations.TIMEOUT), timeout.at());

        Effects expired = controller.fire(state, timeout, timeout.at());

        assertEquals(1, podsAskedFor(expired).size(), "the creation is asked for again");
    }

    @Test
    void aReplicaSetBeingDeletedManagesNoPodsButStillWritesItsStatus() {
        ReplicaSet rs = api.created(RS, aReplicaSet("web").replicas(2).build())
                .data(ObjectChange.class)
                .object(ReplicaSet.class);
        existing(rs, aPodOf(rs, "a").onNode("node-1").ready(T0).build());

        ReplicaSet deleting = aReplicaSet("web").replicas(2).terminating(T0).build();
        Effects effects = handle(api.markedTerminating(RS, deleting));
        assertEquals(List.of(), podsAskedFor(effects));
        ofType(effects, EventTypes.PATCH_REQUESTED).forEach(patch -> handle(api.patchedFrom(patch, deleting)));
        Effects gone = handle(api.markedTerminating(aPodOf(rs, "a")
                .onNode("node-1")
                .ready(T0)
                .terminating(T0.plusSeconds(30))
                .build()));
        assertEquals(List.of(), podsAskedFor(gone), "its pod terminates and is not replaced");
        assertEquals(
                0,
                statusWritten(ofType(gone, EventTypes.PATCH_REQUESTED).get(0)).getReplicas());
    }

    @Test
    void theStatusCountsReadyFullyLabelledAndObservedGenerationAndIsWrittenOnlyWhenItChanges() {
        ReplicaSet rs = api.created(
                        RS, aReplicaSet("web").replicas(2).generation(3).build())
                .data(ObjectChange.class)
                .object(ReplicaSet.class);
        Pod a = aPodOf(rs, "a").onNode("node-1").build();
        handle(api.created(a));
        handle(api.created(aPodOf(rs, "b").onNode("node-1").ready(T0).build()));
        Event patch =
                ofType(handle(api.created(RS, rs)), EventTypes.PATCH_REQUESTED).get(0);
        assertEquals("namespaces/default/replicasets/web", patch.subject());
        ReplicaSetStatus status = statusWritten(patch);
        assertEquals(
                List.of(2, 2, 1, 1, 3L),
                List.of(
                        status.getReplicas(),
                        status.getFullyLabeledReplicas(),
                        status.getReadyReplicas(),
                        status.getAvailableReplicas(),
                        status.getObservedGeneration()));

        assertEquals(
                List.of(),
                handle(api.statusUpdated(
                                aPodOf(rs, "a").onNode("node-1").ready(T0).build()))
                        .events(),
                "a change while the first write is in flight");
        Event stored = api.patchedFrom(patch, rs);
        Effects afterAnswer = handle(stored);
        assertEquals(
                2,
                statusWritten(ofType(afterAnswer, EventTypes.PATCH_REQUESTED).get(0))
                        .getReadyReplicas(),
                "the answer shows the status is behind");
        JsonNode second = ofType(afterAnswer, EventTypes.PATCH_REQUESTED)
                .get(0)
                .data(PatchRequest.class)
                .patch();
        ReplicaSet current = stored.data(ObjectChange.class).object(ReplicaSet.class);
        assertEquals(
                Effects.NONE,
                handle(api.patchedFrom(
                        ofType(afterAnswer, EventTypes.PATCH_REQUESTED).get(0), current)),
                "the status written is the status seen: nothing more " + second);
    }

    @Test
    void withMinReadySecondsAReadyPodBecomesAvailableWhenATimerWakesTheSync() {
        ReplicaSet rs = api.created(
                        RS, aReplicaSet("web").replicas(1).minReadySeconds(10).build())
                .data(ObjectChange.class)
                .object(ReplicaSet.class);
        handle(api.created(aPodOf(rs, "a").onNode("node-1").ready(T0).build()));
        Effects effects = handle(api.created(RS, rs));
        assertEquals(
                0,
                statusWritten(ofType(effects, EventTypes.PATCH_REQUESTED).get(0))
                        .getAvailableReplicas());
        handle(api.patchedFrom(ofType(effects, EventTypes.PATCH_REQUESTED).get(0), rs));
        Timer available = effects.timers().stream()
                .filter(t -> t.key().id().equals("replicaset/available/default/web"))
                .findFirst()
                .orElseThrow();
        assertEquals(T0.plusSeconds(10).plusMillis(1), available.at());

        Effects woken = controller.fire(state, available, available.at());

        assertEquals(
                1,
                statusWritten(ofType(woken, EventTypes.PATCH_REQUESTED).get(0)).getAvailableReplicas());
    }

    @Test
    void aRemovedReplicaSetIsForgotten() {
        ReplicaSet rs = aReplicaSet("web").replicas(1).build();
        handle(api.created(RS, rs));

        handle(api.removed(RS, rs));

        assertTrue(state.replicaSet("default/web").isEmpty());
        assertTrue(state.requests().expectations().satisfied("default/web"));
    }

    @Test
    void replayingTheSameFactsGivesTheSameEffects() {
        ReplicaSet rs = aReplicaSet("web").replicas(3).build();
        List<Effects> live = new ArrayList<>();
        Effects first = handle(api.created(RS, rs));
        live.add(first);
        for (Event creation : ofType(first, EventTypes.CREATION_REQUESTED)) {
            live.add(handle(api.createdFrom(creation)));
        }
        live.add(handle(
                api.updated(RS, aReplicaSet("web").replicas(1).generation(2).build())));

        ReplicaSetController rebuilt = new ReplicaSetController();
        ReplicaSetState fresh = rebuilt.newState();
        List<Effects> replayed =
                log.stream().map(e -> rebuilt.handle(fresh, e, T0)).toList();

        assertEquals(live, replayed);
        assertEquals(2, deletions(live.get(live.size() - 1)).size());
    }
}
