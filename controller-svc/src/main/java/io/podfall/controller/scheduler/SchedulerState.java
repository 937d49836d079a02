package io.podfall.controller.scheduler;

import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the {@link Scheduler} knows: its cache of nodes and pods (upstream {@code pkg/scheduler/backend/cache}), the
 * bindings in flight, and the queue of pods that wait for a node. Only the scheduler changes it, through the methods
 * below, which keep the derived indexes ({@code podsOnNode}, {@code byLoad}, {@code queue}) in step.
 */
public final class SchedulerState {
    /** Every node the API server holds, by name; name order breaks ties between equally loaded nodes. */
    private final TreeMap<String, CachedNode> nodes = new TreeMap<>();
    /** Every pod the API server holds that has not finished (phase Succeeded/Failed leaves the cache), by uid. */
    private final Map<String, CachedPod> pods = new HashMap<>();
    /** Bindings in flight ("assumed" pods), by pod uid: set when we ask, gone when the API server answers. */
    private final Map<String, Assumption> assumed = new HashMap<>();
    /**
     * What the pods bound or assumed to each node take of it (upstream NodeInfo's Pods and Requested): a terminating
     * pod counts until it is removed or finished, as upstream's cache keeps it.
     */
    private final Map<String, Usage> usage = new HashMap<>();
    /**
     * The nodes of {@code nodes} by how many pods are bound or assumed to each, then by name: the least loaded node a
     * pod fits on is the first of them it fits on, where a scan of every node for every pod placed was 4 to 9 % of the
     * controller manager's samples in replays of P2's logs, over 100 nodes (P4 has 1,000).
     */
    private final TreeSet<NodeLoad> byLoad =
            new TreeSet<>(Comparator.comparingInt(NodeLoad::pods).thenComparing(NodeLoad::name));
    /** Pods waiting for a node, by arrival number: the oldest pod is placed first. */
    private final TreeMap<Long, String> queue = new TreeMap<>();
    /** What each pod's PodScheduled condition says it is Unschedulable for, as last written, by uid. */
    private final Map<String, Unschedulable> unschedulable = new HashMap<>();
    /** Pods cached so far: the arrival number of the next new pod. */
    private long arrivals;

    /**
     * A node as the scheduler sees it. {@code allocatable} and {@code allocatablePods} are its
     * {@code status.allocatable}; a resource it does not report does not limit it (a node created by hand), where
     * upstream would count it as 0.
     */
    record CachedNode(
            String name,
            String resourceVersion,
            boolean unschedulable,
            Map<String, String> labels,
            List<Taint> taints,
            Resources allocatable,
            long allocatablePods) {}

    /** A pod as the scheduler sees it; {@code arrival} orders the queue and never changes for a uid. */
    record CachedPod(
            String uid,
            String namespace,
            String name,
            String resourceVersion,
            String nodeName,
            boolean deleting,
            String schedulerName,
            Requirements requirements,
            long arrival) {
        boolean assigned() {
            return nodeName != null && !nodeName.isEmpty();
        }
    }

    /**
     * What the filters ask of a node for a pod: its requests, node selector and affinity, tolerations. Pods of one
     * template share one instance ({@link io.podfall.model.SharedValues}), and a pass decides once for them all.
     */
    record Requirements(Resources requests, NodeAffinity affinity, List<Toleration> tolerations) {}

    /** What the pods on a node take of it: how many, and the sum of their requests. */
    record Usage(int pods, Resources requested) {
        static final Usage NONE = new Usage(0, Resources.NONE);

        Usage plus(Resources requests, int sign) {
            return new Usage(pods + sign, sign > 0 ? requested.plus(requests) : requested.minus(requests));
        }
    }

    /** The pod's PodScheduled condition as the scheduler wrote it: its message, and since when it is False. */
    record Unschedulable(String message, Instant since) {}

    private record NodeLoad(int pods, String name) {}

    /** A binding in flight: the node we asked for and the id of our BindingRequested event. */
    record Assumption(String nodeName, String bindingId) {}

    // --- queries ---

    public Optional<String> assumedNode(String podUid) {
        return Optional.ofNullable(assumed.get(podUid)).map(Assumption::nodeName);
    }

    /** The pods waiting for a node, oldest first. */
    public List<String> queue() {
        return List.copyOf(queue.values());
    }

    /** Pods bound or assumed to the node. */
    public int podsOn(String nodeName) {
        return usage(nodeName).pods();
    }

    /** What the pods bound or assumed to the node take of it. */
    Usage usage(String nodeName) {
        return usage.getOrDefault(nodeName, Usage.NONE);
    }

    public boolean knowsPod(String podUid) {
        return pods.containsKey(podUid);
    }

    Optional<CachedPod> pod(String uid) {
        return Optional.ofNullable(pods.get(uid));
    }

