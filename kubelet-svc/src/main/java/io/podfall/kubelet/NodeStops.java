package io.podfall.kubelet;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.kubelet.nodelease.NodeLeaseController;
import io.podfall.kubelet.nodelease.NodeLeaseTimer;
import io.podfall.kubelet.nodestatus.NodeStatusTimer;
import io.podfall.kubelet.podworkers.PodWorkerTimer;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Part;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCatalogue;
import io.podfall.model.event.EventTypes;
import io.podfall.model.host.NodeMachine;
import io.podfall.model.k8s.ResourceType;
import java.util.List;

/**
 * The kubelet's nodes whose machine is stopped ({@code host.NodeStopped}) until it starts again
 * ({@code host.NodeStarted}). No upstream component: it models a kubelet that is down, or cut off from the API server,
 * while the node's container runtime keeps running what it runs (a StopContainer already asked for still completes).
 *
 * <p><b>While stopped</b> the kubelet does nothing for that node: every fact about the node (its Node, its Lease, a pod
 * bound to it, a runtime or CSI fact of it) and every timer of it is held here instead of reaching the pod workers, the
 * node status sync and the lease controller. So no Lease is renewed, no status posted, no pod decided on, no runtime or
 * CSI request sent. The kubelet's other nodes go on as before; a refusal of a request sent before the stop is not held
 * (it names no node; its retry's timer is held when it comes due).
 *
 * <p><b>What it holds</b> is compacted ({@link StoppedNodes.Held}): the latest fact about each object, as a LIST of the
 * API server gives it at a kubelet's start, and the latest fact about each container, as the PLEG's first relist sees
 * it (pkg/kubelet/pleg/generic.go compares the states it finds, not what happened in between); sandbox, signal and
 * volume facts are kept each in their order. A timer that came due is kept once per key. The node's own heartbeats are
 * not kept: the start posts both at once.
 *
 * <p><b>At the start</b> the {@link Kubelet} hands what was held to its parts, as facts at the time of the start (a
 * restarted kubelet decides on what it finds now: a pod marked for deletion while away begins its termination at the
 * start, with the grace period it has now), then fires the held timers (each once), then posts the node's status and
 * renews its Lease at once (kubelet.go: syncNodeStatus and the lease controller run as the kubelet starts). A pod that
 * left the API server while away is an orphan, as HandlePodCleanups finds one.
 *
 * <p>Approximated: a restarted kubelet rebuilds its pod workers from the API server and the runtime; here they are kept
 * through the stop (state is a fold over the log), so a running pod is adopted as it was (no restart, its probes and
 * back-offs go on from their held timers) and a termination in flight before the stop goes on with its first deadline.
 */
public final class NodeStops implements Part<StoppedNodes> {
    private static final String CONTAINER = "container/";

    private final List<String> nodeNames;

    public NodeStops(List<String> nodeNames) {
        this.nodeNames = List.copyOf(nodeNames);
    }

    @Override
    public StoppedNodes newState() {
        return new StoppedNodes();
    }

    @Override
    public boolean reads(String type) {
        return type.equals(EventTypes.NODE_STOPPED);
    }

    /** A node of this kubelet stopped: from now on, what is about it is held. A second stop changes nothing. */
    @Override
    public void handle(StoppedNodes state, Event event, Effects.Builder out) {
        String node = event.data(NodeMachine.class).node();
        if (nodeNames.contains(node)) {
            state.stop(node);
        }
    }

    /** Holds {@code event} if it is about a stopped node; whether it did. */
    boolean hold(StoppedNodes state, Event event) {
        if (state.isEmpty()) {
            return false;
        }
        String node = nodeOf(event);
        if (node == null || !state.isStopped(node)) {
            return false;
        }
        state.held(node).hold(about(event), event);
        return true;
    }

    /**
     * Holds {@code timer} if it is a stopped node's (dropping the node's heartbeats, which the start posts); whether.
     */
    boolean hold(StoppedNodes state, Timer timer) {
        if (state.isEmpty()) {
            return false;
        }
        String node = nodeOf(timer);
        if (node == null || !state.isStopped(node)) {
            return false;
        }
        if (timer.key() instanceof PodWorkerTimer) {
            state.held(node).hold(timer);
        }
        return true;
    }

    /**
     * The node of the kubelet's that a fact is about: a runtime or CSI fact's node, the Node itself, its Lease, the
     * node a pod is bound to; null for anything else.
     */
    private String nodeOf(Event event) {
        String owner = EventCatalogue.owner(event.type());
        String node = null;
        if (owner.equals("runtime") || owner.equals("csi")) {
            node = event.data().path("node").textValue();
        } else if (EventTypes.OBJECT_CHANGES.contains(event.type())) {
            ObjectChange change = ObjectChange.of(event);
            JsonNode metadata = change.object().path("metadata");
            if (ResourceType.PODS.plural().equals(change.resource())) {
                node = change.object().path("spec").path("nodeName").textValue();
            } else if (ResourceType.NODES.plural().equals(change.resource())
                    || (ResourceType.LEASES.plural().equals(change.resource())
                            && NodeLeaseController.NAMESPACE.equals(
                                    metadata.path("namespace").textValue()))) {
                node = metadata.path("name").textValue();
            }
        }
        return node != null && nodeNames.contains(node) ? node : null;
    }

    private static String nodeOf(Timer timer) {
        if (timer.key() instanceof PodWorkerTimer k) {
            return k.node();
        } else if (timer.key() instanceof NodeStatusTimer k) {
            return k.node();
        } else if (timer.key() instanceof NodeLeaseTimer k) {
            return k.node();
        }
        return null;
    }

    /**
     * What a held fact is about, so that a later one replaces it: an API object (a pod by its uid), a container of a
     * pod; any other fact is about itself.
     */
    static String about(Event event) {
        if (EventTypes.OBJECT_CHANGES.contains(event.type())) {
            ObjectChange change = ObjectChange.of(event);
            JsonNode metadata = change.object().path("metadata");
            return change.resource() + "/"
                    + (ResourceType.PODS.plural().equals(change.resource())
                            ? metadata.path("uid").asText()
                            : metadata.path("namespace").asText() + "/"
                                    + metadata.path("name").asText());
        }
        if (event.is(EventTypes.CONTAINER_STARTED) || event.is(EventTypes.CONTAINER_EXITED)) {
            JsonNode data = event.data();
            return CONTAINER + data.path("podUid").asText() + "/"
                    + data.path("containerName").asText();
        }
        return event.id();
    }
}
