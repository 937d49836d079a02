package io.podfall.controller.replicaset;

import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.podfall.controller.CachedPod;
import io.podfall.controller.ControllerRefs;
import io.podfall.controller.WorkQueue;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the {@link ReplicaSetController} knows: its informer caches of ReplicaSets and of the pods they control, its
 * requests in flight with the rate limit of its retries ({@link WorkQueue}) and the last failure of each ReplicaSet's
 * pod management (its {@code ReplicaFailure} condition). Only the controller changes it; the methods keep the index of
 * pods by controller in step with the pods.
 */
public final class ReplicaSetState {
    /** Every ReplicaSet the API server holds, by {@code namespace/name}. */
    private final Map<String, ReplicaSet> replicaSets = new HashMap<>();
    /** The key of each cached ReplicaSet, by uid (pods name their controller by uid). */
    private final Map<String, String> keysByUid = new HashMap<>();
    /** Every pod controlled by a ReplicaSet (known or not), by uid; a pod controlled by nothing is never adopted. */
    private final Map<String, CachedPod> pods = new HashMap<>();
    /** The pods each ReplicaSet uid controls, with the tallies of its status. */
    private final Map<String, ControlledPods> podsByController = new HashMap<>();
    /** What a ReplicaSet that controls no pod controls; never changed. */
    private static final ControlledPods NONE = new ControlledPods();

    private final WorkQueue requests = new WorkQueue("replicaset");
    /** The request that failed last for each ReplicaSet, until one of its pod requests succeeds again. */
    private final Map<String, Failure> failures = new HashMap<>();

    /** Why managing a ReplicaSet's pods failed: reason {@code FailedCreate} or {@code FailedDelete}, and when. */
    public record Failure(String reason, String message, Instant since) {}

    public Optional<ReplicaSet> replicaSet(String key) {
        return Optional.ofNullable(replicaSets.get(key));
    }

    public Optional<String> keyOf(String replicaSetUid) {
        return Optional.ofNullable(keysByUid.get(replicaSetUid));
    }

    /** The pods the ReplicaSet of this uid controls (none if it controls none). */
    ControlledPods podsControlledBy(String replicaSetUid) {
        return podsByController.getOrDefault(replicaSetUid, NONE);
    }

    /** The cached ReplicaSets in the namespace with the given controller (their "siblings"). */
    List<ReplicaSet> replicaSetsControlledBy(String namespace, String controllerUid) {
        return new TreeMap<>(replicaSets)
                .values().stream()
                        .filter(rs -> namespace.equals(rs.getMetadata().getNamespace()))
                        .filter(rs -> ControllerRefs.controllerOf(rs)
                                .map(r -> controllerUid.equals(r.getUid()))
                                .orElse(false))
                        .toList();
    }

    public Optional<CachedPod> pod(String uid) {
        return Optional.ofNullable(pods.get(uid));
    }

    public WorkQueue requests() {
        return requests;
    }

    Optional<Failure> failure(String key) {
        return Optional.ofNullable(failures.get(key));
    }

    // --- changes ---

    void putReplicaSet(String key, ReplicaSet rs) {
        ReplicaSet before = replicaSets.put(key, rs);
        if (before != null) {
            keysByUid.remove(before.getMetadata().getUid());
        }
        keysByUid.put(rs.getMetadata().getUid(), key);
    }

    /** The ReplicaSet is gone: so is everything the controller remembered for it. Its pods stay until they go. */
    void removeReplicaSet(String key) {
        ReplicaSet gone = replicaSets.remove(key);
        if (gone != null) {
            keysByUid.remove(gone.getMetadata().getUid());
        }
        requests.forget(key);
        failures.remove(key);
    }

    /** Caches the pod under its controlling ReplicaSet, or forgets it if a ReplicaSet no longer controls it. */
    void putPod(CachedPod pod) {
        removePod(pod.uid());
        if (pod.controllerUid() != null) {
            pods.put(pod.uid(), pod);
            podsByController
                    .computeIfAbsent(pod.controllerUid(), c -> new ControlledPods())
                    .put(pod);
        }
    }

    void removePod(String uid) {
        CachedPod gone = pods.remove(uid);
        if (gone != null) {
            ControlledPods siblings = podsByController.get(gone.controllerUid());
            siblings.remove(uid);
            if (siblings.isEmpty()) {
                podsByController.remove(gone.controllerUid());
            }
        }
    }

    void fail(String key, Failure failure) {
        failures.put(key, failure);
    }

    void recovered(String key) {
        failures.remove(key);
    }
}
