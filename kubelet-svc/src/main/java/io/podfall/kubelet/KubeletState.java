package io.podfall.kubelet;

import io.podfall.kubelet.nodelease.NodeLeaseState;
import io.podfall.kubelet.nodestatus.NodeStatusState;
import io.podfall.kubelet.podworkers.PodWorkersState;

/** The states of the {@link Kubelet}'s parts, each changed only by its own part. */
public record KubeletState(PodWorkersState podWorkers, NodeStatusState nodeStatus, NodeLeaseState nodeLease) {
}
