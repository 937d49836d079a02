package io.podfall.controller.garbagecollector;

import static io.podfall.controller.garbagecollector.Owners.aDeployment;
import static io.podfall.controller.garbagecollector.Owners.aPodOf;
import static io.podfall.controller.garbagecollector.Owners.aReplicaSet;
import static io.podfall.controller.garbagecollector.Owners.aReplicaSetOf;
import static io.podfall.controller.garbagecollector.Owners.deleting;
import static io.podfall.controller.garbagecollector.Owners.ownedBy;
import static io.podfall.controller.testing.ApiServerFacts.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Idempotence and the API server's answers: redelivered and stale facts emit nothing, a replay of the same facts gives
 * the same requests, no second request about an object while one is unanswered, and rejections.
 */
class RequestsInFlightTest extends GarbageCollectorFixture {
    private static final String FOREGROUND = "foregroundDeletion";

    private final Deployment web = aDeployment("web");
    private final ReplicaSet rs = aReplicaSetOf(web, "web-1");
    private final Pod stray = aPodOf(aReplicaSet("gone"), "stray");

    @Test
    void aRedeliveredFactEmitsNothingAndARemovedObjectNeverComesBack() {
        Event created = api.created(ResourceType.REPLICASETS, rs);
        Event removed = api.removed(ResourceType.DEPLOYMENTS, web);
        given(api.created(ResourceType.DEPLOYMENTS, web), created);
        Event delete = only(handle(removed));

        assertEquals(Effects.NONE, handle(removed));
        handle(api.answer(delete, EventTypes.OBJECT_REMOVED, ResourceType.REPLICASETS, rs));
        assertEquals(Effects.NONE, handle(created));
        assertFalse(state.knows("uid-web-1"));
    }

    @Test
    void aStaleFactDoesNotUndoWhatANewerOneShowed() {
        Event created = api.created(ResourceType.DEPLOYMENTS, web);
        given(created, api.created(ResourceType.REPLICASETS, rs));
        Event delete = only(handle(api.markedTerminating(ResourceType.DEPLOYMENTS, deleting(web, FOREGROUND))));

        assertEquals(Effects.NONE, handle(created), "an older resourceVersion");

        assertEquals(
                List.of("set finalizers [] of deployments/web"),
                requests(handle(api.answer(delete, EventTypes.OBJECT_REMOVED, ResourceType.REPLICASETS, rs))),
                "the deployment still waits for its dependents");
    }

    @Test
    void noSecondRequestAboutAnObjectWhileTheFirstIsUnanswered() {
        assertEquals(List.of("delete pods/stray Background"), requests(handle(api.created(stray))));
        Pod twiceStray = ownedBy(stray, aReplicaSet("also-gone"));

        assertEquals(Effects.NONE, handle(api.updated(ResourceType.PODS, twiceStray)));
        assertTrue(state.hasRequestInFlight("uid-stray"));
    }

    @Test
    void aFactCausedByTheRequestEndsIt() {
        Event delete = only(handle(api.created(stray)));

        handle(api.answer(delete, EventTypes.OBJECT_MARKED_TERMINATING, ResourceType.PODS, deleting(stray)));

        assertFalse(state.hasRequestInFlight("uid-stray"));
    }

    @Test
    void aFactShowingTheRequestDoneEndsItEvenIfTheApiServerNeverAnswersIt() {
        given(api.created(ResourceType.REPLICASETS, rs), api.created(aPodOf(rs, "web-1-a")));
        handle(api.markedTerminating(ResourceType.REPLICASETS, deleting(rs, FOREGROUND)));
        assertTrue(state.hasRequestInFlight("uid-web-1-a"));

        // A user deleted the pod in foreground before the collector's delete reached the API server, which will
        // then find it terminating and write nothing. The pod has no dependents: its finalizer can go.
        Effects effects = handle(api.markedTerminating(ResourceType.PODS, deleting(aPodOf(rs, "web-1-a"), FOREGROUND)));

        assertEquals(List.of("set finalizers [] of pods/web-1-a"), requests(effects));
    }

