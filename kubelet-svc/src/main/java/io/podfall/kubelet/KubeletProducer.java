package io.podfall.kubelet;

import io.podfall.kubelet.nodelease.NodeLeaseController;
import io.podfall.kubelet.nodestatus.NodeCapacity;
import io.podfall.kubelet.podworkers.Compat;
import io.podfall.kubelet.podworkers.EvictionManager;
import io.podfall.kubelet.podworkers.KubeletTiming;
import io.podfall.kubelet.podworkers.PodWorkers;
import io.podfall.kubelet.proxy.ProxyTiming;
import io.podfall.model.core.Core;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The kubelet's core for the nodes it simulates: the {@link Kubelet} the log processor runs, and its pod workers for
 * {@link NodeRegistration}. The switches away from the release ({@link Compat}) are off unless configured.
 */
@ApplicationScoped
public class KubeletProducer {

    @Produces
    @Singleton
    Kubelet kubelet(
            @ConfigProperty(name = "podfall.kubelet.nodes") List<String> nodes,
            @ConfigProperty(name = "podfall.kubelet.compat.shortened-grace-kills-again", defaultValue = "false")
                    boolean shortenedGraceKillsAgain,
            @ConfigProperty(name = "podfall.kubelet.compat.force-delete-uses-spec-grace", defaultValue = "false")
                    boolean forceDeleteUsesSpecGrace,
            @ConfigProperty(
                            name = "podfall.kubelet.eviction-max-pod-grace-period",
                            defaultValue = "" + EvictionManager.DEFAULT_MAX_POD_GRACE_PERIOD_SECONDS)
                    long evictionMaxPodGracePeriod,
            @ConfigProperty(
                            name = "podfall.kubelet.node-lease-duration-seconds",
                            defaultValue = "" + NodeLeaseController.DEFAULT_LEASE_DURATION_SECONDS)
                    int nodeLeaseDurationSeconds,
            @ConfigProperty(name = "podfall.kubelet.timing", defaultValue = "upstream") String timing,
            @ConfigProperty(name = "podfall.kubelet.pleg-relist-period") Optional<String> plegRelistPeriod,
            @ConfigProperty(name = "podfall.kubelet.container-gc-period") Optional<String> containerGcPeriod,
            @ConfigProperty(name = "podfall.kubelet.node-capacity", defaultValue = NodeCapacity.DEFAULT_SPEC)
                    String nodeCapacity,
            @ConfigProperty(name = "podfall.proxy.min-sync-period", defaultValue = "1s") String minSyncPeriod,
            @ConfigProperty(name = "podfall.proxy.sync-duration", defaultValue = "100ms") String syncDuration,
            Config config) {
        KubeletTiming profile = KubeletTiming.profile(timing);
        NodeCapacity capacity = new NodeCapacity(NodeCapacity.parse(nodeCapacity), Map.of());
        for (String node : nodes) {
            Optional<String> own =
                    config.getOptionalValue("podfall.kubelet.node-capacity." + node.trim(), String.class);
            if (own.isPresent()) {
                capacity = capacity.overriding(node.trim(), NodeCapacity.parse(own.get()));
            }
        }
        return new KubeletConfiguration(
                        nodes,
                        new Compat(shortenedGraceKillsAgain, forceDeleteUsesSpecGrace),
                        evictionMaxPodGracePeriod,
                        nodeLeaseDurationSeconds,
                        new KubeletTiming(
                                plegRelistPeriod.map(KubeletTiming::parse).orElse(profile.plegRelistPeriod()),
                                containerGcPeriod.map(KubeletTiming::parse).orElse(profile.containerGcPeriod())),
                        capacity,
                        Optional.of(
                                new ProxyTiming(KubeletTiming.parse(minSyncPeriod), KubeletTiming.parse(syncDuration))))
                .newKubelet();
    }

    /** What the log processor injects, a {@code Core<Object>}: the Kubelet bean is a {@code Core<CompositeState>}. */
    @Produces
    @Singleton
    @SuppressWarnings("rawtypes")
    Core core(Kubelet kubelet) {
        return kubelet;
    }

    @Produces
    @Singleton
    PodWorkers podWorkers(Kubelet kubelet) {
        return kubelet.podWorkers();
    }
}
