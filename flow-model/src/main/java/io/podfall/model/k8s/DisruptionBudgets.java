package io.podfall.model.k8s;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The rules of a PodDisruptionBudget's status that the Eviction API and the disruption controller share: upstream's
 * {@code staging/src/k8s.io/component-helpers/apps/poddisruptionbudget/helpers.go} (the {@code DisruptionAllowed}
 * condition follows {@code disruptionsAllowed}) with {@code apimeta.SetStatusCondition}
 * ({@code staging/src/k8s.io/apimachinery/pkg/api/meta/conditions.go}), and the constants of
 * {@code k8s.io/api/policy/v1/types.go}.
 */
public final class DisruptionBudgets {
    /** {@code DisruptionAllowedCondition}. */
    public static final String DISRUPTION_ALLOWED = "DisruptionAllowed";
    /** {@code SufficientPodsReason}: more healthy pods than the budget needs. */
    public static final String SUFFICIENT_PODS = "SufficientPods";
    /** {@code InsufficientPodsReason}: at or below what the budget needs. */
    public static final String INSUFFICIENT_PODS = "InsufficientPods";
    /** {@code SyncFailedReason}: the controller could not compute the budget, so it allows nothing. */
    public static final String SYNC_FAILED = "SyncFailed";
    /** {@code DisruptionBudgetCause}: the cause type of an eviction the budget refuses. */
    public static final String DISRUPTION_BUDGET_CAUSE = "DisruptionBudget";
    /** The values of {@code spec.unhealthyPodEvictionPolicy}; unset means IfHealthyBudget. */
    public static final String IF_HEALTHY_BUDGET = "IfHealthyBudget";

    public static final String ALWAYS_ALLOW = "AlwaysAllow";

    private DisruptionBudgets() {}

    /**
     * {@code UpdateDisruptionAllowedCondition}: True/SufficientPods while disruptions are allowed, else
     * False/InsufficientPods, with the status's observedGeneration; {@code now} is the transition time if the status
     * changes.
     */
    public static void updateDisruptionAllowedCondition(PodDisruptionBudgetStatus status, Instant now) {
        boolean allowed = Objects.requireNonNullElse(status.getDisruptionsAllowed(), 0) > 0;
        setStatusCondition(status, allowed ? "True" : "False", allowed ? SUFFICIENT_PODS : INSUFFICIENT_PODS, "", now);
    }

    /** {@code ConditionsAreUpToDate}: the condition is there, for this generation, and agrees with the count. */
    public static boolean conditionsAreUpToDate(PodDisruptionBudget pdb) {
        PodDisruptionBudgetStatus status = pdb.getStatus();
        Condition condition = status == null ? null : find(status.getConditions());
        if (condition == null
                || !Objects.equals(
                        status.getObservedGeneration(), pdb.getMetadata().getGeneration())) {
            return false;
        }
        return Objects.requireNonNullElse(status.getDisruptionsAllowed(), 0) > 0
                ? "True".equals(condition.getStatus()) && SUFFICIENT_PODS.equals(condition.getReason())
                : "False".equals(condition.getStatus()) && INSUFFICIENT_PODS.equals(condition.getReason());
    }

    /**
     * {@code SetStatusCondition} of the DisruptionAllowed condition: added if missing; its lastTransitionTime moves
     * only when its status changes; reason, message and observedGeneration are replaced.
     */
    public static void setStatusCondition(
            PodDisruptionBudgetStatus status, String conditionStatus, String reason, String message, Instant now) {
        List<Condition> conditions =
                new ArrayList<>(status.getConditions() == null ? List.of() : status.getConditions());
        Condition existing = find(conditions);
        Condition next = new ConditionBuilder()
                .withType(DISRUPTION_ALLOWED)
                .withStatus(conditionStatus)
                .withReason(reason)
                .withMessage(message)
                .withObservedGeneration(status.getObservedGeneration())
                .withLastTransitionTime(
                        existing != null && conditionStatus.equals(existing.getStatus())
                                ? existing.getLastTransitionTime()
                                : MetaTimes.format(now))
                .build();
        if (existing == null) {
            conditions.add(next);
        } else {
            conditions.set(conditions.indexOf(existing), next);
        }
        status.setConditions(conditions);
    }

    private static Condition find(List<Condition> conditions) {
        return conditions == null
                ? null
                : conditions.stream()
                        .filter(c -> DISRUPTION_ALLOWED.equals(c.getType()))
                        .findFirst()
                        .orElse(null);
    }
}
