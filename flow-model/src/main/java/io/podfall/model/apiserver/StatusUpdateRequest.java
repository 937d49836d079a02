package io.podfall.model.apiserver;

import io.fabric8.kubernetes.api.model.PodStatus;

/** {@code PUT .../pods/{name}/status} from a kubelet's status manager, for the pod of the given uid. */
public record StatusUpdateRequest(String namespace, String name, String uid, PodStatus status) {}
