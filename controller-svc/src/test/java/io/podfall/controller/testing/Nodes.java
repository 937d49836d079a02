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
    private String allocatableCpu;
    private String allocatableMemory;

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

    public Nodes labelled(String key, String value) {
        b.editMetadata().addToLabels(key, value).endMetadata();
        return this;
    }

    /** status.allocatable cpu and memory, as a kubelet reports them; a node without them takes any requests. */
    public Nodes allocatable(String cpu, String memory) {
        allocatableCpu = cpu;
        allocatableMemory = memory;
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
        if (allocatableCpu != null) {
            b.editStatus()
                    .addToAllocatable("cpu", new Quantity(allocatableCpu))
                    .addToAllocatable("memory", new Quantity(allocatableMemory))
                    .endStatus();
        }
        return b.build();
    }
}
