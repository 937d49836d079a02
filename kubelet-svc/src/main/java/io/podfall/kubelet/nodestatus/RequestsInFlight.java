package io.podfall.kubelet.nodestatus;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The kubelet's requests about its nodes that await the API server's answer, at most one per node: each ends with the
 * fact it caused (its causationId is the request's id) or with its refusal.
 *
 * @param <T> what the request asked for, to tell whether the same is asked again
 */
public final class RequestsInFlight<T> {
    private final Map<String, Request<T>> byNode = new HashMap<>();

    private record Request<T>(String id, T asked) {}

    public void requested(String node, String requestId, T asked) {
        byNode.put(node, new Request<>(requestId, asked));
    }

    public boolean inFlight(String node) {
        return byNode.containsKey(node);
    }

    /** Whether exactly this is being asked for the node already. */
    public boolean asking(String node, T asked) {
        Request<T> request = byNode.get(node);
        return request != null && request.asked().equals(asked);
    }

    /** A fact about the node caused by its request in flight answers it. */
    public void answered(String node, String causationId) {
        Request<T> request = byNode.get(node);
        if (request != null && request.id().equals(causationId)) {
            byNode.remove(node);
        }
    }

    /** The node whose request the API server refused; that request is over. */
    public Optional<String> refused(String requestId) {
        Optional<String> node = byNode.entrySet().stream()
                .filter(e -> e.getValue().id().equals(requestId))
                .map(Map.Entry::getKey)
                .findFirst();
        node.ifPresent(byNode::remove);
        return node;
    }

    public void forget(String node) {
        byNode.remove(node);
    }
}
