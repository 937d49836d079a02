package io.podfall.controller.garbagecollector;

import static io.podfall.controller.garbagecollector.Owners.aDeployment;
import static io.podfall.controller.garbagecollector.Owners.aPodOf;
import static io.podfall.controller.garbagecollector.Owners.aReplicaSet;
import static io.podfall.controller.garbagecollector.Owners.aReplicaSetOf;
import static io.podfall.controller.garbagecollector.Owners.deleting;
import static io.podfall.controller.garbagecollector.Owners.ownedBy;
import static io.podfall.controller.garbagecollector.Owners.releasedFrom;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Foreground propagation: an owner with deletionTimestamp and the foregroundDeletion finalizer has its dependents
 * deleted (in foreground again if they have dependents) and keeps the finalizer until no blocking dependent is left.
 */
class ForegroundDeletionTest extends GarbageCollectorFixture {
    private static final String FOREGROUND = "foregroundDeletion";

    private final Deployment web = aDeployment("web");
    private final ReplicaSet rs = aReplicaSetOf(web, "web-1");
    private final Pod a = aPodOf(rs, "web-1-a");
    private final Pod b = aPodOf(rs, "web-1-b");

    @Test
    void theDeploymentWaitsForItsReplicaSetWhichWaitsForItsPodsThenEachLosesItsFinalizer() {
        given(
                api.created(ResourceType.DEPLOYMENTS, web),
                api.created(ResourceType.REPLICASETS, rs),
                api.created(a),
                api.created(b));
        Event kubectlDelete = api.markedTerminating(ResourceType.DEPLOYMENTS, deleting(web, FOREGROUND));
        List<Event> requests = new ArrayList<>();

        Effects first = handle(kubectlDelete);
        assertEquals(
                List.of("delete replicasets/web-1 Foreground"),
                requests(first),
                "a dependent with dependents of its own is deleted in foreground too");
        requests.addAll(first.events());

        Effects second = handle(api.answer(
                only(first), EventTypes.OBJECT_MARKED_TERMINATING, ResourceType.REPLICASETS, deleting(rs, FOREGROUND)));
        assertEquals(
                List.of("delete pods/web-1-a Background", "delete pods/web-1-b Background"),
                requests(second),
                "pods have no dependents: background");
        requests.addAll(second.events());

        assertTrue(handle(api.answer(
                        second.events().get(0), EventTypes.OBJECT_MARKED_TERMINATING, ResourceType.PODS, deleting(a)))
                .isEmpty());
        assertTrue(handle(api.answer(
                        second.events().get(1), EventTypes.OBJECT_MARKED_TERMINATING, ResourceType.PODS, deleting(b)))
                .isEmpty());
        // The kubelets' final deletes, and so the removals, are in the flow of the collector's deletes.
        assertTrue(
                handle(api.answer(second.events().get(0), EventTypes.OBJECT_REMOVED, ResourceType.PODS, deleting(a)))
                        .isEmpty(),
                "web-1-b still blocks the ReplicaSet");

        Effects third =
                handle(api.answer(second.events().get(1), EventTypes.OBJECT_REMOVED, ResourceType.PODS, deleting(b)));
        assertEquals(List.of("set finalizers [] of replicasets/web-1"), requests(third));
        requests.addAll(third.events());

        Effects fourth =
                handle(api.answer(only(third), EventTypes.OBJECT_REMOVED, ResourceType.REPLICASETS, deleting(rs)));
        assertEquals(List.of("set finalizers [] of deployments/web"), requests(fourth));
        requests.addAll(fourth.events());

        assertTrue(requests.stream().allMatch(e -> e.correlationId().equals(kubectlDelete.correlationId())));
    }

