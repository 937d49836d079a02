package io.podfall.controller;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The requests a controller has sent and not yet seen answered, by owner (the {@code namespace/name} of the object the
 * controller syncs): upstream's {@code ControllerExpectations} and {@code UIDTrackingControllerExpectations}
 * ({@code pkg/controller/controller_utils.go}). While an owner has requests in flight, its cache does not yet show
 * their outcome, so deciding again would issue the same request twice.
 *
 * <p>An expectation ends when the API server answers the request: a fact caused by it (the object it created, updated
 * or marked terminating) or a {@code RequestRejected} caused by it. A deletion also ends when the pod is seen
 * terminating or gone for any reason ({@code DeletionObserved}): the API server writes nothing for a delete that finds
 * the pod already terminating with an earlier deadline. An expectation older than {@link #TIMEOUT} is dropped
 * ({@code ExpectationsTimeout}), the last line of defence against an answer that never comes (a patch that changed
 * nothing is stored without a fact).
 */
public final class Expectations {
    /** Upstream's {@code ExpectationsTimeout}. */
    public static final Duration TIMEOUT = Duration.ofMinutes(5);

    /** What a request in flight will change. */
    public enum Kind {
        /** A pod (or ReplicaSet) to be created. */
        CREATION,
        /** A pod to be deleted. */
        DELETION,
        /** A write of an existing object: a scale, a status. */
        WRITE
    }

    /** The kinds that change an owner's pods (what gates {@code manageReplicas}). */
    public static final Set<Kind> POD_CHANGES = Set.of(Kind.CREATION, Kind.DELETION);

    /** One request in flight: whose, of which kind, the pod a deletion targets (else null), and since when. */
    public record Expectation(String owner, Kind kind, String podUid, Instant since) {}

    /** Every request in flight, by the id of the request event. */
    private final Map<String, Expectation> byRequest = new HashMap<>();
    /** Each owner's requests in flight, with how many of each kind. */
    private final Map<String, Pending> byOwner = new HashMap<>();
    /**
     * The ids of the deletions in flight of each pod, by its uid: a pod seen terminating fulfils them without a scan of
     * every request in flight (a scale-down has hundreds in flight, and each of its pods is seen so).
     */
    private final Map<String, List<String>> deletionsByPod = new HashMap<>();

    /** An owner's requests in flight in the order they were sent, and their count by kind. */
    private static final class Pending {
        final Map<String, Expectation> requests = new LinkedHashMap<>();
        final int[] byKind = new int[Kind.values().length];
    }

    public void expect(String requestId, Expectation expectation) {
        Expectation replaced = byRequest.put(requestId, expectation);
        if (replaced != null) {
            drop(requestId, replaced);
        }
        Pending pending = byOwner.computeIfAbsent(expectation.owner(), o -> new Pending());
        pending.requests.put(requestId, expectation);
        pending.byKind[expectation.kind().ordinal()]++;
        if (expectation.kind() == Kind.DELETION && expectation.podUid() != null) {
            deletionsByPod
                    .computeIfAbsent(expectation.podUid(), uid -> new ArrayList<>(1))
                    .add(requestId);
        }
    }

    /** The API server answered the request (a fact or a rejection caused by it): its expectation, if it was ours. */
    public Optional<Expectation> observe(String requestId) {
        Expectation e = requestId == null ? null : byRequest.remove(requestId);
        if (e != null) {
            drop(requestId, e);
        }
        return Optional.ofNullable(e);
    }

    /** The pod is terminating or gone: every deletion of it in flight is fulfilled. Returns their owners. */
    public List<String> deletionObserved(String podUid) {
        List<String> requests = deletionsByPod.get(podUid);
        if (requests == null) {
            return List.of();
        }
        List<String> owners = new ArrayList<>(requests.size());
        for (String requestId : List.copyOf(requests)) {
            observe(requestId).ifPresent(e -> owners.add(e.owner()));
        }
        return owners;
    }

    /** Whether the owner has no request of these kinds in flight. */
    public boolean satisfied(String owner, Set<Kind> kinds) {
        Pending pending = byOwner.get(owner);
        if (pending == null) {
            return true;
        }
        for (Kind kind : kinds) {
            if (pending.byKind[kind.ordinal()] > 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether the owner has no request in flight at all. */
    public boolean satisfied(String owner) {
        return !byOwner.containsKey(owner);
    }

    /** When the owner's oldest request in flight times out, if it has any. */
    public Optional<Instant> nextTimeout(String owner) {
        Pending pending = byOwner.get(owner);
        return pending == null
                ? Optional.empty()
                : pending.requests.values().stream()
                        .map(Expectation::since)
                        .min(Instant::compareTo)
                        .map(since -> since.plus(TIMEOUT));
    }

    /** Drops the owner's requests that have waited {@link #TIMEOUT} or longer; whether there were any. */
    public boolean expire(String owner, Instant now) {
        Pending pending = byOwner.get(owner);
        if (pending == null) {
            return false;
        }
        List<String> expired = pending.requests.entrySet().stream()
                .filter(e -> !e.getValue().since().plus(TIMEOUT).isAfter(now))
                .map(Map.Entry::getKey)
                .toList();
        expired.forEach(this::observe);
        return !expired.isEmpty();
    }

    /** The owner is gone: nothing it waits for matters any more ({@code DeleteExpectations}). */
    public void forget(String owner) {
        Pending pending = byOwner.get(owner);
        if (pending != null) {
            List.copyOf(pending.requests.keySet()).forEach(this::observe);
        }
    }

    /** Removes a request that has left {@link #byRequest} from the owner's and the pod's indexes. */
    private void drop(String requestId, Expectation e) {
        Pending pending = byOwner.get(e.owner());
        pending.requests.remove(requestId);
        pending.byKind[e.kind().ordinal()]--;
        if (pending.requests.isEmpty()) {
            byOwner.remove(e.owner());
        }
        if (e.kind() == Kind.DELETION && e.podUid() != null) {
            List<String> requests = deletionsByPod.get(e.podUid());
            requests.remove(requestId);
            if (requests.isEmpty()) {
                deletionsByPod.remove(e.podUid());
            }
        }
    }
}
