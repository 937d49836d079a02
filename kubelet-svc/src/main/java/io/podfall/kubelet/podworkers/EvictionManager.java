package io.podfall.kubelet.podworkers;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.podfall.model.core.Effects;
import io.podfall.model.event.EventTypes;
import io.podfall.model.kubelet.PodEviction;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;

/**
 * The kubelet's eviction manager (pkg/kubelet/eviction/eviction_manager.go), as far as podfall can drive it. podfall
 * has no resource usage figures, so pressure is declared: a Node annotated {@value #PRESSURE_ANNOTATION} with a
 * resource ({@code memory}, {@code ephemeral-storage} or {@code pid}) is under pressure of that resource until the
 * annotation goes. Under pressure the manager evicts one pod of the node at once and one more every
 * {@link #MONITORING_INTERVAL} while the pressure lasts (synchronize, timer {@link PodWorkerTimer.Eviction}), as a soft
 * eviction does: with the grace period override {@code --eviction-max-pod-grace-period}, never more than the pod's own
 * since 1.32 (feature gate AllowOverwriteTerminationGracePeriodSeconds off by default).
 *
 * <p>It records the choice ({@code kubelet.PodEvicted}) and kills the pod through its worker with the eviction's grace
 * period override, which calculateEffectiveGracePeriod takes like the API server's, and a status function
 * ({@link KillPodOptions}) that the worker applies as the termination starts: the status says Failed, reason Evicted,
 * with the DisruptionTarget condition from then on, and so does the final one; the pod was not marked for deletion, so
 * the status manager does not delete it (canBeDeleted): it stays Failed until someone deletes it.
 *
 * <p>Ranking: upstream ranks pods whose usage exceeds their requests first, then by priority, then by usage. With no
 * usage figures the ranking here is by priority (lowest first), then newest first (creationTimestamp), then by name so
 * that it is deterministic. Critical pods (priority at least system-cluster-critical's) are never evicted
 * ({@code kubelettypes.IsCriticalPod}). Only pods that run or should run are candidates: a pod already terminating is
 * not active any more (kubelet_pods.go filterOutInactivePods).
 *
 * <p>The node status ({@code io.podfall.kubelet.nodestatus}) reports the same pressure as the node's MemoryPressure,
 * DiskPressure or PIDPressure condition, from {@link #pressure}.
 */
public final class EvictionManager {
    /** The annotation of a Node that declares the resource it is low on. */
    public static final String PRESSURE_ANNOTATION = "podfall.io/pressure";
    /** pkg/kubelet/kubelet.go evictionMonitoringPeriod: how often synchronize runs. */
    static final Duration MONITORING_INTERVAL = Duration.ofSeconds(10);
    /** The default of {@code podfall.kubelet.eviction-max-pod-grace-period} (seconds). */
    public static final long DEFAULT_MAX_POD_GRACE_PERIOD_SECONDS = 30;
    /** pkg/apis/scheduling SystemCriticalPriority: a pod of this priority or more is critical. */
    static final int SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;
    /** The eviction signal of each resource (pkg/kubelet/eviction/api/types.go). */
    private static final Map<String, String> SIGNALS =
            Map.of("memory", "memory.available", "ephemeral-storage", "nodefs.available", "pid", "pid.available");

    private final long maxPodGracePeriodSeconds;
    private final Termination termination;

    /**
     * @param maxPodGracePeriodSeconds {@code podfall.kubelet.eviction-max-pod-grace-period}, upstream's
     *     {@code --eviction-max-pod-grace-period}
     */
    EvictionManager(long maxPodGracePeriodSeconds, Termination termination) {
        this.maxPodGracePeriodSeconds = maxPodGracePeriodSeconds;
        this.termination = termination;
    }

    /** A Node of this kubelet was stored: its pressure annotation starts the cycles, at once, or ends them. */
    void nodeChanged(PodWorkersState state, Node node, Instant at, Effects.Builder out) {
        String name = node.getMetadata().getName();
        Optional<String> pressure = pressure(node);
        if (pressure.equals(Optional.ofNullable(state.pressure.get(name)))) {
            return;
        }
        if (pressure.isEmpty()) {
            state.pressure.remove(name);
            out.cancelTimer(new PodWorkerTimer.Eviction(name));
        } else {
            state.pressure.put(name, pressure.get());
            synchronize(state, name, at, out);
        }
    }