    @Test
    void theFinalizerPatchKeepsOtherFinalizersAndCarriesTheResourceVersionItSaw() {
        handle(api.created(ResourceType.DEPLOYMENTS, web));
        Deployment held = deleting(web, "example.com/keep", FOREGROUND);
        Event marked = api.markedTerminating(ResourceType.DEPLOYMENTS, held);

        PatchRequest patch = only(handle(marked)).data(PatchRequest.class);

        assertEquals(PatchRequest.MERGE, patch.patchType());
        assertEquals(
                "{\"metadata\":{\"resourceVersion\":\"" + held.getMetadata().getResourceVersion()
                        + "\",\"finalizers\":[\"example.com/keep\"]}}",
                patch.patch().toString());
    }

    @Test
    void aDependentThatDoesNotBlockIsDeletedButNotWaitedFor() {
        ReplicaSet notBlocking = ownedBy(aReplicaSet("web-1"), web, false);
        given(api.created(ResourceType.DEPLOYMENTS, web), api.created(ResourceType.REPLICASETS, notBlocking));

        Effects effects = handle(api.markedTerminating(ResourceType.DEPLOYMENTS, deleting(web, FOREGROUND)));

        assertEquals(
                List.of("delete replicasets/web-1 Background", "set finalizers [] of deployments/web"),
                requests(effects));
    }

    @Test
    void aDependentAlreadyTerminatingBlocksItsOwnerUntilItIsRemoved() {
        given(api.created(ResourceType.REPLICASETS, rs), api.created(a), api.markedTerminating(deleting(a)));

        assertTrue(
                handle(api.markedTerminating(ResourceType.REPLICASETS, deleting(rs, FOREGROUND)))
                        .isEmpty(),
                "the pod is not deleted twice, and the ReplicaSet waits");

        assertEquals(
                List.of("set finalizers [] of replicasets/web-1"),
                requests(handle(api.removed(ResourceType.PODS, deleting(a)))));
    }

    @Test
    void aDependentWithAnotherLiveOwnerLosesOnlyTheReferenceToTheWaitingOne() {
        ReplicaSet other = aReplicaSet("other");
        Pod shared = ownedBy(a, other);
        given(
                api.created(ResourceType.REPLICASETS, rs),
                api.created(ResourceType.REPLICASETS, other),
                api.created(shared));

        Effects effects = handle(api.markedTerminating(ResourceType.REPLICASETS, deleting(rs, FOREGROUND)));
        assertEquals(List.of("remove owners [uid-web-1] from pods/web-1-a"), requests(effects));

        Effects released = handle(
                api.answer(only(effects), EventTypes.OBJECT_UPDATED, ResourceType.PODS, releasedFrom(shared, rs)));
        assertEquals(List.of("set finalizers [] of replicasets/web-1"), requests(released));
    }

    @Test
    void aDependentWhoseDeleteWasRefusedIsDeletedAgainWhenTheOwnerIsNextAttempted() {
        given(api.created(ResourceType.REPLICASETS, rs), api.created(a), api.created(b));
        Effects deletes = handle(api.markedTerminating(ResourceType.REPLICASETS, deleting(rs, FOREGROUND)));
        assertEquals(List.of("delete pods/web-1-a Background", "delete pods/web-1-b Background"), requests(deletes));

        assertTrue(
                handle(api.rejected(deletes.events().get(0), 429, "TooManyRequests"))
                        .isEmpty(),
                "unchanged since: it waits for the next change");

        assertEquals(
                List.of("delete pods/web-1-a Background"),
                requests(handle(api.answer(
                        deletes.events().get(1),
                        EventTypes.OBJECT_MARKED_TERMINATING,
                        ResourceType.PODS,
                        deleting(b)))),
                "the ReplicaSet, attempted after its other pod's change, deletes the refused one again, not the terminating one");
    }

    @Test
    void anOwnerWithoutDependentsLosesItsFinalizerAtOnce() {
        handle(api.created(ResourceType.DEPLOYMENTS, web));

        assertEquals(
                List.of("set finalizers [] of deployments/web"),
                requests(handle(api.markedTerminating(ResourceType.DEPLOYMENTS, deleting(web, FOREGROUND)))));
    }
}
