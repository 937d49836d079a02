package io.podfall.kubelet.nodelease;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** What {@link NodeLeaseController} knows: its nodes' uids, their Leases as last stored, and the requests in flight. */
public final class NodeLeaseState {
    /** The uid of each of the kubelet's nodes the API server holds, by name. */
    private final Map<String, String> nodeUids = new HashMap<>();
    /** Informer cache: each node's Lease as the API server last stored it, by node name. */
    private final Map<String, Lease> leases = new HashMap<>();
    /** The id of the create or renewal in flight, by node name. */
    private final Map<String, String> inFlight = new HashMap<>();

    public Optional<Lease> lease(String node) {
        return Optional.ofNullable(leases.get(node));
    }

    Optional<String> nodeUid(String node) {
        return Optional.ofNullable(nodeUids.get(node));
    }

    boolean knowsNode(String node) {
        return nodeUids.containsKey(node);
    }

    void nodeSeen(String node, String uid) {
        nodeUids.put(node, uid);
    }

    void nodeRemoved(String node) {
        nodeUids.remove(node);
        inFlight.remove(node);
    }

    /**
     * Takes in a fact of the node's Lease unless it is older than the cached one (a redelivery); a fact caused by the
     * request in flight ends it. Whether the fact was news.
     */
    boolean observe(Lease lease, String causationId) {
        String node = lease.getMetadata().getName();
        Lease known = leases.get(node);
        if (known != null && Long.parseLong(lease.getMetadata().getResourceVersion())
                <= Long.parseLong(known.getMetadata().getResourceVersion())) {
            return false;
        }
        leases.put(node, lease);
        if (causationId != null && causationId.equals(inFlight.get(node))) {
            inFlight.remove(node);
        }
        return true;
    }

    void leaseRemoved(String node) {
        leases.remove(node);
    }

    boolean inFlight(String node) {
        return inFlight.containsKey(node);
    }

    void requested(String node, String requestId) {
        inFlight.put(node, requestId);
    }

    /** The node whose request in flight the API server refused; the request is over. */
    Optional<String> refused(String requestId) {
        Optional<String> node = inFlight.entrySet().stream().filter(e -> e.getValue().equals(requestId))
                .map(Map.Entry::getKey).findFirst();
        node.ifPresent(inFlight::remove);
        return node;
    }
}
