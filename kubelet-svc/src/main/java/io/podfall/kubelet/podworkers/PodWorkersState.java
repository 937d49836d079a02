package io.podfall.kubelet.podworkers;

import io.fabric8.kubernetes.api.model.Node;
import io.podfall.kubelet.volumemanager.VolumeManager;
import io.podfall.model.RecentlyUsed;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the kubelet knows: its informer caches, its pod workers, its eviction manager's pressures and its volume
 * manager. Changed only by the {@link PodWorkers} part and the pieces it is made of (the {@link EvictionManager}, the
 * {@link Pleg}, ...): each acts on the workers, so they share one state.
 */
public final class PodWorkersState {
    /**
     * About the pods in the midst of their start or deletion at a thousand pods a second, a second or so each. Each
     * decoded pod is some 6 KB of heap: 4,096 held 25 MB, and the heap is sized while the pods are created.
     */
    static final int DECODED_PODS = 1_024;

    /**
     * Informer cache: the UIDs of the pods bound to one of this kubelet's nodes that the API server holds. Each one's
     * latest version is its worker's pod, read through {@link #recent}.
     */
    final Set<String> pods = new HashSet<>();
    /** Informer cache: this kubelet's Node objects as the API server stored them, by name. */
    final Map<String, Node> nodes = new HashMap<>();
    /** The eviction manager: the resource each node under pressure is low on, by node name. */
    final Map<String, String> pressure = new HashMap<>();
    /** One pod worker per pod UID, from the first sight of the pod until it is forgotten. */
    final Map<String, PodWorker> workers = new HashMap<>();
    /** UIDs whose worker finished and was forgotten: a late or repeated update must never start them again. */
    final Set<String> forgotten = new HashSet<>();
    /** The volume manager: the pods' CSI volumes, wanted and mounted. */
    final VolumeManager volumeManager = new VolumeManager();
    /**
     * The workers whose pods were used most recently, by pod UID, their pods decoded; every other worker keeps its pod
     * as its compressed JSON ({@link io.podfall.model.CompressedJson}), some 300 bytes against 5 KB of heap for a
     * fabric8 {@code Pod} (at 100,000 pods held, 30 MB against 500; 130 MB as plain JSON). A deletion reads its pod
     * through the worker at each of its steps, a few within a second, while most pods of a kubelet are at rest: each is
     * encoded once when it leaves this set and decoded once when it is used again. Only how a pod is held depends on
     * this set, never what the kubelet decides.
     */
    final RecentlyUsed<String, PodWorker> recent;

    PodWorkersState() {
        this(DECODED_PODS);
    }

    /** A state whose workers keep at most {@code decodedPods} pods decoded. */
    PodWorkersState(int decodedPods) {
        recent = new RecentlyUsed<>(decodedPods, PodWorker::encodePod);
    }

    /** Whether the informer cache holds the pod of this UID. */
    public boolean hasPod(String uid) {
        return pods.contains(uid);
    }

    public Optional<PodWorker> worker(String uid) {
        return Optional.ofNullable(workers.get(uid));
    }

    /** The worker of a pod UID on that node; null for anything else (a fact of another node's pod). */
    PodWorker workerOn(String node, String uid) {
        PodWorker w = uid == null ? null : workers.get(uid);
        return w != null && w.node.equals(node) ? w : null;
    }

    /** Every pod worker, finished or not, by pod UID: what {@code podfall state} shows of a kubelet. */
    public Map<String, PodWorker> workers() {
        return Collections.unmodifiableMap(workers);
    }

    public boolean isRegistered(String node) {
        return nodes.containsKey(node);
    }

    public boolean isForgotten(String uid) {
        return forgotten.contains(uid);
    }
}
