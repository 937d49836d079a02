package io.podfall.replay;

import io.fabric8.kubernetes.api.model.Quantity;
import io.podfall.kubelet.nodestatus.NodeCapacity;
import io.podfall.kubelet.podworkers.Compat;
import io.podfall.kubelet.podworkers.KubeletTiming;
import io.podfall.kubelet.proxy.ProxyTiming;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The settings a what-if replay changes, for every kubelet, whatever the recording implies: the services' own
 * configuration keys (docs/configuration.md, read by kubelet-svc's KubeletProducer). Only settings of the cores the
 * engine runs can change; the others (the broker, the topic, the time scale) mean nothing in process. A null is a
 * setting left as the recording implies. {@code pods}: the recorded clients' inputs rewritten ({@link PodRewrite}).
 */
public record Settings(
        Boolean shortenedGraceKillsAgain,
        Boolean forceDeleteUsesSpecGrace,
        Long evictionMaxPodGracePeriod,
        Duration plegRelistPeriod,
        Duration containerGcPeriod,
        Map<String, Quantity> nodeCapacity,
        Duration proxyMinSyncPeriod,
        Duration proxySyncDuration,
        PodRewrite pods) {
    public static final Settings NONE = new Settings(null, null, null, null, null, null, null, null, PodRewrite.NONE);
    public static final String SHORTENED_GRACE_KILLS_AGAIN =
            "podfall.kubelet.compat." + Compat.SHORTENED_GRACE_KILLS_AGAIN;
    /** The switch's old name, the other way round: {@code true} is the release's default, {@code false} the fix. */
    private static final String SHORTENED_GRACE_IGNORED = "podfall.kubelet.compat." + Compat.SHORTENED_GRACE_IGNORED;

    public static final String FORCE_DELETE_USES_SPEC_GRACE =
            "podfall.kubelet.compat." + Compat.FORCE_DELETE_USES_SPEC_GRACE;
    public static final String EVICTION_MAX_POD_GRACE_PERIOD = "podfall.kubelet.eviction-max-pod-grace-period";
    public static final String TIMING = "podfall.kubelet.timing";
    public static final String PLEG_RELIST_PERIOD = "podfall.kubelet.pleg-relist-period";
    public static final String CONTAINER_GC_PERIOD = "podfall.kubelet.container-gc-period";
    /** Laid over what every node registered with: {@code cpu=1,memory=2Gi} changes those two, keeps the pods. */
    public static final String NODE_CAPACITY = "podfall.kubelet.node-capacity";
    /** The kube-proxies' timing (kubelet-svc ProxyTiming); set on a recording without proxies, it runs them. */
    public static final String PROXY_MIN_SYNC_PERIOD = "podfall.proxy.min-sync-period";

    public static final String PROXY_SYNC_DURATION = "podfall.proxy.sync-duration";

    private static final List<String> KEYS = List.of(
            SHORTENED_GRACE_KILLS_AGAIN,
            FORCE_DELETE_USES_SPEC_GRACE,
            EVICTION_MAX_POD_GRACE_PERIOD,
            TIMING,
            PLEG_RELIST_PERIOD,
            CONTAINER_GC_PERIOD,
            NODE_CAPACITY,
            PROXY_MIN_SYNC_PERIOD,
            PROXY_SYNC_DURATION,
            PodRewrite.PRESTOP_SLEEP_SECONDS,
            PodRewrite.DRAIN_SECONDS);
    /** What a key may go without: the issue writes {@code kubelet.compat.<switch>}. */
    private static final String PREFIX = "podfall.";

    /**
     * Reads {@code KEY=VALUE} assignments, a later one of a key winning; a key is a configuration key, or the same
     * without {@code podfall.} ({@code kubelet.compat.shortened-grace-kills-again}). The switch's old name,
     * {@code shortened-grace-ignored}, is still read, with its old meaning.
     *
     * @throws IllegalArgumentException naming the assignment and what it could be, when a key is unknown or a value is
     *     not one its key takes
     */
    public static Settings parse(List<String> assignments) {
        Settings s = NONE;
        for (String a : assignments) {
            int eq = a.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("not KEY=VALUE: " + a);
            }
            String given = a.substring(0, eq).trim();
            String key = given.startsWith(PREFIX) ? given : PREFIX + given;
            String value = a.substring(eq + 1).trim();
            s = switch (key) {
                case SHORTENED_GRACE_KILLS_AGAIN -> s.withCompat(bool(key, value), s.forceDeleteUsesSpecGrace);
                case SHORTENED_GRACE_IGNORED -> s.withCompat(!bool(key, value), s.forceDeleteUsesSpecGrace);
                case FORCE_DELETE_USES_SPEC_GRACE -> s.withCompat(s.shortenedGraceKillsAgain, bool(key, value));
                case EVICTION_MAX_POD_GRACE_PERIOD ->
                    new Settings(
                            s.shortenedGraceKillsAgain,
                            s.forceDeleteUsesSpecGrace,
                            seconds(key, value),
                            s.plegRelistPeriod,
                            s.containerGcPeriod,
                            s.nodeCapacity,
                            s.proxyMinSyncPeriod,
                            s.proxySyncDuration,
                            s.pods);
                case TIMING -> {
                    KubeletTiming t = timing(key, value);
                    yield s.withPeriods(t.plegRelistPeriod(), t.containerGcPeriod());
                }
                case PLEG_RELIST_PERIOD -> s.withPeriods(duration(key, value), s.containerGcPeriod);
                case CONTAINER_GC_PERIOD -> s.withPeriods(s.plegRelistPeriod, duration(key, value));
                case NODE_CAPACITY ->
                    new Settings(
                            s.shortenedGraceKillsAgain,
                            s.forceDeleteUsesSpecGrace,
                            s.evictionMaxPodGracePeriod,
                            s.plegRelistPeriod,
                            s.containerGcPeriod,
                            capacity(key, value),
                            s.proxyMinSyncPeriod,
                            s.proxySyncDuration,
                            s.pods);
                case PROXY_MIN_SYNC_PERIOD -> s.withProxy(duration(key, value), s.proxySyncDuration);
                case PROXY_SYNC_DURATION -> s.withProxy(s.proxyMinSyncPeriod, duration(key, value));
                case PodRewrite.PRESTOP_SLEEP_SECONDS -> s.withPods(s.pods.withPreStopSleep(seconds(key, value)));
                case PodRewrite.DRAIN_SECONDS -> s.withPods(s.pods.withDrain(seconds(key, value)));
                default ->
                    throw new IllegalArgumentException(
                            "unknown setting " + given + "; a replay can set " + String.join(", ", KEYS));
            };
        }
        return s;
    }

    private Settings withCompat(Boolean killsAgain, Boolean forceDeleteSpecGrace) {
        return new Settings(
                killsAgain,
                forceDeleteSpecGrace,
                evictionMaxPodGracePeriod,
                plegRelistPeriod,
                containerGcPeriod,
                nodeCapacity,
                proxyMinSyncPeriod,
                proxySyncDuration,
                pods);
    }

    /** These settings with the recorded clients' pods rewritten as {@code rewrite} says. */
    Settings withPods(PodRewrite rewrite) {
        return new Settings(
                shortenedGraceKillsAgain,
                forceDeleteUsesSpecGrace,
                evictionMaxPodGracePeriod,
                plegRelistPeriod,
                containerGcPeriod,
                nodeCapacity,
                proxyMinSyncPeriod,
                proxySyncDuration,
                rewrite);
    }

    /** These settings with the kubelet's periods; a null one stays as the recording implies. */
    private Settings withPeriods(Duration plegRelist, Duration containerGc) {
        return new Settings(
                shortenedGraceKillsAgain,
                forceDeleteUsesSpecGrace,
                evictionMaxPodGracePeriod,
                plegRelist,
                containerGc,
                nodeCapacity,
                proxyMinSyncPeriod,
                proxySyncDuration,
                pods);
    }

    /** These settings with the kube-proxies' timing; a null one stays as the recording implies. */
    private Settings withProxy(Duration minSyncPeriod, Duration syncDuration) {
        return new Settings(
                shortenedGraceKillsAgain,
                forceDeleteUsesSpecGrace,
                evictionMaxPodGracePeriod,
                plegRelistPeriod,
                containerGcPeriod,
                nodeCapacity,
                minSyncPeriod,
                syncDuration,
                pods);
    }

    /** A kubelet's settings with these set. */
    public Engine.KubeletSettings applied(Engine.KubeletSettings kubelet) {
        Compat c = kubelet.compat();
        KubeletTiming t = kubelet.timing();
        return new Engine.KubeletSettings(
                kubelet.nodes(),
                new Compat(
                        shortenedGraceKillsAgain != null ? shortenedGraceKillsAgain : c.shortenedGraceKillsAgain(),
                        forceDeleteUsesSpecGrace != null ? forceDeleteUsesSpecGrace : c.forceDeleteUsesSpecGrace()),
                evictionMaxPodGracePeriod != null
                        ? OptionalLong.of(evictionMaxPodGracePeriod)
                        : kubelet.evictionMaxPodGracePeriod(),
                new KubeletTiming(
                        plegRelistPeriod != null ? plegRelistPeriod : t.plegRelistPeriod(),
                        containerGcPeriod != null ? containerGcPeriod : t.containerGcPeriod()),
                capacity(kubelet),
                proxy(kubelet));
    }

    /** The kubelet's kube-proxies with what is set laid over them (over upstream's, if it ran none). */
    private Optional<ProxyTiming> proxy(Engine.KubeletSettings kubelet) {
        if (proxyMinSyncPeriod == null && proxySyncDuration == null) {
            return kubelet.proxy();
        }
        ProxyTiming p = kubelet.proxy().orElse(ProxyTiming.UPSTREAM);
        return Optional.of(new ProxyTiming(
                proxyMinSyncPeriod != null ? proxyMinSyncPeriod : p.minSyncPeriod(),
                proxySyncDuration != null ? proxySyncDuration : p.syncDuration()));
    }

    /** Every node of the kubelet with {@link #nodeCapacity} laid over what it has. */
    private NodeCapacity capacity(Engine.KubeletSettings kubelet) {
        NodeCapacity capacity = kubelet.capacity();
        if (nodeCapacity == null) {
            return capacity;
        }
        NodeCapacity changed = capacity;
        for (String node : kubelet.nodes()) {
            Map<String, Quantity> resources = new TreeMap<>(capacity.of(node));
            resources.putAll(nodeCapacity);
            changed = changed.with(node, resources);
        }
        return changed;
    }

    public boolean isEmpty() {
        return equals(NONE);
    }

    /** {@code podfall.kubelet.compat.shortened-grace-kills-again=true, …}: what is set, in the order of the keys. */
    @Override
    public String toString() {
        List<String> set = new ArrayList<>();
        List<Object> values = java.util.Arrays.asList(
                shortenedGraceKillsAgain,
                forceDeleteUsesSpecGrace,
                evictionMaxPodGracePeriod,
                null,
                plegRelistPeriod == null ? null : KubeletTiming.format(plegRelistPeriod),
                containerGcPeriod == null ? null : KubeletTiming.format(containerGcPeriod),
                nodeCapacity == null ? null : NodeCapacity.format(nodeCapacity),
                proxyMinSyncPeriod == null ? null : KubeletTiming.format(proxyMinSyncPeriod),
                proxySyncDuration == null ? null : KubeletTiming.format(proxySyncDuration),
                pods.preStopSleepSeconds(),
                pods.drainSeconds());
        for (int i = 0; i < KEYS.size(); i++) {
            if (values.get(i) != null) {
                set.add(KEYS.get(i) + "=" + values.get(i));
            }
        }
        return String.join(", ", set);
    }

    private static boolean bool(String key, String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw bad(key, v, "true or false");
        };
    }

    private static long seconds(String key, String v) {
        try {
            long s = Long.parseLong(v);
            if (s >= 0) {
                return s;
            }
        } catch (NumberFormatException e) {
            // named below
        }
        throw bad(key, v, "whole seconds, 0 or more");
    }

    private static KubeletTiming timing(String key, String v) {
        try {
            return KubeletTiming.profile(v);
        } catch (IllegalArgumentException e) {
            throw bad(key, v, "upstream or fast");
        }
    }

    private static Duration duration(String key, String v) {
        try {
            return KubeletTiming.parse(v);
        } catch (IllegalArgumentException e) {
            throw bad(key, v, "a duration: 500ms, 1s, 1m0s");
        }
    }

    private static Map<String, Quantity> capacity(String key, String v) {
        try {
            return NodeCapacity.parse(v);
        } catch (IllegalArgumentException e) {
            throw bad(key, v, "resources and quantities: cpu=1,memory=2Gi,pods=110");
        }
    }

    private static IllegalArgumentException bad(String key, String value, String expected) {
        return new IllegalArgumentException("bad value for " + key + ": '" + value + "' (" + expected + ")");
    }
}
