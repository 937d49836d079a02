package io.podfall.apiserver.registry;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;
import io.podfall.model.Json;
import io.podfall.model.apiserver.EvictionRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.DisruptionBudgets;
import io.podfall.model.k8s.LabelSelectors;
import io.podfall.model.k8s.MetaTimes;
import io.podfall.model.k8s.ResourceType;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code pods/eviction} subresource: upstream's {@code EvictionREST.Create} and {@code addConditionAndDeletePod} of
 * {@code pkg/registry/core/pod/storage/eviction.go}.
 */
final class EvictionRest {
    private static final String EVICTION_KIND = "Eviction";
    private static final List<String> EVICTION_VERSIONS = List.of("policy/v1", "policy/v1beta1");
    /** The message of every 429 of a budget ({@code createTooManyRequestsError}, {@code checkAndDecrement}). */
    static final String TOO_MANY_REQUESTS = "Cannot evict pod as it would violate the pod's disruption budget.";
    /**
     * {@code MaxDisruptedPodSize}: more evictions than this not yet confirmed by the disruption controller are refused.
     */
    static final int MAX_DISRUPTED_POD_SIZE = 2000;
    /** {@code policy.Resource("poddisruptionbudget")}: how checkAndDecrement's 403s name the budget. */
    private static final String POLICY = "policy";

    private static final String POD_DISRUPTION_BUDGET = "poddisruptionbudget";

    private EvictionRest() {}

    /**
     * An eviction is a delete that a PodDisruptionBudget may refuse. A pod that is finished, pending or already
     * terminating skips the budgets ({@code canIgnorePDB}); any other is checked against the budget that selects it
     * ({@link #checkDisruptionBudget}), which either refuses the eviction (nothing is written) or, for a healthy pod,
     * takes one disruption from the budget's status first. Then, as upstream's {@code addConditionAndDeletePod}, the
     * pod's status gets the {@code DisruptionTarget} condition (through the status store: {@code PodStatusUpdated}),
     * and the pod is deleted with the Eviction's deleteOptions, exactly as a DELETE would: gracefully with their grace
     * period, else the spec's, or at once for a pod that is unscheduled or finished ({@link PodStrategy#gracePeriod}).
     * Every check comes before the first write, so a refusal stores nothing.
     */
    static void create(RegistryState state, EvictionRequest req, Effects.Builder out) {
        DeleteOptions options = BeforeDelete.checkedOptions(evictionOptions(req));
        Pod pod = Storage.existingPod(state, req.namespace(), req.name());
        // getLatestPod: the preconditions are checked against the pod before the condition is written.
        BeforeDelete.checkPreconditions(ResourceType.PODS, pod, options);
        if (!canIgnorePdb(pod)) {
            checkDisruptionBudget(state, pod, out);
        }
        Pod evicted = state.copy(ResourceType.PODS, pod);
        PodStatus status = evicted.getStatus() == null ? new PodStatus() : evicted.getStatus();
        evicted.setStatus(status);
        status.setConditions(PodStrategy.withCondition(
                status.getConditions(),
                new PodConditionBuilder()
                        .withType(PodStrategy.DISRUPTION_TARGET)
                        .withStatus("True")
                        .withReason("EvictionByEvictionAPI")
                        .withMessage("Eviction API: evicting")
                        .withLastTransitionTime(MetaTimes.format(out.causeTime()))
                        .build()));
        if (Storage.writeIfChanged(state, out, EventTypes.POD_STATUS_UPDATED, ResourceType.PODS, pod, evicted)) {
            pod = evicted;
            if (options.getPreconditions() != null && options.getPreconditions().getResourceVersion() != null) {
                // The eviction made the write the precondition would now fail on: it moves to the new revision.
                options = Json.convert(Json.tree(options), DeleteOptions.class);
                options.getPreconditions().setResourceVersion(pod.getMetadata().getResourceVersion());
            }
        }
        Store.deleteObject(state, ResourceType.PODS, pod, options, out);
    }

