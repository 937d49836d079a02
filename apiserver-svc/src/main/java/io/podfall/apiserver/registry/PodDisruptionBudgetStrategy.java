package io.podfall.apiserver.registry;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetSpec;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;
import io.podfall.apiserver.registry.StatusError.FieldError;
import io.podfall.model.Json;
import io.podfall.model.k8s.DisruptionBudgets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The rules of a policy/v1 PodDisruptionBudget ({@code pkg/registry/policy/poddisruptionbudget/strategy.go}, validation
 * from {@code pkg/apis/policy/validation/validation.go}): created with an empty status and generation 1, a change of
 * its spec is a new generation (so the Eviction API can tell a status computed for an older spec), its status is
 * written only through {@code /status}, by the disruption controller and the Eviction API.
 */
final class PodDisruptionBudgetStrategy {
    /** {@code validation.IsValidPercent}'s message, with its {@code RegexError} suffix. */
    private static final String PERCENT_ERROR = "a valid percent string must be a numeric string followed by an ending"
            + " '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

    private PodDisruptionBudgetStrategy() {}

    /** {@code PrepareForCreate}: the status is the controller's, the generation starts at 1. */
    static void prepareForCreate(PodDisruptionBudget pdb) {
        pdb.setStatus(new PodDisruptionBudgetStatus());
        pdb.getMetadata().setGeneration(1L);
    }

    /** {@code PrepareForUpdate} (the status already kept by the store) and {@code ValidateUpdate}. */
    static List<FieldError> prepareForUpdate(PodDisruptionBudget current, PodDisruptionBudget next) {
        if (!Json.tree(current).path("spec").equals(Json.tree(next).path("spec"))) {
            long generation = Objects.requireNonNullElse(current.getMetadata().getGeneration(), 0L);
            next.getMetadata().setGeneration(generation + 1);
        }
        return validate(next);
    }

    /**
     * {@code ValidatePodDisruptionBudgetSpec}: minAvailable and maxUnavailable exclusive, each a non-negative integer
     * or a percentage of at most 100%, a well-formed selector, a known unhealthyPodEvictionPolicy.
     */
    static List<FieldError> validate(PodDisruptionBudget pdb) {
        List<FieldError> errors = new ArrayList<>();
        PodDisruptionBudgetSpec spec = pdb.getSpec() == null ? new PodDisruptionBudgetSpec() : pdb.getSpec();
        if (spec.getMinAvailable() != null && spec.getMaxUnavailable() != null) {
            errors.add(FieldError.invalidValue(
                    "spec", Json.tree(spec).toString(), "minAvailable and maxUnavailable cannot be both set"));
        }
        errors.addAll(intOrPercent(spec.getMinAvailable(), "spec.minAvailable"));
        errors.addAll(intOrPercent(spec.getMaxUnavailable(), "spec.maxUnavailable"));
        errors.addAll(labelSelector(Json.tree(spec).path("selector"), "spec.selector"));
        String policy = spec.getUnhealthyPodEvictionPolicy();
        if (policy != null
                && !policy.equals(DisruptionBudgets.ALWAYS_ALLOW)
                && !policy.equals(DisruptionBudgets.IF_HEALTHY_BUDGET)) {
            errors.add(FieldError.notSupported(
                    "spec.unhealthyPodEvictionPolicy",
                    policy,
                    List.of(DisruptionBudgets.ALWAYS_ALLOW, DisruptionBudgets.IF_HEALTHY_BUDGET)));
        }
        return errors;
    }

    /** {@code ValidatePodDisruptionBudgetStatusUpdate}: the counts are never negative. */
    static List<FieldError> validateStatus(PodDisruptionBudget pdb) {
        PodDisruptionBudgetStatus status = pdb.getStatus() == null ? new PodDisruptionBudgetStatus() : pdb.getStatus();
        List<FieldError> errors = new ArrayList<>();
        nonNegative(status.getDisruptionsAllowed(), "status.disruptionsAllowed", errors);
        nonNegative(status.getCurrentHealthy(), "status.currentHealthy", errors);
        nonNegative(status.getDesiredHealthy(), "status.desiredHealthy", errors);
        nonNegative(status.getExpectedPods(), "status.expectedPods", errors);
        return errors;
    }

    private static void nonNegative(Integer value, String field, List<FieldError> errors) {
        if (value != null && value < 0) {
            errors.add(FieldError.invalidValue(field, value.toString(), "must be greater than or equal to 0"));
        }
    }

    /** {@code ValidatePositiveIntOrPercent} and {@code IsNotMoreThan100Percent} of apps' validation. */
    private static List<FieldError> intOrPercent(IntOrString value, String field) {
        if (value == null) {
            return List.of();
        }
        if (value.getStrVal() != null) {
            String percent = value.getStrVal();
            if (!percent.matches("[0-9]+%")) {
                return List.of(FieldError.invalid(field, percent, PERCENT_ERROR));
            }
            if (Long.parseLong(percent.substring(0, percent.length() - 1)) > 100) {
                return List.of(FieldError.invalid(field, percent, "must not be greater than 100%"));
            }
            return List.of();
        }
        int number = Objects.requireNonNullElse(value.getIntVal(), 0);
        return number < 0
                ? List.of(
                        FieldError.invalidValue(field, Integer.toString(number), "must be greater than or equal to 0"))
                : List.of();
    }

    /**
     * {@code ValidateLabelSelector}, its operators: In and NotIn need values, Exists and DoesNotExist take none. A null
     * selector is valid (it selects no pod).
     */
    private static List<FieldError> labelSelector(JsonNode selector, String field) {
        List<FieldError> errors = new ArrayList<>();
        int i = 0;
        for (JsonNode e : selector.path("matchExpressions")) {
            String path = field + ".matchExpressions[" + i++ + "]";
            String operator = e.path("operator").asText("");
            boolean hasValues = e.path("values").size() > 0;
            switch (operator) {
                case "In", "NotIn" -> {
                    if (!hasValues) {
                        errors.add(FieldError.required(
                                path + ".values", "must be specified when `operator` is 'In' or 'NotIn'"));
                    }
                }
                case "Exists", "DoesNotExist" -> {
                    if (hasValues) {
                        errors.add(FieldError.forbidden(
                                path + ".values",
                                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
                    }
                }
                default ->
                    errors.add(FieldError.invalid(path + ".operator", operator, "not a valid selector operator"));
            }
        }
        return errors;
    }
}