    Optional<CachedNode> node(String name) {
        return Optional.ofNullable(nodes.get(name));
    }

    /**
     * The node that passes every filter for the pod, with the fewest pods bound or assumed, the first by name among
     * equals: the first of {@code byLoad} that fits, so a pod that fits the least loaded node costs one check.
     */
    Optional<String> leastLoadedNodeFor(CachedPod pod) {
        Optional<Set<String>> only = pod.requirements().affinity().preFilterNodeNames();
        for (NodeLoad load : byLoad) {
            CachedNode node = nodes.get(load.name());
            if (only.map(names -> names.contains(node.name())).orElse(true)
                    && Filters.run(node, usage(node.name()), pod).isEmpty()) {
                return Optional.of(node.name());
            }
        }
        return Optional.empty();
    }

    /** The pod whose binding in flight has this id. */
    Optional<String> podAssumedBy(String bindingId) {
        return assumed.entrySet().stream()
                .filter(e -> e.getValue().bindingId().equals(bindingId))
                .map(Map.Entry::getKey)
                .findFirst();
    }

    long nextArrival() {
        return arrivals;
    }

    // --- changes ---

    void putNode(CachedNode node) {
        if (nodes.put(node.name(), node) == null) {
            byLoad.add(load(node.name()));
        }
    }

    void removeNode(String name) {
        if (nodes.remove(name) != null) {
            byLoad.remove(load(name));
        }
    }

    /** Caches the pod as stored; a pod that shows a node is bound, which confirms (ends) its assumption. */
    void putPod(CachedPod pod) {
        String placed = placement(pod.uid());
        CachedPod before = pods.put(pod.uid(), pod);
        if (before == null) {
            arrivals++;
        }
        if (pod.assigned()) {
            assumed.remove(pod.uid());
            unschedulable.remove(pod.uid());
        }
        reindex(pod.uid(), placed, before);
    }

    void removePod(String uid) {
        String placed = placement(uid);
        CachedPod gone = pods.remove(uid);
        assumed.remove(uid);
        unschedulable.remove(uid);
        queue.remove(gone.arrival());
        reindex(uid, placed, gone);
    }

    /** What the pod's PodScheduled condition says, as the scheduler last wrote it. */
    Optional<Unschedulable> unschedulable(String uid) {
        return Optional.ofNullable(unschedulable.get(uid));
    }

    void reportUnschedulable(String uid, Unschedulable condition) {
        unschedulable.put(uid, condition);
    }

    /** Every node, in name order. */
    List<CachedNode> nodes() {
        return List.copyOf(nodes.values());
    }

    void assume(String uid, String nodeName, String bindingId) {
        String placed = placement(uid);
        assumed.put(uid, new Assumption(nodeName, bindingId));
        reindex(uid, placed, pods.get(uid));
    }

    void forget(String uid) {
        String placed = placement(uid);
        assumed.remove(uid);
        reindex(uid, placed, pods.get(uid));
    }

    /**
     * The node the pod is counted on: the one it is bound to, else the one it is assumed to; null for neither (or a pod
     * not cached). Derived, not kept: a map of it held a node name a pod, some 40 bytes.
     */
    private String placement(String uid) {
        CachedPod pod = pods.get(uid);
        Assumption assumption = assumed.get(uid);
        return pod == null ? null : pod.assigned() ? pod.nodeName() : assumption == null ? null : assumption.nodeName();
    }

    /**
     * Brings usage and queue in line with the pod's entry in {@code pods} and {@code assumed}, which a change has just
     * made; the pod was counted on {@code placed} with the requests of {@code before} (null: it was not cached).
     */
    private void reindex(String uid, String placed, CachedPod before) {
        CachedPod pod = pods.get(uid);
        String node = placement(uid);
        Resources was = before == null ? Resources.NONE : before.requirements().requests();
        Resources is = pod == null ? Resources.NONE : pod.requirements().requests();
        if (!Objects.equals(placed, node) || !was.equals(is)) {
            count(placed, was, -1);
            count(node, is, 1);
        }
        if (pod != null) {
            if (node == null && Scheduler.waitsForNode(pod)) {
                queue.put(pod.arrival(), uid);
            } else {
                queue.remove(pod.arrival());
            }
        }
    }

    private void count(String nodeName, Resources requests, int sign) {
        if (nodeName == null) {
            return;
        }
        boolean known = nodes.containsKey(nodeName);
        if (known) {
            byLoad.remove(load(nodeName));
        }
        Usage updated = usage(nodeName).plus(requests, sign);
        if (updated.pods() == 0) {
            usage.remove(nodeName);
        } else {
            usage.put(nodeName, updated);
        }
        if (known) {
            byLoad.add(load(nodeName));
        }
    }

    private NodeLoad load(String nodeName) {
        return new NodeLoad(podsOn(nodeName), nodeName);
    }
}
