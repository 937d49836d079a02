package io.podfall.controller.nodelifecycle;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.podfall.controller.ResourceVersions;
import java.time.Instant;
import java.util.Objects;

/**
 * What the {@link NodeLifecycleController} knows of one node (upstream's nodeHealthData): the node as last stored, when
 * it was last heard from (probeTimestamp) and by which heartbeat, and its writes in flight.
 */
final class NodeHealth {
    private final String name;
    /** The node as the API server last stored it; null while only its Lease was seen. */
    private Node node;
    /** When the controller last heard from the node: the time of the fact that showed a heartbeat. */
    private Instant probedAt;
    /** The Ready condition's lastHeartbeatTime last seen. */
    private String readyHeartbeat;
    /** The Lease's renewTime last seen. */
    private Instant renewTime;

    private InFlight status;
    private InFlight taints;
    /** The resourceVersion a write of the controller was refused at: no write from it again. */
    private String refusedAt;

    /** A write in flight: its request id and the resourceVersion it is conditional on. */
    private record InFlight(String requestId, String resourceVersion) {}

    NodeHealth(String name) {
        this.name = name;
    }

    String name() {
        return name;
    }

    Node node() {
        return node;
    }

    Instant probedAt() {
        return probedAt;
    }

    /**
     * Takes in a fact of the node unless it is older than the cached one; a fact caused by a write in flight ends it.
     * The node is heard from when first seen and whenever its Ready heartbeat moves. Whether it was news.
     */
    boolean observe(Node fact, String causationId, Instant at) {
        if (node != null
                && !ResourceVersions.isOlder(
                        node.getMetadata().getResourceVersion(),
                        fact.getMetadata().getResourceVersion())) {
            return false;
        }
        boolean first = node == null;
        node = fact;
        if (status != null && status.requestId().equals(causationId)) {
            status = null;
        }
        if (taints != null && taints.requestId().equals(causationId)) {
            taints = null;
        }
        NodeCondition ready = NodeLifecycleController.condition(fact, "Ready");
        String heartbeat = ready == null ? null : ready.getLastHeartbeatTime();
        if (first || !Objects.equals(heartbeat, readyHeartbeat)) {
            probedAt = probedAt == null || at.isAfter(probedAt) ? at : probedAt;
        }
        readyHeartbeat = heartbeat;
        return true;
    }

    /** The Lease shows a renewTime later than the one last seen: the node is heard from. Whether it was. */
    boolean renewed(Instant leaseRenewTime, Instant at) {
        if (renewTime != null && !leaseRenewTime.isAfter(renewTime)) {
            return false;
        }
        renewTime = leaseRenewTime;
        probedAt = probedAt == null || at.isAfter(probedAt) ? at : probedAt;
        return true;
    }

    /** Whether a fact caused by {@code causationId} answers this node's status write in flight. */
    boolean answersStatusWrite(String causationId) {
        return status != null && status.requestId().equals(causationId);
    }

    boolean statusInFlight() {
        return status != null || refusedHere();
    }

    boolean taintsInFlight() {
        return taints != null || refusedHere();
    }

    void statusRequested(String requestId) {
        status = new InFlight(requestId, node.getMetadata().getResourceVersion());
    }

    void taintsRequested(String requestId) {
        taints = new InFlight(requestId, node.getMetadata().getResourceVersion());
    }

    /** If the refused request was one of this node's writes: it is over. Whether it was. */
    boolean refused(String requestId) {
        InFlight refused = status != null && status.requestId().equals(requestId)
                ? status
                : taints != null && taints.requestId().equals(requestId) ? taints : null;
        if (refused == null) {
            return false;
        }
        if (refused == status) {
            status = null;
        } else {
            taints = null;
        }
        refusedAt = refused.resourceVersion();
        return true;
    }

    /** Whether the cache still shows the node a write was refused at: asking again would only be refused again. */
    private boolean refusedHere() {
        return node != null && Objects.equals(refusedAt, node.getMetadata().getResourceVersion());
    }
}
