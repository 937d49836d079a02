package io.podfall.controller.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;

/**
 * Test data for ReplicaSets as the API server stores them (generation 1, selector and template label
 * {@code app=<name>}): {@code aReplicaSet("web").replicas(3).build()}.
 */
public final class ReplicaSets {
    private final ReplicaSetBuilder b;

    private ReplicaSets(String name) {
        b = new ReplicaSetBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .withGeneration(1L)
                .endMetadata()
                .withNewSpec()
                .withReplicas(1)
                .withNewSelector()
                .addToMatchLabels("app", name)
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx:1.27")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec();
    }

    public static ReplicaSets aReplicaSet(String name) {
        return new ReplicaSets(name);
    }

    public ReplicaSets replicas(int replicas) {
        b.editSpec().withReplicas(replicas).endSpec();
        return this;
    }

    public ReplicaSets minReadySeconds(int seconds) {
        b.editSpec().withMinReadySeconds(seconds).endSpec();
        return this;
    }

    public ReplicaSets generation(long generation) {
        b.editMetadata().withGeneration(generation).endMetadata();
        return this;
    }

    /** Controlled by {@code owner} (a Deployment), as the Deployment controller creates it. */
    public ReplicaSets controlledBy(HasMetadata owner) {
        b.editMetadata()
                .addNewOwnerReference()
                .withApiVersion(ResourceType.DEPLOYMENTS.apiVersion())
                .withKind(owner.getKind())
                .withName(owner.getMetadata().getName())
                .withUid(owner.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .endOwnerReference()
                .endMetadata();
        return this;
    }

    public ReplicaSets terminating(Instant deletionTimestamp) {
        b.editMetadata()
                .withDeletionTimestamp(deletionTimestamp.toString())
                .withDeletionGracePeriodSeconds(0L)
                .addToFinalizers("foregroundDeletion")
                .endMetadata();
        return this;
    }

    public ReplicaSet build() {
        return b.build();
    }
}
