package io.podfall.apiserver.registry;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.podfall.apiserver.registry.StatusError.FieldError;
import io.podfall.model.apiserver.BindingRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.MetaTimes;
import io.podfall.model.k8s.ResourceType;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code pods/binding} subresource: the scheduler's binding of a pod to a node ({@code PodBound}). Upstream's
 * {@code BindingREST} with {@code setPodNodeAndMetadata} of {@code pkg/registry/core/pod/storage/storage.go}.
 */
final class BindingRest {
    private BindingRest() {}

    /**
     * {@code BindingREST.Create}: sets {@code spec.nodeName} once, only while the pod is not being deleted, and the
     * {@code PodScheduled} condition.
     */
    static void create(RegistryState state, BindingRequest req, Effects.Builder out) {
        Pod pod = Storage.existingPod(state, req.namespace(), req.name());
        NamespaceLifecycle.admitCreate(state, ResourceType.PODS, req.namespace(), req.name());
        if (req.nodeName() == null || req.nodeName().isEmpty()) {
            throw StatusError.invalid(
                    "Binding", "Binding", "", req.name(), List.of(FieldError.required("target.name", "")));
        }
        Storage.checkUid(ResourceType.PODS, pod, req.uid());
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            throw StatusError.conflict(
                    "pods/binding",
                    req.name(),
                    "pod " + req.name() + " is being deleted, cannot be assigned to a host");
        }
        if (pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().isEmpty()) {
            throw StatusError.conflict(
                    "pods/binding",
                    req.name(),
                    "pod " + req.name() + " is already assigned to node "
                            + StatusError.quote(pod.getSpec().getNodeName()));
        }
        Pod bound = state.copy(ResourceType.PODS, pod);
        bound.getSpec().setNodeName(req.nodeName());
        PodStatus status = bound.getStatus() == null ? new PodStatus() : bound.getStatus();
        bound.setStatus(status);
        List<PodCondition> conditions = new ArrayList<>(status.getConditions());
        conditions.removeIf(c -> "PodScheduled".equals(c.getType()));
        conditions.add(new PodConditionBuilder()
                .withType("PodScheduled")
                .withStatus("True")
                .withLastTransitionTime(MetaTimes.format(out.causeTime()))
                .build());
        status.setConditions(conditions);
        Storage.write(state, out, EventTypes.POD_BOUND, ResourceType.PODS, bound);
    }
}