    /**
     * {@code canIgnorePDB}: a finished or pending pod has disrupted nothing yet or already, a terminating one is going
     * anyway.
     */
    static boolean canIgnorePdb(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase)
                || "Failed".equals(phase)
                || "Pending".equals(phase)
                || pod.getMetadata().getDeletionTimestamp() != null;
    }

    /**
     * The budget part of {@code EvictionREST.Create}: the budgets that select the pod ({@code getPodDisruptionBudgets}:
     * of its namespace, an empty selector selects nothing here); more than one is upstream's 500; none lets the
     * eviction go. A pod that is not Ready does not count as healthy, so evicting it takes nothing from the budget:
     * with {@code unhealthyPodEvictionPolicy} AlwaysAllow always, with IfHealthyBudget (the default) while the budget
     * has its desired healthy pods. Otherwise {@link #checkAndDecrement}. (Upstream then adds the pod's resourceVersion
     * as a precondition of the delete, against a pod that turns Ready meanwhile: the registry applies one request at a
     * time, so it cannot fail here.)
     */
    private static void checkDisruptionBudget(RegistryState state, Pod pod, Effects.Builder out) {
        JsonNode labels = Json.tree(pod.getMetadata()).path("labels");
        List<PodDisruptionBudget> pdbs =
                state.list(ResourceType.PODDISRUPTIONBUDGETS, pod.getMetadata().getNamespace()).stream()
                        .map(PodDisruptionBudget.class::cast)
                        .filter(pdb -> {
                            JsonNode selector = Json.tree(pdb).path("spec").path("selector");
                            return selector.path("matchLabels").size()
                                                    + selector.path("matchExpressions")
                                                            .size()
                                            > 0
                                    && LabelSelectors.matches(selector, labels);
                        })
                        .toList();
        if (pdbs.size() > 1) {
            throw StatusError.failure(
                    500,
                    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.");
        }
        if (pdbs.isEmpty()) {
            return;
        }
        PodDisruptionBudget pdb = pdbs.get(0);
        PodDisruptionBudgetStatus status = pdb.getStatus() == null ? new PodDisruptionBudgetStatus() : pdb.getStatus();
        if (!isPodReady(pod)) {
            if (DisruptionBudgets.ALWAYS_ALLOW.equals(pdb.getSpec().getUnhealthyPodEvictionPolicy())) {
                return;
            }
            int desired = count(status.getDesiredHealthy());
            if (count(status.getCurrentHealthy()) >= desired && desired > 0) {
                return;
            }
        }
        checkAndDecrement(state, pod.getMetadata().getName(), pdb, out);
    }

    /**
     * {@code checkAndDecrement}: a status computed for an older spec, or no disruption allowed, is a 429 the client
     * retries (kubectl drain every 5 s); otherwise one disruption fewer, the DisruptionAllowed condition updated when
     * that was the last, and the pod in {@code disruptedPods} at this time, so the disruption controller does not count
     * it healthy while its deletion is on its way. Written through the status store ({@code ObjectUpdated}).
     */
    static void checkAndDecrement(RegistryState state, String podName, PodDisruptionBudget pdb, Effects.Builder out) {
        String name = pdb.getMetadata().getName();
        PodDisruptionBudgetStatus status = pdb.getStatus() == null ? new PodDisruptionBudgetStatus() : pdb.getStatus();
        long generation = pdb.getMetadata().getGeneration() == null
                ? 0
                : pdb.getMetadata().getGeneration();
        if ((status.getObservedGeneration() == null ? 0 : status.getObservedGeneration()) < generation) {
            throw StatusError.tooManyRequests(
                    TOO_MANY_REQUESTS,
                    10,
                    DisruptionBudgets.DISRUPTION_BUDGET_CAUSE,
                    "The disruption budget " + name + " is still being processed by the server.");
        }
        int allowed = count(status.getDisruptionsAllowed());
        if (allowed < 0) {
            throw StatusError.forbidden(POLICY, POD_DISRUPTION_BUDGET, name, "pdb disruptions allowed is negative");
        }
        if (status.getDisruptedPods() != null && status.getDisruptedPods().size() > MAX_DISRUPTED_POD_SIZE) {
            throw StatusError.forbidden(
                    POLICY,
                    POD_DISRUPTION_BUDGET,
                    name,
                    "DisruptedPods map too big - too many evictions not confirmed by PDB controller");
        }
        if (allowed == 0) {
            throw StatusError.tooManyRequests(
                    TOO_MANY_REQUESTS,
                    0,
                    DisruptionBudgets.DISRUPTION_BUDGET_CAUSE,
                    "The disruption budget " + name + " needs " + count(status.getDesiredHealthy())
                            + " healthy pods and has " + count(status.getCurrentHealthy()) + " currently");
        }
        PodDisruptionBudget next = state.copy(ResourceType.PODDISRUPTIONBUDGETS, pdb);
        PodDisruptionBudgetStatus nextStatus = next.getStatus();
        nextStatus.setDisruptionsAllowed(allowed - 1);
        if (allowed - 1 == 0) {
            DisruptionBudgets.updateDisruptionAllowedCondition(nextStatus, out.causeTime());
        }
        Map<String, String> disrupted =
                new TreeMap<>(nextStatus.getDisruptedPods() == null ? Map.of() : nextStatus.getDisruptedPods());
        disrupted.put(podName, MetaTimes.format(out.causeTime()));
        nextStatus.setDisruptedPods(disrupted);
        Storage.write(state, out, EventTypes.OBJECT_UPDATED, ResourceType.PODDISRUPTIONBUDGETS, next);
    }

    /** {@code podutil.IsPodReady}: its Ready condition is True. */
    private static boolean isPodReady(Pod pod) {
        return pod.getStatus() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static int count(Integer value) {
        return value == null ? 0 : value;
    }

    /** The deleteOptions of an Eviction, after the checks of its decoding and of {@code EvictionREST.Create}. */
    private static DeleteOptions evictionOptions(EvictionRequest req) {
        JsonNode eviction = req.eviction();
        if (eviction == null || !eviction.isObject()) {
            throw StatusError.badRequest("the body of the request must be a JSON object (Eviction)");
        }
        // The handler decodes with policy/v1 Eviction as the default kind; AcceptsGroupVersion takes v1 and v1beta1.
        String apiVersion = eviction.path("apiVersion").asText(EVICTION_VERSIONS.get(0));
        String kind = eviction.path("kind").asText(EVICTION_KIND);
        if (!EVICTION_VERSIONS.contains(apiVersion) || !kind.equals(EVICTION_KIND)) {
            throw StatusError.badRequest("not a Eviction object: " + apiVersion + ", Kind=" + kind);
        }
        if (!req.name().equals(eviction.path("metadata").path("name").asText(""))) {
            throw StatusError.badRequest("name in URL does not match name in Eviction object");
        }
        JsonNode options = eviction.path("deleteOptions");
        if (options.isMissingNode() || options.isNull()) {
            return new DeleteOptions();
        }
        return DeleteOptionsReader.read(
                options, EVICTION_KIND + " in version \"" + apiVersion + "\" cannot be handled as a Eviction: ");
    }
}
