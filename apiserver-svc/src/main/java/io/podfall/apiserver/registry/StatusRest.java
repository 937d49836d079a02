package io.podfall.apiserver.registry;

import io.fabric8.kubernetes.api.model.Pod;
import io.podfall.model.apiserver.StatusUpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;

/**
 * The kubelet's write of a pod's status ({@code PodStatusUpdated}) through the {@code pods/status} subresource:
 * upstream's {@code StatusREST} of {@code pkg/registry/core/pod/storage/storage.go}, with {@code podStatusStrategy}
 * (the status replaced, the rest of the pod kept). A client's update or patch of {@code pods/status} goes the generic
 * way instead ({@link Store}).
 */
final class StatusRest {
    private StatusRest() {}

    /** {@code StatusREST.Update}: nothing is written if the status is the one stored. */
    static void update(RegistryState state, StatusUpdateRequest req, Effects.Builder out) {
        Pod pod = Storage.existingPod(state, req.namespace(), req.name());
        Storage.checkUid(ResourceType.PODS, pod, req.uid());
        Pod updated = state.copy(ResourceType.PODS, pod);
        updated.setStatus(req.status());
        Storage.writeIfChanged(state, out, EventTypes.POD_STATUS_UPDATED, ResourceType.PODS, pod, updated);
    }
}
