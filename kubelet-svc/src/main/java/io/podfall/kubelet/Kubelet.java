package io.podfall.kubelet;

import io.podfall.kubelet.nodelease.NodeLeaseController;
import io.podfall.kubelet.nodelease.NodeLeaseTimer;
import io.podfall.kubelet.nodestatus.NodeStatusSync;
import io.podfall.kubelet.nodestatus.NodeStatusTimer;
import io.podfall.kubelet.podworkers.PodWorkerTimer;
import io.podfall.kubelet.podworkers.PodWorkers;
import io.podfall.kubelet.podworkers.PodWorkersState;
import io.podfall.kubelet.proxy.KubeProxy;
import io.podfall.kubelet.proxy.ProxyTiming;
import io.podfall.model.core.CompositeCore;
import io.podfall.model.core.CompositeState;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCatalogue;
import io.podfall.model.event.EventTypes;
import io.podfall.model.host.NodeMachine;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The kubelet of one or many simulated nodes (pkg/kubelet/kubelet.go Kubelet): its pod workers, which run the pods,
 * beside the node's own upkeep, its status ({@link NodeStatusSync}) and its Lease ({@link NodeLeaseController}), and
 * the node's kube-proxy ({@link KubeProxy}, which holds its own stopped nodes back: its facts are about no node). Each
 * part keeps a state of its own and sees every event the kubelet reads; the pod workers decide first, and the node's
 * parts emit after them on the same builder, so the effects of one cause never share an id though they share the source
 * {@code /kubelet/<node>}: that order numbers the events and must not change. Timer key types tell the parts apart
 * ({@link PodWorkerTimer} are the pod workers', {@link NodeStatusTimer} and {@link NodeLeaseTimer} the node's); each
 * part ignores the others' keys.
 *
 * <p>A node whose machine is stopped ({@link NodeStops}, the first part: it only records the stop and emits nothing)
 * gets nothing: what is about it and its timers are held until it starts, when the kubelet finishes what it finds.
 */
public final class Kubelet extends CompositeCore {
    /**
     * The components whose facts reach a kubelet: the API server it watches, the runtime and plugins it calls, and its
     * nodes' machines stopping and starting.
     */
    private static final Set<String> HEARS_FROM = Set.of("apiserver", "runtime", "csi", "host");

    private final PodWorkers podWorkers;
    private final NodeStops nodeStops;

    /** A kubelet whose nodes run no kube-proxy. */
    public Kubelet(PodWorkers podWorkers, int nodeLeaseDurationSeconds) {
        this(podWorkers, nodeLeaseDurationSeconds, Optional.empty());
    }

    /** @param proxy the timing of the nodes' kube-proxies; empty: none runs */
    public Kubelet(PodWorkers podWorkers, int nodeLeaseDurationSeconds, Optional<ProxyTiming> proxy) {
        this(podWorkers, new NodeStops(podWorkers.nodeNames()), nodeLeaseDurationSeconds, proxy);
    }

    private Kubelet(
            PodWorkers podWorkers, NodeStops nodeStops, int nodeLeaseDurationSeconds, Optional<ProxyTiming> proxy) {
        super(List.of(
                nodeStops,
                podWorkers,
                new NodeStatusSync(podWorkers.nodeNames(), podWorkers.capacity()),
                new NodeLeaseController(podWorkers.nodeNames(), nodeLeaseDurationSeconds),
                new KubeProxy(podWorkers.nodeNames(), proxy)));
        this.podWorkers = podWorkers;
        this.nodeStops = nodeStops;
    }

    /** The pod workers, for what the wiring asks of them beside the log (the nodes' registration). */
    public PodWorkers podWorkers() {
        return podWorkers;
    }

    /**
     * Facts of the API server (its watch and its answers), of the container runtime (CRI replies), of the CSI plugins,
     * and of its nodes' machines: what a kubelet hears. It reads no requests, its own to others included, and none of
     * its own facts.
     */
    @Override
    public boolean reads(String type) {
        return !EventCatalogue.isRequest(type) && HEARS_FROM.contains(EventCatalogue.owner(type));
    }

    @Override
    protected void handle(CompositeState state, Event event, Effects.Builder out) {
        StoppedNodes stopped = state.of(StoppedNodes.class);
        if (nodeStops.hold(stopped, event)) {
            return;
        }
        super.handle(state, event, out);
        if (event.is(EventTypes.NODE_STARTED)) {
            String node = event.data(NodeMachine.class).node();
            stopped.start(node).ifPresent(held -> start(state, event, node, held, out));
        }
    }

    @Override
    protected void fire(CompositeState state, Timer timer, Effects.Builder out) {
        if (!nodeStops.hold(state.of(StoppedNodes.class), timer)) {
            super.fire(state, timer, out);
        }
    }

    /**
     * A stopped node starts: its kubelet finishes what it finds, as a restarted one does (pkg/kubelet/kubelet.go Run
     * and syncLoop). What the API server and the runtime said while it was away reaches the parts now, compacted, as
     * facts of this moment: HandlePodAdditions of the pods it lists, the PLEG's first relist; a pod no longer on the
     * API server whose worker had not begun its termination is an orphan, killed as HandlePodCleanups kills one. Then
     * the timers that came due fire once each (a preStop deadline, a relist, a probe), and the node posts its status
     * and renews its Lease at once, as a kubelet's Run does (wait.JitterUntil runs syncNodeStatus first thing, and
     * nodeLeaseController.Run syncs the Lease as it starts). Everything is caused by the NodeStarted fact.
     */
    private void start(CompositeState state, Event started, String node, StoppedNodes.Held held, Effects.Builder out) {
        PodWorkersState pods = state.of(PodWorkersState.class);
        for (Event fact : held.facts()) {
            Event now = fact.at(out.causeTime());
            if (!podWorkers.removedWhileAway(pods, now, out)) {
                super.handle(state, now, out);
            }
        }
        for (Timer timer : held.timers()) {
            super.fire(state, timer, out);
        }
        Event.Cause cause = started.asCause();
        super.fire(state, new Timer(new NodeStatusTimer(node), out.causeTime(), cause), out);
        super.fire(state, new Timer(new NodeLeaseTimer(node), out.causeTime(), cause), out);
    }
}
