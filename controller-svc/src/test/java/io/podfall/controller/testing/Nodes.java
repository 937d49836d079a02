package io.podfall.controller.testing;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;

/** Test data for nodes, Ready as a kubelet registers them unless told: {@code aNode("node-1").notReady().build()}. */
public final class Nodes {
    private final NodeBuilder b;
    private String ready = "True";
    private Integer allocatablePods;

    private Nodes(String name) {
        b = new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .endSpec();
    }

    public static Nodes aNode(String name) {
        return new Nodes(name);
    }

    public Nodes notReady() {
        ready = "False";
        return this;
    }

    public Nodes cordoned() {
        b.editSpec().withUnschedulable(true).endSpec();
        return this;
    }

    public Nodes tainted(String key, String effect) {
        b.editSpec().addNewTaint().withKey(key).withEffect(effect).endTaint().endSpec();
        return this;
    }

    public Nodes terminating(Instant deletionTimestamp) {
        b.editMetadata().withDeletionTimestamp(deletionTimestamp.toString()).endMetadata();
        return this;
    }

    /** status.allocatable.pods, as a kubelet reports its --max-pods; a node without it takes any number. */
    public Nodes allowingPods(int pods) {
        allocatablePods = pods;
        return this;
    }

    public Node build() {
        b.withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready)
                .endCondition()
                .endStatus();
        if (allocatablePods != null) {
            b.editStatus()
                    .addToAllocatable("pods", new Quantity(allocatablePods.toString()))
                    .endStatus();
        }
        return b.build();
    }
}
