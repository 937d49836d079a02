package io.podfall.controller.replicaset;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;

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

    private ActivePods() {
    }

    /**
     * A pod counts toward its ReplicaSet unless it finished or is being deleted: a terminating pod is replaced at
     * once, while it still runs out its grace period.
     */
    public static boolean isActive(Pod pod) {
        String phase = phase(pod);
        return !"Succeeded".equals(phase) && !"Failed".equals(phase) && pod.getMetadata().getDeletionTimestamp() == null;
    }

    /** Its Ready condition is True (the kubelet writes it once every container runs). */
    public static boolean isReady(Pod pod) {
        return readyCondition(pod).isPresent();
    }

    /** Ready for longer than {@code minReadySeconds} (strictly, as upstream), or ready at all when that is 0. */
    public static boolean isAvailable(Pod pod, int minReadySeconds, Instant now) {
        if (!isReady(pod)) {
            return false;
        }
        return minReadySeconds == 0 || availableAfter(pod, minReadySeconds).map(at -> at.isBefore(now)).orElse(false);
    }

    /** The instant after which a ready pod counts as available; empty if it is not ready or never says since when. */
    public static Optional<Instant> availableAfter(Pod pod, int minReadySeconds) {
        return readyCondition(pod).map(c -> MetaTimes.parse(c.getLastTransitionTime()))
                .map(since -> since.plusSeconds(minReadySeconds));
    }

    /**
     * The order in which surplus pods are deleted ({@code ActivePodsWithRanks.Less}): unassigned before assigned;
     * Pending before Unknown before Running; not ready before ready; lower pod-deletion-cost first; higher rank
     * first (the rank counts the related pods on the pod's node, so doubled-up nodes lose one first); among ready
     * pods, ready for less time first; more container restarts first; newer first. Times compare on a logarithmic
     * scale from {@code now} ({@code LogarithmicScaleDown}): pods of about the same age count as equal. Where
     * upstream leaves a tie, the uid decides, so the order is total and the same in every run.
     *
     * @param ranks the rank of each pod, by uid
     */
    public static Comparator<Pod> deletionOrder(Map<String, Integer> ranks, Instant now) {
        return Comparator.<Pod>comparingInt(p -> isAssigned(p) ? 1 : 0)
                .thenComparingInt(p -> PHASE_ORDINAL.getOrDefault(Objects.requireNonNullElse(phase(p), ""), 0))
                .thenComparingInt(p -> isReady(p) ? 1 : 0)
                .thenComparingInt(ActivePods::deletionCost)
                .thenComparing(p -> ranks.getOrDefault(p.getMetadata().getUid(), 0), Comparator.reverseOrder())
                .thenComparingLong(p -> isReady(p) ? age(readyCondition(p).map(PodCondition::getLastTransitionTime).orElse(null), now) : 0)
                .thenComparing(ActivePods::maxContainerRestarts, Comparator.reverseOrder())
                .thenComparingLong(p -> age(p.getMetadata().getCreationTimestamp(), now))
                .thenComparing(p -> p.getMetadata().getUid());
    }

    /**
     * How old a timestamp is, as {@code logarithmicRankDiff} ranks it: the zero time first ({@code afterOrZero}),
     * then the floor of log2 of the age in nanoseconds (-1 for a time not in the past).
     */
    private static long age(String time, Instant now) {
        Instant t = MetaTimes.parse(time);
        if (t == null) {
            return Long.MIN_VALUE;
        }
        long nanos = Duration.between(t, now).toNanos();
        return nanos > 0 ? 63 - Long.numberOfLeadingZeros(nanos) : -1;
    }

    private static boolean isAssigned(Pod pod) {
        return pod.getSpec() != null && pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().isEmpty();
    }

    private static int deletionCost(Pod pod) {
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        String cost = annotations == null ? null : annotations.get(POD_DELETION_COST);
        try {
            return cost == null ? 0 : Integer.parseInt(cost);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static int maxContainerRestarts(Pod pod) {
        return pod.getStatus() == null ? 0 : pod.getStatus().getContainerStatuses().stream()
                .map(ContainerStatus::getRestartCount).filter(Objects::nonNull).mapToInt(Integer::intValue)
                .max().orElse(0);
    }

    private static Optional<PodCondition> readyCondition(Pod pod) {
        return pod.getStatus() == null ? Optional.empty() : pod.getStatus().getConditions().stream()
                .filter(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus())).findFirst();
    }

    private static String phase(Pod pod) {
        return pod.getStatus() == null ? null : pod.getStatus().getPhase();
    }
}
