package io.podfall.apiserver.registry;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.podfall.model.Json;
import io.podfall.model.apiserver.EvictionRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.MetaTimes;
import io.podfall.model.k8s.ResourceType;
import java.util.List;

/**
 * The {@code pods/eviction} subresource: upstream's {@code EvictionREST.Create} and {@code addConditionAndDeletePod} of
 * {@code pkg/registry/core/pod/storage/eviction.go}.
 */
final class EvictionRest {
    private static final String EVICTION_KIND = "Eviction";
    private static final List<String> EVICTION_VERSIONS = List.of("policy/v1", "policy/v1beta1");

    private EvictionRest() {}

    /**
     * An eviction is a delete that a PodDisruptionBudget may refuse (429). podfall has no PodDisruptionBudgets, so
     * every eviction is allowed, as upstream's when no budget selects the pod: a pod already finished (or pending, or
     * terminating) skips the budgets there anyway. Upstream first writes the pod's status with the
     * {@code DisruptionTarget} condition (through the status store: {@code PodStatusUpdated}), then deletes it with the
     * Eviction's deleteOptions, exactly as a DELETE would: gracefully with their grace period, else the spec's, or at
     * once for a pod that is unscheduled or finished ({@link PodStrategy#gracePeriod}).
     */
    static void create(RegistryState state, EvictionRequest req, Effects.Builder out) {
        DeleteOptions options = BeforeDelete.checkedOptions(evictionOptions(req));
        Pod pod = Storage.existingPod(state, req.namespace(), req.name());
        // getLatestPod: the preconditions are checked against the pod before the condition is written.
        BeforeDelete.checkPreconditions(ResourceType.PODS, pod, options);
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
