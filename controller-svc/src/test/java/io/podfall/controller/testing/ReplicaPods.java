package io.podfall.controller.testing;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.podfall.controller.CachedPod;
import io.podfall.model.Json;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;

/**
 * Test data for the pods of a ReplicaSet (template labels, controller reference, Pending unless told):
 * {@code aPodOf(rs, "web-a").onNode("node-1").ready(T0).build()}.
 */
public final class ReplicaPods {
    private final PodBuilder b;

    private ReplicaPods(ReplicaSet rs, String name) {
        b = new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(rs.getMetadata().getNamespace())
                .withUid("uid-" + name)
                .withLabels(rs.getSpec().getTemplate().getMetadata().getLabels())
                .addNewOwnerReference()
                .withApiVersion(ResourceType.REPLICASETS.apiVersion())
                .withKind(ResourceType.REPLICASETS.kind())
                .withName(rs.getMetadata().getName())
                .withUid(rs.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .endOwnerReference()
                .endMetadata()
                .withSpec(rs.getSpec().getTemplate().getSpec())
                .withNewStatus()
                .withPhase("Pending")
                .endStatus();
    }

    public static ReplicaPods aPodOf(ReplicaSet rs, String name) {
        return new ReplicaPods(rs, name);
    }

    public ReplicaPods onNode(String node) {
        b.editSpec().withNodeName(node).endSpec();
        return this;
    }

    public ReplicaPods inPhase(String phase) {
        b.editStatus().withPhase(phase).endStatus();
        return this;
    }

    /** Running with its Ready condition True since {@code since}, as the kubelet writes it. */
    public ReplicaPods ready(Instant since) {
        b.editStatus()
                .withPhase("Running")
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .withLastTransitionTime(since.toString())
                .endCondition()
                .endStatus();
        return this;
    }

    public ReplicaPods createdAt(Instant time) {
        b.editMetadata().withCreationTimestamp(time.toString()).endMetadata();
        return this;
    }

    public ReplicaPods restarts(int count) {
        b.editStatus()
                .addNewContainerStatus()
                .withName("app")
                .withRestartCount(count)
                .endContainerStatus()
                .endStatus();
        return this;
    }

    public ReplicaPods deletionCost(int cost) {
        b.editMetadata()
                .addToAnnotations("controller.kubernetes.io/pod-deletion-cost", Integer.toString(cost))
                .endMetadata();
        return this;
    }

    public ReplicaPods labelled(String key, String value) {
        b.editMetadata().addToLabels(key, value).endMetadata();
        return this;
    }

    public ReplicaPods terminating(Instant deletionTimestamp) {
        b.editMetadata()
                .withDeletionTimestamp(deletionTimestamp.toString())
                .withDeletionGracePeriodSeconds(30L)
                .endMetadata();
        return this;
    }

    public Pod build() {
        return b.build();
    }

    /** The pod as the ReplicaSet controller caches it, read off its JSON. */
    public CachedPod cached() {
        return CachedPod.of(Json.tree(build()));
    }
}
