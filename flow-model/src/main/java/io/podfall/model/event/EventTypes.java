package io.podfall.model.event;

/**
 * The event catalogue: every type that appears on the log, named for a fact in the past tense by the component that
 * owns the vocabulary. Requests to a component are in that component's vocabulary whoever sends them (the kubelet's
 * final delete is an {@link #DELETION_REQUESTED} with source {@code /kubelet/node-1}, exactly as it is the same DELETE
 * call upstream); the source attribute tells who asked.
 *
 * <p>docs/events.md lists these with their data; keep both in step.
 */
public final class EventTypes {
    private EventTypes() {}

    // --- apiserver: requests (appended by the API server for HTTP calls, or sent by controllers and kubelets) ---
    /** A client asked to create an object. Data: {@link io.podfall.model.apiserver.CreationRequest}. */
    public static final String CREATION_REQUESTED = "apiserver.CreationRequested";
    /** A client asked to delete an object. Data: {@link io.podfall.model.apiserver.DeletionRequest}. */
    public static final String DELETION_REQUESTED = "apiserver.DeletionRequested";
    /**
     * A client asked to delete every object of a resource in a namespace that a label and a field selector match (the
     * {@code deletecollection} verb). Data: {@link io.podfall.model.apiserver.CollectionDeletionRequest}.
     */
    public static final String COLLECTION_DELETION_REQUESTED = "apiserver.CollectionDeletionRequested";
    /** The scheduler asked to bind a pod to a node. Data: {@link io.podfall.model.apiserver.BindingRequest}. */
    public static final String BINDING_REQUESTED = "apiserver.BindingRequested";
    /**
     * A kubelet's status manager asked to write a pod's status. Data:
     * {@link io.podfall.model.apiserver.StatusUpdateRequest}.
     */
    public static final String STATUS_UPDATE_REQUESTED = "apiserver.StatusUpdateRequested";
    /** A client replaced an object, or its status (PUT). Data: {@link io.podfall.model.apiserver.UpdateRequest}. */
    public static final String UPDATE_REQUESTED = "apiserver.UpdateRequested";
    /** A client patched an object, or its status (PATCH). Data: {@link io.podfall.model.apiserver.PatchRequest}. */
    public static final String PATCH_REQUESTED = "apiserver.PatchRequested";
    /**
     * A client asked to evict a pod (POST to {@code pods/{name}/eviction}, what {@code kubectl drain} sends). Data:
     * {@link io.podfall.model.apiserver.EvictionRequest}.
     */
    public static final String EVICTION_REQUESTED = "apiserver.EvictionRequested";

    // --- apiserver: what it stored (what a watch shows). Data: {@link io.podfall.model.apiserver.ObjectChange} ---
    /** An object was stored (watch ADDED). */
    public static final String OBJECT_CREATED = "apiserver.ObjectCreated";
    /** A pod was bound to a node: spec.nodeName set (watch MODIFIED). */
    public static final String POD_BOUND = "apiserver.PodBound";
    /** A pod's status was written (watch MODIFIED). */
    public static final String POD_STATUS_UPDATED = "apiserver.PodStatusUpdated";
    /** An update or patch was stored: labels, annotations, finalizers, or a status (watch MODIFIED). */
    public static final String OBJECT_UPDATED = "apiserver.ObjectUpdated";
    /** Graceful deletion began, or its grace period was shortened: deletionTimestamp set (watch MODIFIED). */
    public static final String OBJECT_MARKED_TERMINATING = "apiserver.ObjectMarkedTerminating";
    /** The object left storage (watch DELETED); the data holds its last state. */
    public static final String OBJECT_REMOVED = "apiserver.ObjectRemoved";
    /**
     * An object as the API server held it at the start of a slice of the log, as a LIST at that revision returns it
     * (full object, resourceVersion included): {@code podfall export} of a namespace, a flow or a time window writes
     * these before the slice's events, so that the slice replays on its own. Not a change: the API server stores it as
     * it stands, every cache takes it in as the object's state, and nobody decides anything on it (what was to be
     * decided about it was decided before the slice began). The data may also carry {@code selection} (what the slice
     * holds) and, for a Node, {@code kubelet} (the nodes of the kubelet that runs it, and its switches).
     */
    public static final String OBJECT_LISTED = "apiserver.ObjectListed";
    /**
     * The facts whose data is an {@link io.podfall.model.apiserver.ObjectChange}: everything a watch of the API server
     * shows, folded by every cache that mirrors it (a controller's informers, the kubelet's config source), and the
     * objects listed at the start of a slice.
     */
    public static final java.util.Set<String> OBJECT_CHANGES = java.util.Set.of(
            OBJECT_CREATED,
            POD_BOUND,
            POD_STATUS_UPDATED,
            OBJECT_UPDATED,
            OBJECT_MARKED_TERMINATING,
            OBJECT_REMOVED,
            OBJECT_LISTED);
    /**
     * A request was refused; the data is the Kubernetes Status the client gets. Data:
     * {@link io.podfall.model.apiserver.RequestRejection}.
     */
    public static final String REQUEST_REJECTED = "apiserver.RequestRejected";
    /**
     * A mutating HTTP call was refused before it became a request: not authenticated (401) or not authorised (403).
     * Nothing acts on it; it is there for the record. Data: {@link io.podfall.model.apiserver.AccessDenial}.
     */
    public static final String ACCESS_DENIED = "apiserver.AccessDenied";

