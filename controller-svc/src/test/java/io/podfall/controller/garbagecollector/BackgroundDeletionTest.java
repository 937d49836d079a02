package io.podfall.controller.garbagecollector;

import static io.podfall.controller.garbagecollector.Owners.aDeployment;
import static io.podfall.controller.garbagecollector.Owners.aPodOf;
import static io.podfall.controller.garbagecollector.Owners.aReplicaSet;
import static io.podfall.controller.garbagecollector.Owners.aReplicaSetOf;
import static io.podfall.controller.garbagecollector.Owners.deleting;
import static io.podfall.controller.garbagecollector.Owners.ownedBy;
import static io.podfall.controller.garbagecollector.Owners.releasedFrom;
import static io.podfall.controller.garbagecollector.Owners.withFinalizers;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.podfall.model.Json;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Background propagation: dependents whose every owner is gone are deleted; a live owner keeps its dependent. */
class BackgroundDeletionTest extends GarbageCollectorFixture {
    private final Deployment web = aDeployment("web");
    private final ReplicaSet rs = aReplicaSetOf(web, "web-1");

    @Test
    void aRemovedDeploymentsReplicaSetsAreDeletedThenTheirPodsInTheFlowOfTheDelete() {
        given(
                api.created(ResourceType.DEPLOYMENTS, web),
                api.created(ResourceType.REPLICASETS, rs),
                api.created(aPodOf(rs, "web-1-a")),
                api.created(aPodOf(rs, "web-1-b")));
        Event deploymentRemoved = api.removed(ResourceType.DEPLOYMENTS, web);

        Effects first = handle(deploymentRemoved);

        assertEquals(List.of("delete replicasets/web-1 Background"), requests(first));
        Event deleteReplicaSet = only(first);
        assertEquals(GarbageCollector.SOURCE, deleteReplicaSet.source());
        assertEquals("namespaces/default/replicasets/web-1", deleteReplicaSet.subject());
        assertEquals(deploymentRemoved.id(), deleteReplicaSet.causationId());
        DeleteOptions options = deleteReplicaSet.data(DeletionRequest.class).options();
        assertEquals("uid-web-1", options.getPreconditions().getUid(), "upstream deletes with a uid precondition");

        Effects second = handle(api.answer(deleteReplicaSet, EventTypes.OBJECT_REMOVED, ResourceType.REPLICASETS, rs));

        assertEquals(List.of("delete pods/web-1-a Background", "delete pods/web-1-b Background"), requests(second));
        assertTrue(
                second.events().stream().allMatch(e -> e.correlationId().equals(deploymentRemoved.correlationId())),
                "the cascade carries the correlation of the deployment's removal down to the pods");
    }

    @Test
    void aDependentAlreadyBeingDeletedIsLeftToFinish() {
        Pod leaving = aPodOf(rs, "web-1-a");
        given(
                api.created(ResourceType.REPLICASETS, rs),
                api.created(leaving),
                api.created(aPodOf(rs, "web-1-b")),
                api.markedTerminating(deleting(leaving)));

        assertEquals(
                List.of("delete pods/web-1-b Background"), requests(handle(api.removed(ResourceType.REPLICASETS, rs))));
    }

    @Test
    void anOwnerNobodyReportedIsAbsentAndItsDependentIsDeleted() {
        Effects effects = handle(api.created(aPodOf(aReplicaSet("never-seen"), "stray")));

        assertEquals(List.of("delete pods/stray Background"), requests(effects));
    }

    @Test
    void anOwnerInAnotherNamespaceIsNotTheOneTheReferenceNames() {
        ReplicaSet elsewhere = aReplicaSet("web-1");
        elsewhere.getMetadata().setNamespace("other");
        handle(api.created(ResourceType.REPLICASETS, elsewhere));

        assertEquals(
                List.of("delete pods/stray Background"), requests(handle(api.created(aPodOf(elsewhere, "stray")))));
    }

    @Test
    void anObjectWithALiveOwnerOrNoneIsLeftAlone() {
        handle(api.created(ResourceType.REPLICASETS, rs));

        assertTrue(handle(api.created(aPodOf(rs, "web-1-a"))).isEmpty());
        assertTrue(handle(api.created(aPod("alone").build())).isEmpty());
    }

    @Test
    void aReferenceTheCollectorCannotJudgeLeavesTheObjectAlone() {
        Pod ofAStatefulSet = ownedBy(
                aPod("db-0").build(),
                new StatefulSetBuilder()
                        .withNewMetadata()
                        .withName("db")
                        .withUid("uid-db")
                        .endMetadata()
                        .build());
        io.fabric8.kubernetes.api.model.Node clusterScoped = ownedBy(
                new NodeBuilder()
                        .withNewMetadata()
                        .withName("node-1")
                        .endMetadata()
                        .build(),
                rs);

        assertTrue(handle(api.created(ofAStatefulSet)).isEmpty(), "a kind the API server does not serve");
        assertTrue(handle(api.created(clusterScoped)).isEmpty(), "a cluster-scoped object naming a namespaced owner");
    }

    @Test
    void aDependentWithAnotherLiveOwnerOnlyLosesTheDanglingReference() {
        ReplicaSet a = aReplicaSet("rs-a");
        ReplicaSet b = aReplicaSet("rs-b");
        Pod shared = ownedBy(aPodOf(a, "shared"), b);
        given(api.created(ResourceType.REPLICASETS, a), api.created(ResourceType.REPLICASETS, b), api.created(shared));

        Effects effects = handle(api.removed(ResourceType.REPLICASETS, a));

        assertEquals(List.of("remove owners [uid-rs-a] from pods/shared"), requests(effects));
        PatchRequest patch = only(effects).data(PatchRequest.class);
        assertEquals(PatchRequest.STRATEGIC, patch.patchType());
        assertEquals(
                Json.tree(Map.of(
                        "metadata",
                        Map.of(
                                "ownerReferences",
                                List.of(Map.of("$patch", "delete", "uid", "uid-rs-a")),
                                "uid",
                                "uid-shared"))),
                patch.patch(),
                "upstream's deleteOwnerRefStrategicMergePatch, with the dependent's uid as precondition");

        Pod released = releasedFrom(shared, a);
        assertTrue(handle(api.answer(only(effects), EventTypes.OBJECT_UPDATED, ResourceType.PODS, released))
                .isEmpty());
        assertEquals(
                List.of("delete pods/shared Background"), requests(handle(api.removed(ResourceType.REPLICASETS, b))));
    }

    @Test
    void aDependentIsDeletedWithThePolicyOfTheFinalizersItAlreadyCarries() {
        ReplicaSet keepsItsPods = withFinalizers(rs, "orphan");
        given(api.created(ResourceType.DEPLOYMENTS, web), api.created(ResourceType.REPLICASETS, keepsItsPods));

        assertEquals(
                List.of("delete replicasets/web-1 Orphan"),
                requests(handle(api.removed(ResourceType.DEPLOYMENTS, web))));
    }
}
