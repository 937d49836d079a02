package io.podfall.controller.garbagecollector;

import io.podfall.model.SharedValues;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the {@link GarbageCollector} knows: the ownership {@link Graph} and its requests in flight, at most one per
 * object (upstream processes one item of its work queue at a time, and a client call returns before the next;
 * here the answer comes later on the log, so the state remembers the question until then).
 */
public final class GarbageCollectorState {
    private final Graph graph = new Graph();
    /** Requests in flight by the uid of the object they change. */
    private final Map<String, Request> inFlight = new HashMap<>();
    /** Request id → target uid, to find the request a fact or a rejection answers. */
    private final Map<String, String> targetOf = new HashMap<>();
    /**
     * Owner uid → how many objects in the graph name it with blockOwnerDeletion (the first reference to it decides),
     * by their namespace ("" if cluster-scoped), so that an owner deleted in foreground finds out whether anything
     * still blocks it without a walk over its dependents.
     */
    private final Map<String, Map<String, Integer>> blockers = new HashMap<>();
    /**
     * Owner uid → those blocking dependents an attempt may act on, by the number of their filing under the owner
     * (the graph's order): not deleting their own dependents, not being deleted unless orphaning theirs, and with no
     * request in flight. Attempting any other would decide nothing, so a foreground deletion's owner attempts only
     * these, and each fact about one of its dependents costs that fact, not a walk over every dependent.
     */
    private final Map<String, TreeMap<Long, String>> actionable = new HashMap<>();
    /** How each uid is counted in {@link #blockers} and filed in {@link #actionable}, to take it out again. */
    private final Map<String, Filed> filed = new HashMap<>();

    /** A node as indexed: the owner uids it blocks, and its filing under each where it is actionable. */
    private record Filed(String namespace, List<String> blocks, Map<String, Long> actionableUnder) {
    }

    /**
     * A request in flight: its event id, its target as the collector saw it when asking, and what it asks for, so
     * that the request also ends when a fact shows it done. The API server answers most requests with a fact caused
     * by them, but not all: a delete of an object already being deleted, or a patch that changes nothing, writes
     * nothing and so has no fact to answer with.
     */
    record Request(String id, String targetUid, String resourceVersion, Intent intent) {
    }

    /** What a request asks of its target. */
    sealed interface Intent {
        /** Whether the target, as a fact shows it, is as the request asked. */
        boolean doneIn(Node target);
    }

    /** Delete the object (with a uid precondition): done once it is being deleted. */
    record Delete() implements Intent {
        @Override
        public boolean doneIn(Node target) {
            return target.beingDeleted();
        }
    }

    /** Remove these owners from its ownerReferences. */
    record DeleteOwnerReferences(List<String> ownerUids) implements Intent {
        @Override
        public boolean doneIn(Node target) {
            return ownerUids.stream().allMatch(uid -> target.owner(uid).isEmpty());
        }
    }

    /** Remove this one finalizer. */
    record RemoveFinalizer(String finalizer) implements Intent {
        @Override
        public boolean doneIn(Node target) {
            return !target.finalizers().contains(finalizer);
        }
    }

    // --- queries ---

    /** Whether the object of this uid is in the graph: the API server holds it, as far as the log has told. */
    public boolean knows(String uid) {
        return graph.node(uid).isPresent();
    }

    /** Whether a request of the collector about the object of this uid awaits its answer. */
    public boolean hasRequestInFlight(String uid) {
        return inFlight.containsKey(uid);
    }

    Graph graph() {
        return graph;
    }

    /** Whether an object the owner may own blocks its deletion. */
    boolean hasBlockingDependents(Node owner) {
        Map<String, Integer> byNamespace = blockers.getOrDefault(owner.uid(), Map.of());
        return owner.clusterScoped() ? !byNamespace.isEmpty() : byNamespace.containsKey(owner.namespace());
    }

    /** The owner's blocking dependents an attempt may act on, in the order the graph lists dependents. */
    List<String> actionableBlockingDependents(Node owner) {
        return actionable.getOrDefault(owner.uid(), new TreeMap<>()).values().stream()
                .filter(uid -> owner.mayOwn(graph.node(uid).orElseThrow())).toList();
    }

    // --- changes ---

    void sent(Request request) {
        inFlight.put(request.targetUid(), request);
        targetOf.put(request.id(), request.targetUid());
        refile(request.targetUid());
    }

    /** Ends the request with this id, if it is in flight, and returns it. */
    Optional<Request> answered(String requestId) {
        String target = requestId == null ? null : targetOf.remove(requestId);
        Optional<Request> request = Optional.ofNullable(target == null ? null : inFlight.remove(target));
        request.ifPresent(r -> refile(r.targetUid()));
        return request;
    }

    /**
     * The graph changed the object of this uid: ends the request about it if the graph shows it done, or the object
     * gone, and files it anew among the blocking dependents of its owners.
     */
    void settle(String uid) {
        Request request = inFlight.get(uid);
        if (request != null && graph.node(uid).map(request.intent()::doneIn).orElse(true)) {
            answered(request.id());
        }
        refile(uid);
    }

    /** Brings {@link #blockers} and {@link #actionable} in line with the object's node and its request in flight. */
    private void refile(String uid) {
        Filed before = filed.remove(uid);
        if (before != null) {
            before.blocks().forEach(owner -> count(owner, before.namespace(), -1));
            before.actionableUnder().forEach((owner, filing) -> {
                TreeMap<Long, String> of = actionable.get(owner);
                of.remove(filing);
                if (of.isEmpty()) {
                    actionable.remove(owner);
                }
            });
        }
        Optional<Node> node = graph.node(uid);
        if (node.isEmpty()) {
            return;
        }
        Node n = node.get();
        boolean acts = !inFlight.containsKey(uid) && !n.isDeletingDependents() && (!n.beingDeleted() || n.isOrphaningDependents());
        String namespace = n.clusterScoped() ? "" : n.namespace();
        List<String> blocks = n.owners().stream().map(Node.Owner::uid).distinct()
                .filter(owner -> n.owner(owner).orElseThrow().blockOwnerDeletion()).toList();
        Map<String, Long> actionableUnder = new HashMap<>();
        for (String owner : blocks) {
            count(owner, namespace, 1);
            if (acts) {
                Long filing = graph.filing(owner, uid).orElseThrow(); // the graph's own Long, not a box of its own
                actionable.computeIfAbsent(owner, o -> new TreeMap<>()).put(filing, uid);
                actionableUnder.put(owner, filing);
            }
        }
        // Kept for every object in the graph: an immutable copy is the shared empty map or a one-entry one, where
        // the HashMap took 130 bytes more an object (JOL, 10,000 pods); the pods of a ReplicaSet block it alike.
        filed.put(uid, new Filed(namespace, SharedValues.shared(blocks), Map.copyOf(actionableUnder)));
    }

    private void count(String owner, String namespace, int delta) {
        Map<String, Integer> byNamespace = blockers.computeIfAbsent(owner, o -> new HashMap<>());
        byNamespace.merge(namespace, delta, (a, b) -> a + b == 0 ? null : a + b);
        if (byNamespace.isEmpty()) {
            blockers.remove(owner);
        }
    }
}
