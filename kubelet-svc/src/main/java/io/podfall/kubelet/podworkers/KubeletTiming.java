package io.podfall.kubelet.podworkers;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The kubelet's own waits, in simulated time: what makes a released kubelet's deletion take a second or two where a
 * kubelet that reacts to every fact at once takes milliseconds.
 *
 * <ul>
 *   <li>The PLEG relists the runtime every {@code plegRelistPeriod} (pkg/kubelet/kubelet.go genericPlegRelistPeriod, 1
 *       s; pkg/kubelet/pleg/generic.go). A container that started or exited by itself is seen at the next relist, and a
 *       pod worker waits for a pod cache newer than its last sync before it syncs again (pkg/kubelet/pod_workers.go
 *       podWorkerLoop: {@code podCache.GetNewerThan(uid, lastSyncTime)}, "this adds ~1s of latency on all transitions
 *       from sync to terminating to terminated"). The cache is stamped at each relist.
 *   <li>The container garbage collector runs every {@code containerGcPeriod} (pkg/kubelet/kubelet.go ContainerGCPeriod,
 *       1 min; pkg/kubelet/kuberuntime/kuberuntime_gc.go): the dead sandbox of a deleted pod is removed then.
 * </ul>
 *
 * <p>Upstream's ticks start when the kubelet does; here each node's ticks fall on a fixed grid, its phase derived from
 * the node's name, so a live run and its replay agree on every instant. A period of zero is no wait at all (the
 * {@link #FAST} profile, for benchmarks). The status manager adds no wait: it sends each new status at once
 * (status_manager.go, podStatusChannel; its 10 s syncPeriod only retries and reconciles).
 *
 * @param plegRelistPeriod {@code podfall.kubelet.pleg-relist-period}
 * @param containerGcPeriod {@code podfall.kubelet.container-gc-period}
 */
public record KubeletTiming(Duration plegRelistPeriod, Duration containerGcPeriod) {
    /** What a released kubelet does. */
    public static final KubeletTiming UPSTREAM = new KubeletTiming(Duration.ofSeconds(1), Duration.ofMinutes(1));
    /** No wait anywhere: every fact is acted on when it is read, as podfall did before it modelled these waits. */
    public static final KubeletTiming FAST = new KubeletTiming(Duration.ZERO, Duration.ZERO);
    /**
     * The Node annotation a kubelet registers its nodes with, so that a replay runs the recording's kubelet with its
     * waits: {@code pleg-relist-period=1s,container-gc-period=1m0s}.
     */
    public static final String ANNOTATION = "podfall.io/kubelet-timing";

    private static final String PLEG_RELIST_PERIOD = "pleg-relist-period";
    private static final String CONTAINER_GC_PERIOD = "container-gc-period";

    public KubeletTiming {
        if (plegRelistPeriod.isNegative() || containerGcPeriod.isNegative()) {
            throw new IllegalArgumentException("a period cannot be negative");
        }
    }

    /** The profile a name ({@code podfall.kubelet.timing}) stands for: {@code upstream} or {@code fast}. */
    public static KubeletTiming profile(String name) {
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "upstream" -> UPSTREAM;
            case "fast" -> FAST;
            default -> throw new IllegalArgumentException("unknown timing '" + name + "' (upstream or fast)");
        };
    }

    /** The first relist of {@code node}'s PLEG after {@code t}; {@code t} itself when there is no wait. */
    Instant nextRelist(String node, Instant t) {
        return next(plegRelistPeriod, node, t);
    }

    /**
     * When a pod worker whose last sync ended at {@code lastSync} (null: none yet) may sync again, asked at {@code at}:
     * at once if the cache was stamped since, else at the next relist.
     */
    Instant syncAllowed(String node, Instant lastSync, Instant at) {
        if (lastSync == null) {
            return at;
        }
        Instant relist = nextRelist(node, lastSync);
        return relist.isAfter(at) ? relist : at;
    }

    /** The first run of {@code node}'s container garbage collector after {@code t}. */
    Instant nextContainerGc(String node, Instant t) {
        return next(containerGcPeriod, node, t);
    }

    /**
     * The first tick after {@code t} of a grid of ticks {@code period} apart whose phase is derived from {@code key} (a
     * node's name, a probe's timer): every period of the kubelet's own, deterministic live and in a replay. {@code t}
     * itself for a period of zero.
     */
    static Instant next(Duration period, String key, Instant t) {
        if (period.isZero()) {
            return t;
        }
        long p = period.toNanos();
        long phase = Math.floorMod(key.hashCode() * 0x9E3779B97F4A7C15L, p);
        long nanos = t.getEpochSecond() * 1_000_000_000L + t.getNano();
        long tick = (Math.floorDiv(nanos - phase, p) + 1) * p + phase;
        return Instant.ofEpochSecond(0, tick);
    }

    /** The annotation's value: {@code pleg-relist-period=1s,container-gc-period=1m0s}. */
    public String annotation() {
        return PLEG_RELIST_PERIOD + "=" + format(plegRelistPeriod) + "," + CONTAINER_GC_PERIOD + "="
                + format(containerGcPeriod);
    }

    /**
     * The timing an annotation names; a period it does not name is {@link #FAST}'s, as a kubelet from before these
     * waits had none.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static KubeletTiming ofAnnotation(String value) {
        Map<String, Duration> d = durations(value);
        return new KubeletTiming(
                d.getOrDefault(PLEG_RELIST_PERIOD, FAST.plegRelistPeriod),
                d.getOrDefault(CONTAINER_GC_PERIOD, FAST.containerGcPeriod));
    }

    /**
     * The durations an annotation of waits names ({@code key=duration,…}), a later one of a key winning; a key it does
     * not know is for its reader to ignore.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static Map<String, Duration> durations(String value) {
        Map<String, Duration> durations = new HashMap<>();
        for (String part : value.split(",")) {
            int eq = part.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("not KEY=DURATION: " + part);
            }
            durations.put(part.substring(0, eq).trim(), parse(part.substring(eq + 1)));
        }
        return durations;
    }

    /** A duration as Go prints one: {@code 0s}, {@code 500ms}, {@code 1s}, {@code 1m0s}, {@code 1m30s}. */
    public static String format(Duration d) {
        if (d.toMillis() < 1000 && !d.isZero()) {
            return d.toMillis() + "ms";
        }
        long minutes = d.toMinutes();
        String seconds = d.toMillisPart() == 0
                ? Long.toString(d.toSecondsPart())
                : String.format(Locale.ROOT, "%.3f", d.toSecondsPart() + d.toMillisPart() / 1000.0);
        return minutes > 0 ? minutes + "m" + seconds + "s" : seconds + "s";
    }

    /**
     * A duration as the settings and the annotation write one: {@code 500ms}, {@code 1s}, {@code 1.5s}, {@code 2m},
     * {@code 1m0s}; a bare number is seconds.
     *
     * @throws IllegalArgumentException if it is none of these, or negative
     */
    public static Duration parse(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        try {
            Duration d;
            if (s.endsWith("ms")) {
                d = Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
            } else if (s.matches("\\d+m(\\d+(\\.\\d+)?s)?")) {
                int m = s.indexOf('m');
                d = Duration.ofMinutes(Long.parseLong(s.substring(0, m)));
                if (m + 1 < s.length()) {
                    d = d.plus(seconds(s.substring(m + 1, s.length() - 1)));
                }
            } else {
                d = seconds(s.endsWith("s") ? s.substring(0, s.length() - 1) : s);
            }
            if (!d.isNegative()) {
                return d;
            }
        } catch (NumberFormatException | ArithmeticException e) {
            // named below
        }
        throw new IllegalArgumentException("not a duration: '" + text + "' (e.g. 500ms, 1s, 1m0s)");
    }

    private static Duration seconds(String s) {
        return Duration.ofMillis(new java.math.BigDecimal(s).movePointRight(3).longValueExact());
    }
}
