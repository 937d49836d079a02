package io.podfall.controller;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Which pods count, and which go first: {@code FilterActivePods}, {@code IsPodActive} and {@code ActivePodsWithRanks}
 * of {@code pkg/controller/controller_utils.go}, {@code IsPodReady} and {@code IsPodAvailable} of
 * {@code pkg/api/v1/pod/util.go}.
 */
public final class ActivePods {
    /** Annotation whose lower value is deleted first ({@code core.PodDeletionCost}). */
    public static final String POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost";

    private static final Map<String, Integer> PHASE_ORDINAL = Map.of("Pending", 0, "Unknown", 1, "Running", 2);

    private ActivePods() {}

    /**
     * A pod counts toward its ReplicaSet unless it finished or is being deleted: a terminating pod is replaced at once,
     * while it still runs out its grace period.
     */
    public static boolean isActive(CachedPod pod) {
        return !"Succeeded".equals(pod.phase()) && !"Failed".equals(pod.phase()) && !pod.terminating();
    }

    /** Its Ready condition is True (the kubelet writes it once every container runs). */
    public static boolean isReady(CachedPod pod) {
        return pod.ready();
    }

    /** Ready for longer than {@code minReadySeconds} (strictly, as upstream), or ready at all when that is 0. */
    public static boolean isAvailable(CachedPod pod, int minReadySeconds, Instant now) {
        if (!isReady(pod)) {
            return false;
        }
        return minReadySeconds == 0
                || availableAfter(pod, minReadySeconds)
                        .map(at -> at.isBefore(now))
                        .orElse(false);
    }

    /** The instant after which a ready pod counts as available; empty if it is not ready or never says since when. */
    public static Optional<Instant> availableAfter(CachedPod pod, int minReadySeconds) {
        return pod.ready()
                ? Optional.ofNullable(pod.readySince()).map(since -> since.plusSeconds(minReadySeconds))
                : Optional.empty();
    }

    /**
     * The order in which surplus pods are deleted ({@code ActivePodsWithRanks.Less}): unassigned before assigned;
     * Pending before Unknown before Running; not ready before ready; lower pod-deletion-cost first; higher rank first
     * (the rank counts the related pods on the pod's node, so doubled-up nodes lose one first); among ready pods, ready
     * for less time first; more container restarts first; newer first. Times compare on a logarithmic scale from
     * {@code now} ({@code LogarithmicScaleDown}): pods of about the same age count as equal. Where upstream leaves a
     * tie, the uid decides, so the order is total and the same in every run.
     *
     * @param ranks the rank of each pod, by uid
     */
    public static Comparator<CachedPod> deletionOrder(Map<String, Integer> ranks, Instant now) {
        return Comparator.<CachedPod>comparingInt(p -> p.nodeName().isEmpty() ? 0 : 1)
                .thenComparingInt(p -> PHASE_ORDINAL.getOrDefault(Objects.requireNonNullElse(p.phase(), ""), 0))
                .thenComparingInt(p -> p.ready() ? 1 : 0)
                .thenComparingInt(CachedPod::deletionCost)
                .thenComparing(p -> ranks.getOrDefault(p.uid(), 0), Comparator.reverseOrder())
                .thenComparingLong(p -> p.ready() ? age(p.readySince(), now) : 0)
                .thenComparing(CachedPod::restarts, Comparator.reverseOrder())
                .thenComparingLong(p -> age(p.created(), now))
                .thenComparing(CachedPod::uid);
    }

    /**
     * How old a time is, as {@code logarithmicRankDiff} ranks it: the zero time first ({@code afterOrZero}), then the
     * floor of log2 of the age in nanoseconds (-1 for a time not in the past).
     */
    private static long age(Instant t, Instant now) {
        if (t == null) {
            return Long.MIN_VALUE;
        }
        long nanos = Duration.between(t, now).toNanos();
        return nanos > 0 ? 63 - Long.numberOfLeadingZeros(nanos) : -1;
    }
}
