package io.podfall.kubelet.podworkers;

import io.fabric8.kubernetes.api.model.PodStatus;
import java.util.function.Consumer;

/**
 * What a kill the kubelet decides itself carries (pkg/kubelet/pod_workers.go KillPodOptions), as the eviction manager
 * passes it: a grace period override, and a function that sets the status the pod is to have from the start of its
 * termination.
 *
 * @param gracePeriodOverride PodTerminationGracePeriodSecondsOverride; null for none
 * @param podStatusFunc PodStatusFunc: applied to the status written when termination starts and to the final one; null
 *     for none
 */
record KillPodOptions(Long gracePeriodOverride, Consumer<PodStatus> podStatusFunc) {
    /** A kill with nothing of the kubelet's own: the API server's deletion, a terminal phase, an orphan. */
    static final KillPodOptions NONE = new KillPodOptions(null, null);
}
