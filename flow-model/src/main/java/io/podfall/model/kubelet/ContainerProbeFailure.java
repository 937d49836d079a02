package io.podfall.model.kubelet;

/**
 * A container failed its liveness or startup probe and the kubelet kills it
 * (pkg/kubelet/kuberuntime/kuberuntime_manager.go computePodActions: {@code reasonLivenessProbe},
 * {@code reasonStartupProbe}): {@code probe} is {@code liveness} or {@code startup}; {@code message} is upstream's
 * Killing event's, "Container app failed liveness probe, will be restarted" (without ", will be restarted" under
 * restartPolicy Never); {@code gracePeriodSeconds} is the StopContainer timeout the kill takes: the probe's
 * terminationGracePeriodSeconds when set, else the pod's (kuberuntime_container.go setTerminationGracePeriod), never
 * below 2 s.
 */
public record ContainerProbeFailure(
        String node,
        String podUid,
        String namespace,
        String name,
        String containerId,
        String containerName,
        String probe,
        String message,
        long gracePeriodSeconds) {}
