package io.podfall.model.kubelet;

/**
 * A pod worker that was terminating or had finished got a create of a pod with the same UID
 * ({@code kubelet.PodRestartRequested}, pod_workers.go restartRequested): the worker records it and the UID is not
 * admitted again. {@code workType} is where the worker was ({@code TerminatingPod} or {@code TerminatedPod}),
 * {@code finished} whether it had finished.
 */
public record PodRestart(
        String node, String podUid, String namespace, String name, String workType, boolean finished) {}