    // --- kubelet: pod workers (pkg/kubelet/pod_workers.go) ---
    /**
     * A pod worker began terminating a pod with the effective grace period. Data:
     * {@link io.podfall.model.kubelet.PodTermination}.
     */
    public static final String POD_TERMINATION_STARTED = "kubelet.PodTerminationStarted";
    /**
     * Every container and the sandbox of a pod are stopped (TerminatedPod). Data:
     * {@link io.podfall.model.kubelet.PodTermination}.
     */
    public static final String POD_TERMINATED = "kubelet.PodTerminated";
    /**
     * A terminating pod's grace period got shorter; the kill in flight is re-issued with the new deadline. Data:
     * {@link io.podfall.model.kubelet.GracePeriodShortened}.
     */
    public static final String GRACE_PERIOD_SHORTENED = "kubelet.GracePeriodShortened";
    /** A container's preStop hook began. Data: {@link io.podfall.model.kubelet.PreStopHookStart}. */
    public static final String PRE_STOP_HOOK_STARTED = "kubelet.PreStopHookStarted";
    /**
     * A container's preStop hook ended, or its grace period ran out. Data:
     * {@link io.podfall.model.kubelet.PreStopHookResult}.
     */
    public static final String PRE_STOP_HOOK_FINISHED = "kubelet.PreStopHookFinished";
    /**
     * Housekeeping found a pod the runtime runs on one of the kubelet's nodes that the kubelet knows of from no API
     * object and no pod worker; it is torn down. Data: {@link io.podfall.model.kubelet.OrphanedPod}.
     */
    public static final String ORPHANED_POD_FOUND = "kubelet.OrphanedPodFound";
    /**
     * The eviction manager chose a pod to evict because its node is under pressure: it is killed with the eviction's
     * grace period override and ends Failed with reason Evicted. Data: {@link io.podfall.model.kubelet.PodEviction}.
     */
    public static final String POD_EVICTED = "kubelet.PodEvicted";
    /**
     * A create of a pod whose UID's worker is terminating or finished (pod_workers.go restartRequested): recorded, and
     * the UID is not admitted again. Data: {@link io.podfall.model.kubelet.PodRestart}.
     */
    public static final String POD_RESTART_REQUESTED = "kubelet.PodRestartRequested";
    /**
     * A container failed its liveness or startup probe (failureThreshold results in a row), and the kubelet kills it to
     * start it again as the restart policy says. Readiness needs no event of its own: the status update shows it. Data:
     * {@link io.podfall.model.kubelet.ContainerProbeFailure}.
     */
    public static final String CONTAINER_PROBE_FAILED = "kubelet.ContainerProbeFailed";

    // --- runtime: CRI requests (sent by a kubelet) ---
    /** CRI RunPodSandbox. Data: {@link io.podfall.model.runtime.RunPodSandbox}. */
    public static final String RUN_POD_SANDBOX_REQUESTED = "runtime.RunPodSandboxRequested";
    /** CRI CreateContainer + StartContainer. Data: {@link io.podfall.model.runtime.ContainerRef}. */
    public static final String START_CONTAINER_REQUESTED = "runtime.StartContainerRequested";
    /** CRI StopContainer with a timeout. Data: {@link io.podfall.model.runtime.StopContainer}. */
    public static final String STOP_CONTAINER_REQUESTED = "runtime.StopContainerRequested";
    /** CRI StopPodSandbox. Data: {@link io.podfall.model.runtime.SandboxRef}. */
    public static final String STOP_POD_SANDBOX_REQUESTED = "runtime.StopPodSandboxRequested";
    /** CRI RemovePodSandbox (container GC / housekeeping). Data: {@link io.podfall.model.runtime.SandboxRef}. */
    public static final String REMOVE_POD_SANDBOX_REQUESTED = "runtime.RemovePodSandboxRequested";

