package io.podfall.controller.garbagecollector;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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

    // --- changes ---

    void sent(Request request) {
        inFlight.put(request.targetUid(), request);
        targetOf.put(request.id(), request.targetUid());
    }

    /** Ends the request with this id, if it is in flight, and returns it. */
    Optional<Request> answered(String requestId) {
        String target = requestId == null ? null : targetOf.remove(requestId);
        return Optional.ofNullable(target == null ? null : inFlight.remove(target));
    }

    /** Ends the request about the object of this uid if the graph shows it done, or the object gone. */
    void settle(String uid) {
        Request request = inFlight.get(uid);
        if (request != null && graph.node(uid).map(request.intent()::doneIn).orElse(true)) {
            answered(request.id());
        }
    }
}
