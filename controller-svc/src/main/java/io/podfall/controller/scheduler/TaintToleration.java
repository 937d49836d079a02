package io.podfall.controller.scheduler;

import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Optional;

/**
 * The scheduler's TaintToleration filter (pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go): a pod
 * fits a node only if it tolerates every taint of the node whose effect is NoSchedule or NoExecute (PreferNoSchedule
 * only scores). Matching as v1 Toleration.ToleratesTaint (staging/src/k8s.io/api/core/v1/toleration.go): an empty
 * effect matches every effect, an empty key with operator Exists every key; Exists ignores the value, Equal (the
 * default) needs the same value.
 */
public final class TaintToleration {

    private TaintToleration() {}

    /** The first taint of the node that keeps the pod off it, if any (FindMatchingUntoleratedTaint). */
    static Optional<Taint> untolerated(List<Taint> taints, List<Toleration> tolerations) {
        return taints.stream()
                .filter(t -> "NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect()))
                .filter(t -> tolerations.stream().noneMatch(tol -> tolerates(tol, t)))
                .findFirst();
    }

    /** v1 Toleration.ToleratesTaint; the taint eviction controller matches by it too. */
    public static boolean tolerates(Toleration toleration, Taint taint) {
        if (!isEmpty(toleration.getEffect()) && !toleration.getEffect().equals(taint.getEffect())) {
            return false;
        }
        if (!isEmpty(toleration.getKey()) && !toleration.getKey().equals(taint.getKey())) {
            return false;
        }
        String operator = isEmpty(toleration.getOperator()) ? "Equal" : toleration.getOperator();
        return switch (operator) {
            case "Exists" -> true;
            case "Equal" -> value(toleration.getValue()).equals(value(taint.getValue()));
            default -> false;
        };
    }

    /** How the scheduler names a taint in its reasons: {@code {key: value}}. */
    static String describe(Taint taint) {
        return "{" + taint.getKey() + ": " + value(taint.getValue()) + "}";
    }

    private static boolean isEmpty(String s) {
        return s == null || s.isEmpty();
    }

    private static String value(String s) {
        return s == null ? "" : s;
    }
}
