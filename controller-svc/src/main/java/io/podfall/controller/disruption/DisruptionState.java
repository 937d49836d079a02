package io.podfall.controller.disruption;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.podfall.controller.PodUtil;
import io.podfall.controller.WorkQueue;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the {@link DisruptionController} knows: its informer caches of PodDisruptionBudgets, pods, ReplicaSets and
 * Deployments (the last two only for their scale and controller), and its status writes in flight with the rate limit
 * of its retries ({@link WorkQueue}). Only the controller changes it.
 */
public final class DisruptionState {
    /** Every budget, by {@code namespace/name}, in key order (the order a pod's budgets are synced in). */
    private final Map<String, PodDisruptionBudget> pdbs = new TreeMap<>();
    /** Every pod, by namespace, then name. */
    private final Map<String, Map<String, BudgetedPod>> pods = new HashMap<>();
    /** Every ReplicaSet and Deployment, by uid. */
    private final Map<String, Scalable> workloads = new HashMap<>();

    private final WorkQueue requests = new WorkQueue("disruption");

    /**
     * What a budget reads of a pod.
     *
     * @param controller its controller reference ({@code ownerReferences[controller=true]}), null if it has none
     * @param terminating it has a deletionTimestamp
     * @param ready its Ready condition is True ({@code IsPodReady})
     */
    record BudgetedPod(String name, Map<String, String> labels, Owner controller, boolean terminating, boolean ready) {

        static BudgetedPod of(JsonNode pod) {
            JsonNode meta = pod.path("metadata");
            return new BudgetedPod(
                    meta.path("name").asText(),
                    PodUtil.labels(pod),
                    Owner.controllerOf(meta),
                    meta.hasNonNull("deletionTimestamp"),
                    PodUtil.readyCondition(pod) != null);
        }
    }

    /** An owner reference: the kind, name and uid of the controller. */
    record Owner(String kind, String name, String uid) {
        /** {@code metav1.GetControllerOf}. */
        static Owner controllerOf(JsonNode meta) {
            for (JsonNode ref : meta.path("ownerReferences")) {
                if (ref.path("controller").asBoolean(false)) {
                    return new Owner(
                            ref.path("kind").asText(),
                            ref.path("name").asText(),
                            ref.path("uid").asText());
                }
            }
            return null;
        }
    }

    /** A workload that scales pods: its kind, name, {@code spec.replicas} and its own controller (or null). */
    record Scalable(String kind, String name, int replicas, Owner controller) {}

    Optional<PodDisruptionBudget> pdb(String key) {
        return Optional.ofNullable(pdbs.get(key));
    }

    /** The budgets of a namespace, in key order. */
    List<PodDisruptionBudget> pdbsIn(String namespace) {
        return pdbs.values().stream()
                .filter(p -> namespace.equals(p.getMetadata().getNamespace()))
                .toList();
    }

    /** The pods of a namespace, in name order. */
    List<BudgetedPod> podsIn(String namespace) {
        return List.copyOf(new TreeMap<>(pods.getOrDefault(namespace, Map.of())).values());
    }

    Optional<BudgetedPod> pod(String namespace, String name) {
        return Optional.ofNullable(pods.getOrDefault(namespace, Map.of()).get(name));
    }

    Optional<Scalable> workload(String uid) {
        return Optional.ofNullable(workloads.get(uid));
    }

    WorkQueue requests() {
        return requests;
    }

    // --- changes ---

    void putPdb(String key, PodDisruptionBudget pdb) {
        pdbs.put(key, pdb);
    }

    /** The budget is gone: so is everything the controller waited for on its behalf. */
    void removePdb(String key) {
        pdbs.remove(key);
        requests.forget(key);
    }

    void putPod(String namespace, BudgetedPod pod) {
        pods.computeIfAbsent(namespace, n -> new HashMap<>()).put(pod.name(), pod);
    }

    void removePod(String namespace, String name) {
        Map<String, BudgetedPod> inNamespace = pods.get(namespace);
        if (inNamespace != null) {
            inNamespace.remove(name);
            if (inNamespace.isEmpty()) {
                pods.remove(namespace);
            }
        }
    }

    void putWorkload(String uid, Scalable workload) {
        workloads.put(uid, workload);
    }

    void removeWorkload(String uid) {
        workloads.remove(uid);
    }
}
