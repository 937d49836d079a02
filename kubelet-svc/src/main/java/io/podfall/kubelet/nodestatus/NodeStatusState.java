package io.podfall.kubelet.nodestatus;

import io.fabric8.kubernetes.api.model.Node;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What {@link NodeStatusSync} knows: its nodes as the API server last stored them, and the posts in flight. */
public final class NodeStatusState {
    /** Informer cache: the kubelet's own Node objects, by name. */
    private final Map<String, Node> nodes = new HashMap<>();
    /** The post in flight per node: the id of its request and the conditions it reports. */
    private final Map<String, Post> posts = new HashMap<>();

    private record Post(String requestId, List<NodeConditions.Reported> reported) {
    }

    public Optional<Node> node(String name) {
        return Optional.ofNullable(nodes.get(name));
    }

    /**
     * Takes in a fact of the node unless it is older than the cached one (a redelivery); a fact caused by the post in
     * flight ends it. Whether the fact was news.
     */
    boolean observe(Node node, String causationId) {
        String name = node.getMetadata().getName();
        Node known = nodes.get(name);
        if (known != null && Long.parseLong(node.getMetadata().getResourceVersion())
                <= Long.parseLong(known.getMetadata().getResourceVersion())) {
            return false;
        }
        nodes.put(name, node);
        Post post = posts.get(name);
        if (post != null && post.requestId().equals(causationId)) {
            posts.remove(name);
        }
        return true;
    }

    /** The node whose post in flight the API server refused; the post is over. */
    Optional<String> refused(String requestId) {
        Optional<String> node = posts.entrySet().stream().filter(e -> e.getValue().requestId().equals(requestId))
                .map(Map.Entry::getKey).findFirst();
        node.ifPresent(posts::remove);
        return node;
    }

    boolean inFlight(String name) {
        return posts.containsKey(name);
    }

    /** Whether a post of exactly these conditions is in flight already. */
    boolean posting(String name, List<NodeConditions.Reported> reported) {
        Post post = posts.get(name);
        return post != null && post.reported().equals(reported);
    }

    void posted(String name, String requestId, List<NodeConditions.Reported> reported) {
        posts.put(name, new Post(requestId, reported));
    }

    void forget(String name) {
        nodes.remove(name);
        posts.remove(name);
    }
}
