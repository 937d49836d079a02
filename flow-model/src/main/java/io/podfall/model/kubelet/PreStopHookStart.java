package io.podfall.model.kubelet;

import java.time.Instant;

/**
 * A container's preStop hook began (pkg/kubelet/kuberuntime/kuberuntime_container.go executePreStopHook):
 * {@code handler} is {@code sleep}, {@code exec} or {@code httpGet}; the hook may take at most
 * {@code gracePeriodSeconds}, what is left of the pod's grace period.
 */
public record PreStopHookStart(
        String node,
        String podUid,
        String namespace,
        String name,
        String containerId,
        String containerName,
        String handler,
        long gracePeriodSeconds,
        Instant startedAt) {}
