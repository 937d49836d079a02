package io.podfall.kubelet.podworkers;

import io.fabric8.kubernetes.api.model.Pod;

import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/** The worker of one pod UID: the last known pod, its sync status and the runtime's view of its sandbox. */
public final class PodWorker {

    /** CRI PodSandboxState: READY once started, NOTREADY once stopped. */
    public enum SandboxState { READY, NOTREADY }

    final String uid;
    final String node;
    /** The most recent version of the pod (upstream activeUpdate.Pod); kept after the pod left the API server. */
    Pod pod;
    final PodSyncStatus status;
    /** The pod left the API server before the worker finished: no status to write, nothing left to delete. */
    boolean orphan;
    /**
     * Known only from the runtime's facts, never from the API server (its pod has a UID, a namespace, a name and
     * a node, no spec): housekeeping tears it down. Such a worker is an orphan from the start.
     */
    boolean runtimeOnly;
    /** Null until the runtime reports the sandbox started. */
    SandboxState sandbox;
    String sandboxId;
    String podIP;
    /** StopPodSandbox was asked for; asked once. */
    boolean sandboxStopRequested;
    /** The status manager asked for the terminal status and has not seen the API server hold it yet. */
    boolean finalStatusPending;
    /** The status manager's final delete was asked for; asked once. */
    boolean finalDeleteRequested;
    /** The message of the final status of an evicted pod (the resource the node was low on); null otherwise. */
    String evictionMessage;
    /** The containers asked to start, by name, in spec order. */
    final Map<String, RuntimeContainer> containers = new LinkedHashMap<>();

    PodWorker(Pod pod, Instant now) {
        this.uid = pod.getMetadata().getUid();
        this.node = pod.getSpec().getNodeName();
        this.pod = pod;
        this.status = new PodSyncStatus(now);
    }

    String namespace() {
        return pod.getMetadata().getNamespace();
    }

    String name() {
        return pod.getMetadata().getName();
    }

    boolean hasContainersThatCouldBeRunning() {
        return containers.values().stream().anyMatch(RuntimeContainer::couldBeRunning);
    }

    /** The most recent version of the pod the worker knows. */
    public Pod pod() {
        return pod;
    }

    public String node() {
        return node;
    }

    public PodSyncStatus status() {
        return status;
    }

    public boolean isOrphan() {
        return orphan;
    }

    public boolean isRuntimeOnly() {
        return runtimeOnly;
    }

    public SandboxState sandbox() {
        return sandbox;
    }

    public Collection<RuntimeContainer> containers() {
        return containers.values();
    }
}