    // --- runtime: what happened on the node ---
    /** CNI ADD: the pod got an IP from the node's pool. Data: {@link io.podfall.model.runtime.Sandbox}. */
    public static final String POD_IP_ALLOCATED = "runtime.PodIPAllocated";
    /** The sandbox runs. Data: {@link io.podfall.model.runtime.Sandbox}. */
    public static final String SANDBOX_STARTED = "runtime.SandboxStarted";
    /** A container's process runs. Data: {@link io.podfall.model.runtime.ContainerState}. */
    public static final String CONTAINER_STARTED = "runtime.ContainerStarted";
    /** A signal was delivered to a container's process. Data: {@link io.podfall.model.runtime.ContainerSignal}. */
    public static final String CONTAINER_SIGNALLED = "runtime.ContainerSignalled";
    /** A container's process exited. Data: {@link io.podfall.model.runtime.ContainerState}. */
    public static final String CONTAINER_EXITED = "runtime.ContainerExited";
    /** CNI DEL: the pod's IP went back to the pool. Data: {@link io.podfall.model.runtime.Sandbox}. */
    public static final String POD_IP_RELEASED = "runtime.PodIPReleased";
    /** The sandbox is stopped. Data: {@link io.podfall.model.runtime.Sandbox}. */
    public static final String SANDBOX_STOPPED = "runtime.SandboxStopped";
    /** A dead container was removed. Data: {@link io.podfall.model.runtime.ContainerState}. */
    public static final String CONTAINER_REMOVED = "runtime.ContainerRemoved";
    /**
     * The sandbox was removed: nothing of the pod is left on the node. Data: {@link io.podfall.model.runtime.Sandbox}.
     */
    public static final String SANDBOX_REMOVED = "runtime.SandboxRemoved";

    // --- host: what happened to a node's machine, outside Kubernetes (operator input: podfall node stop|start) ---
    /**
     * A node's machine stopped: the kubelet there is down or cut off from the API server, while the node's container
     * runtime keeps what runs. The kubelet acts for that node no more (no Lease renewal, no status, no pod decision)
     * until it starts. Source {@code /host/<node>}. Data: {@link io.podfall.model.host.NodeMachine}.
     */
    public static final String NODE_STOPPED = "host.NodeStopped";
    /**
     * A stopped node's machine started again: its kubelet finishes what it finds, as a restarted kubelet does. Source
     * {@code /host/<node>}. Data: {@link io.podfall.model.host.NodeMachine}.
     */
    public static final String NODE_STARTED = "host.NodeStarted";

    // --- csi: requests to a node's CSI plugin, which the kubelet's volume manager calls directly (not via CRI) ---
    /** CSI NodeStageVolume: mount a volume once on the node. Data: {@link io.podfall.model.csi.StagedVolume}. */
    public static final String NODE_STAGE_VOLUME_REQUESTED = "csi.NodeStageVolumeRequested";
    /** CSI NodePublishVolume: mount a volume into one pod. Data: {@link io.podfall.model.csi.NodePublishVolume}. */
    public static final String NODE_PUBLISH_VOLUME_REQUESTED = "csi.NodePublishVolumeRequested";
    /** CSI NodeUnpublishVolume: unmount a volume from one pod. Data: {@link io.podfall.model.csi.PublishedVolume}. */
    public static final String NODE_UNPUBLISH_VOLUME_REQUESTED = "csi.NodeUnpublishVolumeRequested";
    /** CSI NodeUnstageVolume: unmount a volume from the node. Data: {@link io.podfall.model.csi.StagedVolume}. */
    public static final String NODE_UNSTAGE_VOLUME_REQUESTED = "csi.NodeUnstageVolumeRequested";

    // --- csi: what the node's CSI plugin did ---
    /** A volume is staged on the node. Data: {@link io.podfall.model.csi.StagedVolume}. */
    public static final String VOLUME_STAGED = "csi.VolumeStaged";
    /** A volume is mounted into a pod. Data: {@link io.podfall.model.csi.PublishedVolume}. */
    public static final String VOLUME_PUBLISHED = "csi.VolumePublished";
    /** A volume is unmounted from a pod. Data: {@link io.podfall.model.csi.PublishedVolume}. */
    public static final String VOLUME_UNPUBLISHED = "csi.VolumeUnpublished";
    /** A volume is unmounted from the node, and kept. Data: {@link io.podfall.model.csi.StagedVolume}. */
    public static final String VOLUME_UNSTAGED = "csi.VolumeUnstaged";

    // --- proxy: what a node's kube-proxy programmed ---
    /**
     * A node's kube-proxy ended a sync that changed a Service's rules: from now on its node sends the Service's traffic
     * to these endpoints. One event per Service whose rules changed. Source {@code /proxy/<node>}. Data:
     * {@link io.podfall.model.proxy.ServiceRules}.
     */
    public static final String PROXY_RULES_SYNCED = "proxy.RulesSynced";

    // --- traffic: the clients of a Service under declared load ---
    /**
     * The requests a node's clients sent to a Service that ended within a window, succeeded and failed by reason.
     * Source {@code /traffic/<node>}. Data: {@link io.podfall.model.traffic.RequestCounts}.
     */
    public static final String REQUESTS_COUNTED = "traffic.RequestsCounted";
}
