package io.podfall.kubelet;

import io.podfall.kubelet.nodelease.NodeLeaseController;
import io.podfall.kubelet.nodelease.NodeLeaseTimer;
import io.podfall.kubelet.nodestatus.NodeStatusSync;
import io.podfall.kubelet.nodestatus.NodeStatusTimer;
import io.podfall.kubelet.podworkers.PodWorkerTimer;
import io.podfall.kubelet.podworkers.PodWorkers;
import io.podfall.model.core.CompositeCore;
import io.podfall.model.event.EventCatalogue;
import java.util.List;
import java.util.Set;

/**
 * The kubelet of one or many simulated nodes (pkg/kubelet/kubelet.go Kubelet): its pod workers, which run the pods,
 * beside the node's own upkeep, its status ({@link NodeStatusSync}) and its Lease ({@link NodeLeaseController}). Each
 * part keeps a state of its own and sees every event the kubelet reads; the pod workers decide first, and the node's
 * parts emit after them on the same builder, so the effects of one cause never share an id though they share the source
 * {@code /kubelet/<node>}: that order numbers the events and must not change. Timer key types tell the parts apart
 * ({@link PodWorkerTimer} are the pod workers', {@link NodeStatusTimer} and {@link NodeLeaseTimer} the node's); each
 * part ignores the others' keys.
 */
public final class Kubelet extends CompositeCore {
    /** The components whose facts reach a kubelet: the API server it watches, the runtime and plugins it calls. */
    private static final Set<String> HEARS_FROM = Set.of("apiserver", "runtime", "csi");

    private final PodWorkers podWorkers;

    public Kubelet(PodWorkers podWorkers, int nodeLeaseDurationSeconds) {
        super(List.of(
                podWorkers,
                new NodeStatusSync(podWorkers.nodeNames(), podWorkers.capacity()),
                new NodeLeaseController(podWorkers.nodeNames(), nodeLeaseDurationSeconds)));
        this.podWorkers = podWorkers;
    }

    /** The pod workers, for what the wiring asks of them beside the log (the nodes' registration). */
    public PodWorkers podWorkers() {
        return podWorkers;
    }

    /**
     * Facts of the API server (its watch and its answers), of the container runtime (CRI replies) and of the CSI
     * plugins: what a kubelet hears. It reads no requests, its own to others included, and none of its own facts.
     */
    @Override
    public boolean reads(String type) {
        return !EventCatalogue.isRequest(type) && HEARS_FROM.contains(EventCatalogue.owner(type));
    }
}
