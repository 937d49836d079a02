package io.podfall.kubelet.nodestatus;

import io.fabric8.kubernetes.api.model.Node;
import java.util.List;

/** What {@link NodeStatusSync} knows: its nodes as the API server last stored them, and the posts in flight. */
public final class NodeStatusState {
    /** Informer cache: the kubelet's own Node objects. */
    final Informer<Node> nodes = new Informer<>();
    /** The post in flight per node, with the conditions it reports. */
    final RequestsInFlight<List<NodeConditions.Reported>> posts = new RequestsInFlight<>();
}
