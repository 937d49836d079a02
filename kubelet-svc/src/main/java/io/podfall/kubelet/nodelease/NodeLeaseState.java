package io.podfall.kubelet.nodelease;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.podfall.kubelet.nodestatus.Informer;
import io.podfall.kubelet.nodestatus.RequestsInFlight;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** What {@link NodeLeaseController} knows: its nodes' uids, their Leases as last stored, and the requests in flight. */
public final class NodeLeaseState {
    /** The uid of each of the kubelet's nodes the API server holds, by name. */
    final Map<String, String> nodeUids = new HashMap<>();
    /** Informer cache: each node's Lease (named as the node). */
    final Informer<Lease> leases = new Informer<>();
    /** The create or renewal in flight per node. */
    final RequestsInFlight<String> requests = new RequestsInFlight<>();

    public Optional<Lease> lease(String node) {
        return leases.get(node);
    }
}
