package io.podfall.kubelet;

import io.podfall.kubelet.nodelease.NodeLeaseController;
import io.podfall.kubelet.nodestatus.NodeCapacity;
import io.podfall.kubelet.podworkers.Compat;
import io.podfall.kubelet.podworkers.EvictionManager;
import io.podfall.kubelet.podworkers.KubeletTiming;
import io.podfall.kubelet.podworkers.PodWorkers;
import io.podfall.kubelet.proxy.ProxyTiming;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A kubelet's settings, as upstream's KubeletConfiguration: the one place its core is built, so the service and the
 * replay engine run the same one.
 *
 * @param nodes {@code podfall.kubelet.nodes}: the nodes this kubelet simulates
 * @param compat the compatibility switches, {@code podfall.kubelet.compat.*}
 * @param evictionMaxPodGracePeriodSeconds {@code podfall.kubelet.eviction-max-pod-grace-period}, upstream's
 *     {@code evictionMaxPodGracePeriod}
 * @param nodeLeaseDurationSeconds {@code podfall.kubelet.node-lease-duration-seconds}, upstream's
 *     {@code nodeLeaseDurationSeconds}
 * @param timing the kubelet's own waits: {@code podfall.kubelet.timing}, {@code podfall.kubelet.pleg-relist-period},
 *     {@code podfall.kubelet.container-gc-period}
 * @param capacity what each node registers with: {@code podfall.kubelet.node-capacity} and
 *     {@code podfall.kubelet.node-capacity.<node>}
 * @param proxy the nodes' kube-proxies: {@code podfall.proxy.min-sync-period}, {@code podfall.proxy.sync-duration};
 *     recorded on the Nodes the kubelet registers ({@link ProxyTiming#ANNOTATION}). Empty: no kube-proxy, as a kubelet
 *     replayed from a recording made before podfall mirrored it
 */
public record KubeletConfiguration(
        List<String> nodes,
        Compat compat,
        long evictionMaxPodGracePeriodSeconds,
        int nodeLeaseDurationSeconds,
        KubeletTiming timing,
        NodeCapacity capacity,
        Optional<ProxyTiming> proxy) {
    public KubeletConfiguration {
        nodes = List.copyOf(nodes);
    }

    /**
     * The settings the service runs with when none is configured, for these nodes: no compatibility switch on,
     * upstream's waits.
     */
    public static KubeletConfiguration defaults(List<String> nodes) {
        return new KubeletConfiguration(
                nodes,
                Compat.NONE,
                EvictionManager.DEFAULT_MAX_POD_GRACE_PERIOD_SECONDS,
                NodeLeaseController.DEFAULT_LEASE_DURATION_SECONDS,
                KubeletTiming.UPSTREAM,
                NodeCapacity.DEFAULT,
                Optional.of(ProxyTiming.UPSTREAM));
    }

    /** The core as the service runs it; the service's KubeletProducer and the replay engine both call this. */
    public Kubelet newKubelet() {
        return new Kubelet(
                new PodWorkers(
                        nodes,
                        compat,
                        evictionMaxPodGracePeriodSeconds,
                        timing,
                        capacity,
                        proxy.map(p -> Map.of(ProxyTiming.ANNOTATION, p.annotation()))
                                .orElse(Map.of())),
                nodeLeaseDurationSeconds,
                proxy);
    }
}
