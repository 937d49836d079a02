package io.podfall.kubelet.podworkers;

/**
 * Where a pod worker is in the life of its pod (pkg/kubelet/pod_workers.go PodWorkerState): setup, teardown of
 * containers, or cleanup. The constants keep upstream's names so they can be grepped for.
 */
public enum PodWorkerState {
    /** The pod is expected to be started and running. */
    SyncPod,
    /** The pod is no longer being set up; some containers may still run and are being torn down. */
    TerminatingPod,
    /** The pod is stopped and can have no more running containers; cleanup and the final status follow. */
    TerminatedPod
}
