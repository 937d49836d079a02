package io.podfall.controller.garbagecollector;

import static io.podfall.controller.testing.ApiServerFacts.T0;
import static io.podfall.model.testing.Pods.aPod;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.podfall.model.Json;
import java.util.List;

/**
 * Test data for the ownership graph: workloads in namespace {@code default} with the uid {@code uid-<name>} the
 * {@link io.podfall.controller.testing.ApiServerFacts} would give them, and ownerReferences as controllers set them
 * ({@code controller: true}, {@code blockOwnerDeletion: true} unless told). Each method returns a new object.
 */
final class Owners {
    private Owners() {}

    static Deployment aDeployment(String name) {
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .withUid("uid-" + name)
                .endMetadata()
                .build();
    }

    static ReplicaSet aReplicaSet(String name) {
        return new ReplicaSetBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .withUid("uid-" + name)
                .endMetadata()
                .build();
    }

    /** A ReplicaSet of the owner, as the Deployment controller creates it. */
    static ReplicaSet aReplicaSetOf(HasMetadata owner, String name) {
        return ownedBy(aReplicaSet(name), owner);
    }

    /** A pod of the owner, as the ReplicaSet controller creates it. */
    static Pod aPodOf(HasMetadata owner, String name) {
        return ownedBy(aPod(name).withUid("uid-" + name).build(), owner);
    }

    static <T extends HasMetadata> T ownedBy(T dependent, HasMetadata owner) {
        return ownedBy(dependent, owner, true);
    }

    /** A copy of the dependent with one more ownerReference, to the owner. */
    static <T extends HasMetadata> T ownedBy(T dependent, HasMetadata owner, boolean blockOwnerDeletion) {
        T copy = copy(dependent);
        copy.getMetadata()
                .getOwnerReferences()
                .add(new OwnerReferenceBuilder()
                        .withApiVersion(owner.getApiVersion())
                        .withKind(owner.getKind())
                        .withName(owner.getMetadata().getName())
                        .withUid(owner.getMetadata().getUid())
                        .withController(true)
                        .withBlockOwnerDeletion(blockOwnerDeletion)
                        .build());
        return copy;
    }

    /** A copy of the dependent without its reference to the owner, as the collector's patch leaves it. */
    static <T extends HasMetadata> T releasedFrom(T dependent, HasMetadata owner) {
        T copy = copy(dependent);
        copy.getMetadata()
                .getOwnerReferences()
                .removeIf(r -> r.getUid().equals(owner.getMetadata().getUid()));
        return copy;
    }

    /**
     * A copy of the object as the API server keeps it while finalizers hold it: deletionTimestamp now, grace 0, and
     * these finalizers (what a delete with propagationPolicy Foreground or Orphan leaves).
     */
    static <T extends HasMetadata> T deleting(T object, String... finalizers) {
        T copy = copy(object);
        copy.getMetadata().setDeletionTimestamp(T0.toString());
        copy.getMetadata().setDeletionGracePeriodSeconds(0L);
        copy.getMetadata().setFinalizers(List.of(finalizers));
        return copy;
    }

    /** A copy of the object with only these finalizers left, as a patch that removed the others leaves it. */
    static <T extends HasMetadata> T withFinalizers(T object, String... finalizers) {
        T copy = copy(object);
        copy.getMetadata().setFinalizers(List.of(finalizers));
        return copy;
    }

    @SuppressWarnings("unchecked")
    private static <T extends HasMetadata> T copy(T object) {
        return (T) Json.convert(Json.tree(object), object.getClass());
    }
}
