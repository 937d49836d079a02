package io.podfall.controller.garbagecollector;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the {@link GarbageCollector} knows: the ownership {@link Graph} and its requests in flight, at most one per
 * object (upstream processes one item of its work queue at a time, and a client call returns before the next; here the
 * answer comes later on the log, so the state remembers the question until then).
 */
public final class GarbageCollectorState {
    private final Graph graph = new Graph();
    /** Requests in flight by the uid of the object they change. */
    private final Map<String, Request> inFlight = new HashMap<>();
    /** Request id → target uid, to find the request a fact or a rejection answers. */
    private final Map<String, String> targetOf = new HashMap<>();
    /**
     * Owner uid → how many objects in the graph name it with blockOwnerDeletion (the first reference to it decides), by
     * their namespace ("" if cluster-scoped), so that an owner deleted in foreground finds out whether anything still
     * blocks it without a walk over its dependents.
     */
    private final Map<String, Map<String, Integer>> blockers = new HashMap<>();
    /**
     * Owner uid → those blocking dependents an attempt may act on, by the number of their filing under the owner (the
     * graph's order): not deleting their own dependents, not being deleted unless orphaning theirs, and with no request
     * in flight. Attempting any other would decide nothing, so a foreground deletion's owner attempts only these, and
     * each fact about one of its dependents costs that fact, not a walk over every dependent.
     *
     * <p>How an object counts in these two indexes follows from its node and its request in flight alone, so it is not
     * kept: every change to either takes the object out ({@link #unfile}) before and puts it back ({@link #file})
     * after. A record of each filing took some 90 bytes an object, 9 MB at 100,000 pods.
     */
    private final Map<String, TreeMap<Long, String>> actionable = new HashMap<>();

    /**
     * A request in flight: its event id, its target as the collector saw it when asking, and what it asks for, so that
     * the request also ends when a fact shows it done. The API server answers most requests with a fact caused by them,
     * but not all: a delete of an object already being deleted, or a patch that changes nothing, writes nothing and so
     * has no fact to answer with.
     */
    record Request(String id, String targetUid, String resourceVersion, Intent intent) {}

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
                .filter(uid -> owner.mayOwn(graph.node(uid).orElseThrow()))
                .toList();
    }

    // --- changes ---

    /**
     * Folds the node a fact shows (its last state if {@code removed}, as after a request answered 404) into the graph
     * ({@link GraphBuilder#processGraphChanges}); ends the request about it if the fact shows it done. Returns the uids
     * to attempt, in order.
     */
    List<String> fold(Node node, boolean removed) {
        unfile(node.uid());
        List<String> attempts = GraphBuilder.processGraphChanges(graph, node, removed);
        settle(node.uid());
        return attempts;
    }

    void sent(Request request) {
        unfile(request.targetUid());
        inFlight.put(request.targetUid(), request);
        targetOf.put(request.id(), request.targetUid());
        file(request.targetUid());
    }

    /** Ends the request with this id, if it is in flight, and returns it. */
    Optional<Request> answered(String requestId) {
        String target = requestId == null ? null : targetOf.get(requestId);
        if (target == null) {
            return Optional.empty();
        }
        unfile(target);
        Request request = end(requestId);
        file(target);
        return Optional.ofNullable(request);
    }

    /** Files the object of this uid again, its request ended if the graph shows it done or the object gone. */
    private void settle(String uid) {
        Request request = inFlight.get(uid);
        if (request != null && graph.node(uid).map(request.intent()::doneIn).orElse(true)) {
            end(request.id());
        }
        file(uid);
    }

    private Request end(String requestId) {
        return inFlight.remove(targetOf.remove(requestId));
    }

    private void file(String uid) {
        index(uid, 1);
    }

    private void unfile(String uid) {
        index(uid, -1);
    }

    /** Counts the object of this uid among the blockers of its owners, and files it where it is actionable. */
    private void index(String uid, int delta) {
        Node n = graph.node(uid).orElse(null);
        if (n == null) {
            return;
        }
        boolean acts = !inFlight.containsKey(uid)
                && !n.isDeletingDependents()
                && (!n.beingDeleted() || n.isOrphaningDependents());
        String namespace = n.clusterScoped() ? "" : n.namespace();
        List<String> blocks = n.owners().stream()
                .map(Node.Owner::uid)
                .distinct()
                .filter(owner -> n.owner(owner).orElseThrow().blockOwnerDeletion())
                .toList();
        for (String owner : blocks) {
            count(owner, namespace, delta);
            if (acts) {
                // the graph's own Long, not a box of its own
                actionable(owner, graph.filing(owner, uid).orElseThrow(), uid, delta);
            }
        }
    }

    private void actionable(String owner, Long filing, String uid, int delta) {
        TreeMap<Long, String> of = actionable.computeIfAbsent(owner, o -> new TreeMap<>());
        if (delta > 0) {
            of.put(filing, uid);
        } else {
            of.remove(filing);
        }
        if (of.isEmpty()) {
            actionable.remove(owner);
        }
    }

    private void count(String owner, String namespace, int delta) {
        Map<String, Integer> byNamespace = blockers.computeIfAbsent(owner, o -> new HashMap<>());
        byNamespace.merge(namespace, delta, (a, b) -> a + b == 0 ? null : a + b);
        if (byNamespace.isEmpty()) {
            blockers.remove(owner);
        }
    }
}
