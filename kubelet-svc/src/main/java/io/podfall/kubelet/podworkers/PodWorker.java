package io.podfall.kubelet.podworkers;

import static io.podfall.model.SharedStrings.shared;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.podfall.model.CompressedJson;
import io.podfall.model.Json;
import io.podfall.model.RecentlyUsed;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;

/** The worker of one pod UID: the last known pod, its sync status and the runtime's view of its sandbox. */
public final class PodWorker {

    /** CRI PodSandboxState: READY once started, NOTREADY once stopped. */
    public enum SandboxState {
        READY,
        NOTREADY
    }

    final String uid;
    final String node;
    private final String namespace;
    private final String name;
    /**
     * The most recent version of the pod (upstream activeUpdate.Pod), kept after the pod left the API server; null
     * while it is held as {@link #podJson} instead (see {@link PodWorkersState#recent}).
     */
    private Pod pod;
    /** The pod's JSON, compressed ({@link CompressedJson}), while it is not decoded; null while it is. */
    private byte[] podJson;

    private final RecentlyUsed<String, PodWorker> recent;
    final PodSyncStatus status;
    /** The pod left the API server before the worker finished: no status to write, nothing left to delete. */
    boolean orphan;
    /**
     * Known only from the runtime's facts, never from the API server (its pod has a UID, a namespace, a name and a
     * node, no spec): housekeeping tears it down. Such a worker is an orphan from the start.
     */
    boolean runtimeOnly;
    /** Null until the runtime reports the sandbox started. */
    SandboxState sandbox;

    String sandboxId;
    String podIP;
    /** The prober's workers of the pod and what they know; null for a pod without probes (most). */
    PodProbes probes;
    /** StopPodSandbox was asked for; asked once. */
    boolean sandboxStopRequested;
    /** The id of the status manager's request for the pod's final status; null until it is asked for. */
    String finalStatusRequestId;
    /** The final status was asked for and the API server has not yet stored it (its PodStatusUpdated). */
    boolean finalStatusPending;
    /** The status manager's final delete was asked for; asked once. */
    boolean finalDeleteRequested;
    /** The kill's PodStatusFunc (an eviction's), applied to every status written from the start of termination. */
    Consumer<PodStatus> podStatusFunc;
    /** When the worker's last sync ended (upstream's lastSyncTime); null before its first. */
    Instant lastSyncAt;
    /**
     * When the worker's next sync, of the terminating or the terminated pod, may run: the PLEG's next relist after its
     * last sync; null when it waits for none. The kill it waits to start is {@link #pendingKill}.
     */
    Instant syncDueAt;
    /** The options of a kill whose terminating sync waits for {@link #syncDueAt}; null for none. */
    KillPodOptions pendingKill;
    /**
     * When the PLEG's next relist sees what the runtime did to the running pod (a container started or exited by
     * itself); null when nothing waits for it. What it will see: {@link #runningStatusPending} and
     * {@link #exitsPending}.
     */
    Instant relistDueAt;
    /** Every container runs: the next relist has the status manager report the pod Running. */
    boolean runningStatusPending;
    /**
     * Containers that exited by themselves, by name: the next relist's sync restarts them or ends the pod. Null while
     * there are none (most workers never have any).
     */
    List<String> exitsPending;
    /**
     * The containers asked to start, in spec order, one a name: a list searched by name, as a pod has a few (a
     * LinkedHashMap by name took some 140 bytes more a pod, 14 MB of a kubelet's heap at 100,000 pods).
     */
    private final List<RuntimeContainer> containers = new ArrayList<>(1);

    PodWorker(Pod pod, Instant now, RecentlyUsed<String, PodWorker> recent) {
        this.uid = pod.getMetadata().getUid();
        this.node = shared(pod.getSpec().getNodeName());
        this.namespace = shared(pod.getMetadata().getNamespace());
        this.name = pod.getMetadata().getName();
        this.status = new PodSyncStatus(now);
        this.recent = recent;
        pod(pod);
    }

    String namespace() {
        return namespace;
    }

    String name() {
        return name;
    }

    /** The source of what the kubelet emits about the pod: the kubelet of its node. */
    String source() {
        return "/kubelet/" + node;
    }

    String subject() {
        return Subjects.of(namespace, ResourceType.PODS.plural(), name);
    }

    /** Hands the worker the pod's latest version. */
    void pod(Pod latest) {
        pod = latest;
        podJson = null;
        recent.used(uid, this);
    }

    /**
     * Keeps the pod as its compressed JSON only: {@link PodWorkersState#recent} does this to the worker used least
     * recently.
     */
    void encodePod() {
        if (pod != null) {
            podJson = CompressedJson.compress(Json.bytes(pod));
            pod = null;
        }
    }

    boolean hasContainersThatCouldBeRunning() {
        return containers.stream().anyMatch(RuntimeContainer::couldBeRunning);
    }

    /** The container of that name, null if none was asked for. */
    RuntimeContainer container(String name) {
        for (RuntimeContainer c : containers) {
            if (c.name.equals(name)) {
                return c;
            }
        }
        return null;
    }

    /** Keeps the container, in place of the one of its name if there is one. */
    void putContainer(RuntimeContainer container) {
        for (int i = 0; i < containers.size(); i++) {
            if (containers.get(i).name.equals(container.name)) {
                containers.set(i, container);
                return;
            }
        }
        containers.add(container);
    }

    /** The most recent version of the pod the worker knows, decoded again if it was held as its JSON. */
    public Pod pod() {
        if (pod == null) {
            pod = Json.read(CompressedJson.decompress(podJson), Pod.class);
            podJson = null;
        }
        recent.used(uid, this);
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

    public List<RuntimeContainer> containers() {
        return Collections.unmodifiableList(containers);
    }
}
