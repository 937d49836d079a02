package io.podfall.kubelet.proxy;

import io.podfall.kubelet.podworkers.KubeletTiming;
import java.time.Duration;
import java.util.Map;

/**
 * How often a node's kube-proxy syncs its rules, and how long a sync takes, in simulated time.
 *
 * <ul>
 *   <li>{@code minSyncPeriod}: upstream's {@code --iptables-min-sync-period} (1 s by default): the least time between
 *       the end of a sync and the start of the next, but for a burst of {@value #BURST_SYNCS} syncs
 *       ({@link BoundedFrequencyRunner}).
 *   <li>{@code syncDuration}: how long a sync takes (an iptables-restore: 100 ms on a small cluster; set it to your
 *       {@code kubeproxy_sync_proxy_rules_duration_seconds}). The rules take effect when the sync ends.
 * </ul>
 *
 * @param minSyncPeriod {@code podfall.proxy.min-sync-period}
 * @param syncDuration {@code podfall.proxy.sync-duration}
 */
public record ProxyTiming(Duration minSyncPeriod, Duration syncDuration) {
    /** What a released kube-proxy does on a small cluster. */
    public static final ProxyTiming UPSTREAM = new ProxyTiming(Duration.ofSeconds(1), Duration.ofMillis(100));
    /** pkg/proxy/iptables/proxier.go NewProxier: {@code burstSyncs := 2}. */
    public static final int BURST_SYNCS = 2;
    /**
     * The Node annotation a kubelet registers its nodes with, so that a replay runs the recording's proxies with their
     * timing: {@code min-sync-period=1s,sync-duration=100ms}. A Node without it was registered by a kubelet from before
     * podfall mirrored kube-proxy: its replay runs no proxy.
     */
    public static final String ANNOTATION = "podfall.io/proxy-timing";

    private static final String MIN_SYNC_PERIOD = "min-sync-period";
    private static final String SYNC_DURATION = "sync-duration";

    public ProxyTiming {
        if (minSyncPeriod.isNegative() || syncDuration.isNegative()) {
            throw new IllegalArgumentException("a proxy period cannot be negative");
        }
    }

    /** The annotation's value: {@code min-sync-period=1s,sync-duration=100ms}. */
    public String annotation() {
        return MIN_SYNC_PERIOD + "=" + KubeletTiming.format(minSyncPeriod) + "," + SYNC_DURATION + "="
                + KubeletTiming.format(syncDuration);
    }

    /**
     * The timing an annotation names; what it does not name is {@link #UPSTREAM}'s.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static ProxyTiming ofAnnotation(String value) {
        Map<String, Duration> d = KubeletTiming.durations(value);
        return new ProxyTiming(
                d.getOrDefault(MIN_SYNC_PERIOD, UPSTREAM.minSyncPeriod),
                d.getOrDefault(SYNC_DURATION, UPSTREAM.syncDuration));
    }
}
