package io.podfall.kubelet;

import io.podfall.kubelet.nodelease.NodeLeaseController;
import io.podfall.kubelet.nodelease.NodeLeaseTimer;
import io.podfall.kubelet.nodestatus.NodeStatusSync;
import io.podfall.kubelet.nodestatus.NodeStatusTimer;
import io.podfall.kubelet.podworkers.PodWorkerTimer;
import io.podfall.kubelet.podworkers.PodWorkers;
import io.podfall.model.core.Core;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCatalogue;

import java.time.Instant;
import java.util.Set;

/**
 * The kubelet of one or many simulated nodes (pkg/kubelet/kubelet.go Kubelet): its pod workers, which run the pods,
 * beside the node's own upkeep, its status ({@link NodeStatusSync}) and its Lease ({@link NodeLeaseController}). Each
 * part keeps a state of its own and sees every event the kubelet reads; the pod workers decide first, and the
 * node's parts emit after them on the same builder, so the effects of one cause never share an id though they share
 * the source {@code /kubelet/<node>}. Timer key types tell the parts apart ({@link PodWorkerTimer} are the pod
 * workers', {@link NodeStatusTimer} and {@link NodeLeaseTimer} the node's); each part ignores the others' keys.
 */
public final class Kubelet implements Core<KubeletState> {
    /** The components whose facts reach a kubelet: the API server it watches, the runtime and plugins it calls. */
    private static final Set<String> HEARS_FROM = Set.of("apiserver", "runtime", "csi");
    private final PodWorkers podWorkers;
    private final NodeStatusSync nodeStatus;
    private final NodeLeaseController nodeLease;

    public Kubelet(PodWorkers podWorkers, int nodeLeaseDurationSeconds) {
        this.podWorkers = podWorkers;
        this.nodeStatus = new NodeStatusSync(podWorkers.nodeNames());
        this.nodeLease = new NodeLeaseController(podWorkers.nodeNames(), nodeLeaseDurationSeconds);
    }

    public PodWorkers podWorkers() {
        return podWorkers;
    }

    @Override
    public KubeletState newState() {
        return new KubeletState(podWorkers.newState(), nodeStatus.newState(), nodeLease.newState());
    }

    @Override
    public Effects handle(KubeletState state, Event event, Instant now) {
        Effects.Builder out = Effects.of(event, now).include(podWorkers.handle(state.podWorkers(), event, now));
        nodeStatus.handle(state.nodeStatus(), event, out);
        nodeLease.handle(state.nodeLease(), event, out);
        return out.build();
    }

    /**
     * Facts of the API server (its watch and its answers), of the container runtime (CRI replies) and of the CSI
     * plugins: what a kubelet hears. It reads no requests, its own to others included, and none of its own facts.
     */
    @Override
    public boolean reads(String type) {
        return !EventCatalogue.isRequest(type) && HEARS_FROM.contains(EventCatalogue.owner(type));
    }

    @Override
    public Effects fire(KubeletState state, Timer timer, Instant now) {
        Effects.Builder out = Effects.of(timer, now).include(podWorkers.fire(state.podWorkers(), timer, now));
        nodeStatus.fire(state.nodeStatus(), timer, out);
        nodeLease.fire(state.nodeLease(), timer, out);
        return out.build();
    }
}
