package io.podfall.controller.nodelifecycle;

import io.podfall.controller.PodsByNode;
import io.podfall.controller.PodsByNode.PodKey;
import io.podfall.controller.nodelifecycle.MarkPodsNotReady.NodePod;
import io.podfall.controller.nodelifecycle.MarkPodsNotReady.PodWrite;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the {@link NodeLifecycleController} knows: the health of every node it has heard of, by name, the pods bound to
 * each, and its writes of pods' Ready in flight.
 */
public final class NodeLifecycleState {
    private final Map<String, NodeHealth> nodes = new HashMap<>();
    final PodsByNode<NodePod> pods = new PodsByNode<>(NodePod::of);
    /** Request id → the pod write it asks. */
    private final Map<String, PodWrite> podWrites = new HashMap<>();
    /** The pods of {@link #podWrites}. */
    private final Set<PodKey> writing = new HashSet<>();

    Optional<NodeHealth> health(String name) {
        return Optional.ofNullable(nodes.get(name));
    }

    NodeHealth healthOf(String name) {
        return nodes.computeIfAbsent(name, NodeHealth::new);
    }

    /** The node one of whose writes the API server refused. */
    Optional<NodeHealth> refused(String requestId) {
        if (requestId != null) {
            for (NodeHealth health : nodes.values()) {
                if (health.refused(requestId)) {
                    return Optional.of(health);
                }
            }
        }
        return Optional.empty();
    }

    boolean podWriteInFlight(PodKey pod) {
        return writing.contains(pod);
    }

    void podWriteRequested(String requestId, PodWrite write) {
        podWrites.put(requestId, write);
        writing.add(write.pod());
    }

    /** The pod write a fact or a refusal caused by {@code requestId} answers, if it is one: it is over. */
    Optional<PodWrite> podWriteAnswered(String requestId) {
        PodWrite write = requestId == null ? null : podWrites.remove(requestId);
        if (write != null) {
            writing.remove(write.pod());
        }
        return Optional.ofNullable(write);
    }

    void forget(String name) {
        nodes.remove(name);
    }
}