    @Test
    void replayingTheSameFactsGivesTheSameRequests() {
        given(
                api.created(ResourceType.DEPLOYMENTS, web),
                api.created(ResourceType.REPLICASETS, rs),
                api.created(aPodOf(rs, "web-1-a")));
        Effects first = handle(api.markedTerminating(ResourceType.DEPLOYMENTS, deleting(web, FOREGROUND)));
        Effects second = handle(api.answer(
                only(first), EventTypes.OBJECT_MARKED_TERMINATING, ResourceType.REPLICASETS, deleting(rs, FOREGROUND)));
        Effects third = handle(api.rejected(only(second), 404, "NotFound"));
        Effects fourth =
                handle(api.answer(only(third), EventTypes.OBJECT_REMOVED, ResourceType.REPLICASETS, deleting(rs)));
        List<Effects> recorded = List.of(first, second, third, fourth);

        GarbageCollectorState rebuilt = gc.newState();
        List<Effects> replayed =
                log.stream().map(e -> gc.handle(rebuilt, e, T0)).toList();

        assertEquals(recorded, replayed.subList(replayed.size() - 4, replayed.size()));
        assertEquals(List.of("set finalizers [] of deployments/web"), requests(replayed.get(replayed.size() - 1)));
    }

    @Test
    void aDeleteRefusedAsNotFoundMeansTheObjectIsGoneAndItsOwnerGoesOn() {
        given(api.created(ResourceType.DEPLOYMENTS, web), api.created(ResourceType.REPLICASETS, rs));
        Event delete = only(handle(api.markedTerminating(ResourceType.DEPLOYMENTS, deleting(web, FOREGROUND))));

        Effects effects = handle(api.rejected(delete, 404, "NotFound"));

        assertEquals(List.of("set finalizers [] of deployments/web"), requests(effects));
        assertFalse(state.knows("uid-web-1"));
    }

    @Test
    void aDeleteRefusedOnItsUidPreconditionForgetsTheObjectNotTheNewOne() {
        given(api.created(ResourceType.DEPLOYMENTS, web), api.created(ResourceType.REPLICASETS, rs));
        Event delete = only(handle(api.markedTerminating(ResourceType.DEPLOYMENTS, deleting(web, FOREGROUND))));

        assertEquals(
                List.of("set finalizers [] of deployments/web"),
                requests(handle(api.rejected(delete, 409, "Conflict"))));
        assertFalse(state.knows("uid-web-1"));
    }

    @Test
    void aFinalizerPatchRefusedOnAStaleResourceVersionIsAskedAgainWithTheNewOne() {
        handle(api.created(ResourceType.DEPLOYMENTS, web));
        Event patch = only(handle(api.markedTerminating(ResourceType.DEPLOYMENTS, deleting(web, FOREGROUND))));
        Deployment statusWritten = deleting(web, FOREGROUND);
        handle(api.updated(ResourceType.DEPLOYMENTS, statusWritten));

        Effects retry = handle(api.rejected(patch, 409, "Conflict"));

        assertEquals(List.of("set finalizers [] of deployments/web"), requests(retry));
        assertEquals(
                statusWritten.getMetadata().getResourceVersion(),
                only(retry)
                        .data(PatchRequest.class)
                        .patch()
                        .path("metadata")
                        .path("resourceVersion")
                        .asText());
    }

    @Test
    void aRefusalWithoutNewsIsNotRepeatedUntilTheObjectChanges() {
        Event delete = only(handle(api.created(stray)));

        assertEquals(Effects.NONE, handle(api.rejected(delete, 500, "InternalError")));
        assertFalse(state.hasRequestInFlight("uid-stray"));

        assertEquals(
                List.of("delete pods/stray Background"),
                requests(handle(api.updated(ResourceType.PODS, ownedBy(stray, aReplicaSet("also-gone"))))));
    }

    @Test
    void aRefusalOfAnotherRequestOrARedeliveredOneChangesNothing() {
        Event someoneElses = api.created(aPodOf(rs, "web-1-a"));
        Event delete = only(handle(api.created(stray)));
        Event rejection = api.rejected(delete, 404, "NotFound");

        assertEquals(Effects.NONE, handle(api.rejected(someoneElses, 404, "NotFound")));
        assertTrue(state.hasRequestInFlight("uid-stray"));
        handle(rejection);
        assertEquals(Effects.NONE, handle(rejection));
    }
}
