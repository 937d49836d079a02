package io.podfall.controller.garbagecollector;

import static io.podfall.controller.garbagecollector.Owners.aDeployment;
import static io.podfall.controller.garbagecollector.Owners.aPodOf;
import static io.podfall.controller.garbagecollector.Owners.aReplicaSetOf;
import static io.podfall.controller.garbagecollector.Owners.deleting;
import static io.podfall.controller.garbagecollector.Owners.releasedFrom;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.podfall.model.core.Effects;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Orphan propagation: an owner with deletionTimestamp and the orphan finalizer is taken out of its dependents'
 * ownerReferences, and loses the finalizer once the graph shows no dependent naming it; the dependents stay.
 */
class OrphanDeletionTest extends GarbageCollectorFixture {
    private static final String ORPHAN = "orphan";

    private final Deployment web = aDeployment("web");
    private final ReplicaSet one = aReplicaSetOf(web, "web-1");
    private final ReplicaSet two = aReplicaSetOf(web, "web-2");

    @Test
    void everyDependentLosesItsReferenceThenTheOwnerItsFinalizerAndNothingIsDeleted() {
        given(
                api.created(ResourceType.DEPLOYMENTS, web),
                api.created(ResourceType.REPLICASETS, one),
                api.created(ResourceType.REPLICASETS, two),
                api.created(aPodOf(one, "web-1-a")));

        Effects patches = handle(api.markedTerminating(ResourceType.DEPLOYMENTS, deleting(web, ORPHAN)));
        assertEquals(
                List.of(
                        "remove owners [uid-web] from replicasets/web-1",
                        "remove owners [uid-web] from replicasets/web-2"),
                requests(patches));

        assertTrue(
                handle(api.answer(
                                patches.events().get(0),
                                EventTypes.OBJECT_UPDATED,
                                ResourceType.REPLICASETS,
                                releasedFrom(one, web)))
                        .isEmpty(),
                "web-2 still names the deployment");
        Effects last = handle(api.answer(
                patches.events().get(1), EventTypes.OBJECT_UPDATED, ResourceType.REPLICASETS, releasedFrom(two, web)));
        assertEquals(List.of("set finalizers [] of deployments/web"), requests(last));

        assertTrue(
                handle(api.answer(only(last), EventTypes.OBJECT_REMOVED, ResourceType.DEPLOYMENTS, deleting(web)))
                        .isEmpty(),
                "the orphans have no owner left to miss");
    }

    @Test
    void anOwnerWithoutDependentsLosesTheOrphanFinalizerAtOnce() {
        handle(api.created(ResourceType.DEPLOYMENTS, web));

        assertEquals(
                List.of("set finalizers [] of deployments/web"),
                requests(handle(api.markedTerminating(ResourceType.DEPLOYMENTS, deleting(web, ORPHAN)))));
    }

    @Test
    void aDependentRemovedMeanwhileNeedsNoPatch() {
        given(api.created(ResourceType.DEPLOYMENTS, web), api.created(ResourceType.REPLICASETS, one));
        handle(api.markedTerminating(ResourceType.DEPLOYMENTS, deleting(web, ORPHAN)));

        assertEquals(
                List.of("set finalizers [] of deployments/web"),
                requests(handle(api.removed(ResourceType.REPLICASETS, one))));
    }
}
