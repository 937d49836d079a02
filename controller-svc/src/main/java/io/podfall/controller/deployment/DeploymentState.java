package io.podfall.controller.deployment;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.podfall.controller.CachedPod;
import io.podfall.controller.ControllerRefs;
import io.podfall.controller.WorkQueue;
import io.podfall.model.SharedValues;
import io.podfall.model.k8s.ResourceType;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the {@link DeploymentController} knows: its caches of Deployments, of every ReplicaSet (a new one's name may be
 * taken by any), and of the pods of ReplicaSets (whether each has finished: a Recreate rollout waits for the old ones),
 * with its requests in flight and the rate limit of its retries. The methods keep the indexes by controller and the
 * counts of unfinished pods in step with the caches.
 */
public final class DeploymentState {
    /** Every Deployment, by {@code namespace/name}. */
    private final Map<String, Deployment> deployments = new HashMap<>();

    private final Map<String, String> deploymentKeysByUid = new HashMap<>();
    /** Every ReplicaSet, by {@code namespace/name}. */
    private final Map<String, ReplicaSet> replicaSets = new HashMap<>();
    /** The keys of the ReplicaSets each Deployment uid controls, in key order. */
    private final Map<String, Set<String>> replicaSetsByController = new HashMap<>();

    private final Map<String, ReplicaSet> replicaSetsByUid = new HashMap<>();
    /** Every pod controlled by a ReplicaSet, by uid: the ReplicaSet's uid, and whether it has finished. */
    private final Map<String, PodOfReplicaSet> pods = new HashMap<>();
    /** How many of those pods have not finished, by ReplicaSet uid (absent: none). */
    private final Map<String, Integer> unfinishedByReplicaSet = new HashMap<>();

    private final WorkQueue requests = new WorkQueue("deployment");

    /** A pod as a Recreate rollout sees it. */
    record PodOfReplicaSet(String replicaSetUid, boolean finished) {}

    public Optional<Deployment> deployment(String key) {
        return Optional.ofNullable(deployments.get(key));
    }

    public Optional<ReplicaSet> replicaSet(String key) {
        return Optional.ofNullable(replicaSets.get(key));
    }

    /** The ReplicaSets the Deployment of this uid controls, in key order. */
    List<ReplicaSet> replicaSetsControlledBy(String deploymentUid) {
        return replicaSetsByController.getOrDefault(deploymentUid, Set.of()).stream()
                .map(replicaSets::get)
                .toList();
    }

    /** The key of the Deployment that controls the ReplicaSet, if it is cached. */
    Optional<String> controllerKey(ReplicaSet rs) {
        return ControllerRefs.controllerUid(rs, ResourceType.DEPLOYMENTS).map(deploymentKeysByUid::get);
    }

    /** The key of the Deployment that controls the ReplicaSet of this uid, if both are cached. */
    Optional<String> controllerKeyOfReplicaSet(String replicaSetUid) {
        return Optional.ofNullable(replicaSetsByUid.get(replicaSetUid)).flatMap(this::controllerKey);
    }

    /** Whether a pod of the ReplicaSet of this uid has not finished (a terminating one has not). */
    boolean podsRunning(String replicaSetUid) {
        return unfinishedByReplicaSet.containsKey(replicaSetUid);
    }

    Optional<PodOfReplicaSet> pod(String uid) {
        return Optional.ofNullable(pods.get(uid));
    }

    public WorkQueue requests() {
        return requests;
    }

    // --- changes ---

    void putDeployment(String key, Deployment d) {
        deployments.put(key, d);
        deploymentKeysByUid.put(d.getMetadata().getUid(), key);
    }

    /** The Deployment is gone, and what the controller waited for with it. Its ReplicaSets stay until they go. */
    void removeDeployment(String key) {
        Deployment gone = deployments.remove(key);
        if (gone != null) {
            deploymentKeysByUid.remove(gone.getMetadata().getUid());
        }
        requests.forget(key);
    }

    void putReplicaSet(String key, ReplicaSet rs) {
        removeReplicaSet(key);
        replicaSets.put(key, rs);
        replicaSetsByUid.put(rs.getMetadata().getUid(), rs);
        ControllerRefs.controllerUid(rs, ResourceType.DEPLOYMENTS)
                .ifPresent(owner -> replicaSetsByController
                        .computeIfAbsent(owner, o -> new TreeSet<>())
                        .add(key));
    }

    void removeReplicaSet(String key) {
        ReplicaSet gone = replicaSets.remove(key);
        if (gone == null) {
            return;
        }
        replicaSetsByUid.remove(gone.getMetadata().getUid());
        ControllerRefs.controllerUid(gone, ResourceType.DEPLOYMENTS).ifPresent(owner -> {
            Set<String> siblings = replicaSetsByController.get(owner);
            siblings.remove(key);
            if (siblings.isEmpty()) {
                replicaSetsByController.remove(owner);
            }
        });
    }

    void putPod(CachedPod pod) {
        removePod(pod.uid());
        if (pod.controllerUid() != null) {
            // Two values a ReplicaSet, one instance each for all its pods (24 bytes a pod).
            PodOfReplicaSet cached = SharedValues.shared(new PodOfReplicaSet(
                    pod.controllerUid(), "Succeeded".equals(pod.phase()) || "Failed".equals(pod.phase())));
            pods.put(pod.uid(), cached);
            countUnfinished(cached, 1);
        }
    }

    void removePod(String uid) {
        PodOfReplicaSet gone = pods.remove(uid);
        if (gone != null) {
            countUnfinished(gone, -1);
        }
    }

    private void countUnfinished(PodOfReplicaSet pod, int delta) {
        if (!pod.finished()) {
            unfinishedByReplicaSet.merge(pod.replicaSetUid(), delta, (a, b) -> a + b == 0 ? null : a + b);
        }
    }
}
