package io.podfall.controller.nodelifecycle;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** What the {@link NodeLifecycleController} knows: the health of every node it has heard of, by name. */
public final class NodeLifecycleState {
    private final Map<String, NodeHealth> nodes = new HashMap<>();

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

    void forget(String name) {
        nodes.remove(name);
    }
}