    /**
     * One cycle (synchronize): while the node is under pressure, evict one pod, and look again one monitoring interval
     * later.
     */
    void synchronize(PodWorkersState state, String node, Instant at, Effects.Builder out) {
        String resource = state.pressure.get(node);
        if (resource == null) {
            return;
        }
        podToEvict(state.workers.values(), node).ifPresent(w -> evictPod(state, w, resource, at, out));
        out.timer(new PodWorkerTimer.Eviction(node), at.plus(MONITORING_INTERVAL));
    }

    /**
     * evictPod: the pod's worker kills it with the eviction's grace period override and a PodStatusFunc that makes it
     * Failed, reason Evicted (killPodNow with KillPodOptions{Evict: true}); the status is written as the termination
     * starts (syncTerminatingPod), not only at its end.
     */
    private void evictPod(PodWorkersState state, PodWorker w, String resource, Instant at, Effects.Builder out) {
        long override = gracePeriodOverride(w.pod(), maxPodGracePeriodSeconds);
        String message = message(resource);
        w.status.evicted = true;
        out.emit(
                w.source(),
                EventTypes.POD_EVICTED,
                w.subject(),
                new PodEviction(w.node, w.uid, w.namespace(), w.name(), signal(resource), resource, override, message));
        w.status.terminatingAt = at;
        termination.kill(
                state,
                w,
                true,
                new KillPodOptions(override, status -> PodStatuses.evicted(status, message, at)),
                at,
                out);
    }

    /**
     * The resource the node is low on, if its annotation names one this manager knows: what the node status reports as
     * its pressure conditions (setters.go asks the eviction manager IsUnderMemoryPressure, ...).
     */
    public static Optional<String> pressure(Node node) {
        Map<String, String> annotations = node.getMetadata().getAnnotations();
        String resource = annotations == null ? null : annotations.get(PRESSURE_ANNOTATION);
        return resource != null && SIGNALS.containsKey(resource) ? Optional.of(resource) : Optional.empty();
    }

    private static String signal(String resource) {
        return SIGNALS.get(resource);
    }

    /** eviction_manager.go nodeLowMessageFmt, without the threshold and usage podfall has no figures for. */
    private static String message(String resource) {
        return "The node was low on resource: " + resource + ".";
    }

    /** The pod to evict next on the node: the first of the active, non-critical pods by the ranking above. */
    private static Optional<PodWorker> podToEvict(Collection<PodWorker> workers, String node) {
        return workers.stream()
                .filter(w -> w.node.equals(node) && !w.runtimeOnly && !w.orphan && !w.status.isTerminationRequested())
                .filter(w -> priority(w.pod()) < SYSTEM_CRITICAL_PRIORITY)
                .min(Comparator.comparingInt((PodWorker w) -> priority(w.pod()))
                        .thenComparing((PodWorker w) -> created(w.pod()), Comparator.reverseOrder())
                        .thenComparing(PodWorker::namespace)
                        .thenComparing(PodWorker::name));
    }

    /**
     * The grace period override of a soft eviction: {@code maxPodGracePeriodSeconds}, or the pod's own
     * terminationGracePeriodSeconds when that is shorter.
     */
    private static long gracePeriodOverride(Pod pod, long maxPodGracePeriodSeconds) {
        Long spec = pod.getSpec().getTerminationGracePeriodSeconds();
        return spec == null ? maxPodGracePeriodSeconds : Math.min(maxPodGracePeriodSeconds, spec);
    }

    private static int priority(Pod pod) {
        Integer priority = pod.getSpec().getPriority();
        return priority == null ? 0 : priority;
    }

    private static Instant created(Pod pod) {
        String t = pod.getMetadata().getCreationTimestamp();
        return t == null ? Instant.EPOCH : Instant.parse(t);
    }
}
