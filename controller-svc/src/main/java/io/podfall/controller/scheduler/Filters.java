package io.podfall.controller.scheduler;

import io.fabric8.kubernetes.api.model.Taint;
import io.podfall.controller.scheduler.SchedulerState.CachedNode;
import io.podfall.controller.scheduler.SchedulerState.CachedPod;
import io.podfall.controller.scheduler.SchedulerState.Usage;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The Filter plugins of the default profile that podfall runs, in the profile's order
 * ({@code pkg/scheduler/apis/config/v1/default_plugins.go}): NodeUnschedulable, NodeName, TaintToleration,
 * NodeAffinity, NodeResourcesFit. The first that rejects a node names why (upstream's RunFilterPlugins stops there);
 * NodeResourcesFit names every resource that falls short. NodeName never rejects here: a pod created with
 * {@code spec.nodeName} is bound already and never queued (upstream's scheduler does not see it either).
 */
final class Filters {
    /** NodeUnschedulable's ErrReasonUnschedulable. */
    static final String UNSCHEDULABLE = "node(s) were unschedulable";
    /** The taint a pod tolerates to be placed on a cordoned node (v1.TaintNodeUnschedulable, effect NoSchedule). */
    private static final Taint CORDON = new Taint("NoSchedule", "node.kubernetes.io/unschedulable", null, null);

    private Filters() {}

    /**
     * Why a node was turned down: the filter's reasons and whether preemption could make room ({@code Unschedulable},
     * NodeResourcesFit's code) or not ({@code UnschedulableAndUnresolvable}, the others').
     */
    record Rejection(List<String> reasons, boolean resolvable) {
        static Rejection unresolvable(String reason) {
            return new Rejection(List.of(reason), false);
        }
    }

    /** Why the node does not fit the pod, or empty if it does. */
    static Optional<Rejection> run(CachedNode node, Usage usage, CachedPod pod) {
        SchedulerState.Requirements wants = pod.requirements();
        // NodeUnschedulable (nodeunschedulable/node_unschedulable.go)
        if (node.unschedulable()
                && TaintToleration.untolerated(List.of(CORDON), wants.tolerations())
                        .isPresent()) {
            return Optional.of(Rejection.unresolvable(UNSCHEDULABLE));
        }
        // TaintToleration (tainttoleration/taint_toleration.go)
        Optional<Taint> taint = TaintToleration.untolerated(node.taints(), wants.tolerations());
        if (taint.isPresent()) {
            return Optional.of(
                    Rejection.unresolvable("node(s) had untolerated taint " + TaintToleration.describe(taint.get())));
        }
        // NodeAffinity (nodeaffinity/node_affinity.go)
        if (!wants.affinity().matches(node.name(), node.labels())) {
            return Optional.of(Rejection.unresolvable(NodeAffinity.REASON));
        }
        return nodeResourcesFit(node, usage, wants.requests());
    }

    /**
     * NodeResourcesFit (noderesources/fit.go fitsRequest): one pod more than {@code allocatable.pods} is "Too many
     * pods"; a resource the pod requests (more than 0) beyond what the node's allocatable leaves after the requests of
     * the pods on it (bound, assumed, terminating alike) is "Insufficient cpu" / "Insufficient memory".
     */
    private static Optional<Rejection> nodeResourcesFit(CachedNode node, Usage usage, Resources requests) {
        Resources free = node.allocatable().minus(usage.requested());
        boolean tooMany = usage.pods() + 1L > node.allocatablePods();
        boolean cpu = requests.milliCpu() > 0 && requests.milliCpu() > free.milliCpu();
        boolean memory = requests.memory() > 0 && requests.memory() > free.memory();
        if (!tooMany && !cpu && !memory) {
            return Optional.empty(); // the common case, once per pod placed: no list to build
        }
        List<String> reasons = new ArrayList<>(3);
        if (tooMany) {
            reasons.add("Too many pods");
        }
        if (cpu) {
            reasons.add("Insufficient cpu");
        }
        if (memory) {
            reasons.add("Insufficient memory");
        }
        return Optional.of(new Rejection(List.copyOf(reasons), true));
    }
}
