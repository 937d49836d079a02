package io.podfall.controller.replicaset;

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
 * The requests a controller has sent and not yet seen answered, by owner (the {@code namespace/name} of the object
 * the controller syncs): upstream's {@code ControllerExpectations} and {@code UIDTrackingControllerExpectations}
 * ({@code pkg/controller/controller_utils.go}). While an owner has requests in flight, its cache does not yet show
 * their outcome, so deciding again would issue the same request twice.
 *
 * <p>An expectation ends when the API server answers the request: a fact caused by it (the object it created,
 * updated or marked terminating) or a {@code RequestRejected} caused by it. A deletion also ends when the pod is seen
 * terminating or gone for any reason ({@code DeletionObserved}): the API server writes nothing for a delete that
 * finds the pod already terminating with an earlier deadline. An expectation older than {@link #TIMEOUT} is dropped
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
    public record Expectation(String owner, Kind kind, String podUid, Instant since) {
    }

    /** Every request in flight, by the id of the request event. */
    private final Map<String, Expectation> byRequest = new HashMap<>();
    /** The ids of each owner's requests in flight, in the order they were sent. */
    private final Map<String, Map<String, Expectation>> byOwner = new HashMap<>();

    public void expect(String requestId, Expectation expectation) {
        byRequest.put(requestId, expectation);
        byOwner.computeIfAbsent(expectation.owner(), o -> new LinkedHashMap<>()).put(requestId, expectation);
    }

    /** The API server answered the request (a fact or a rejection caused by it): its expectation, if it was ours. */
    public Optional<Expectation> observe(String requestId) {
        Expectation e = requestId == null ? null : byRequest.remove(requestId);
        if (e != null) {
            drop(e.owner(), requestId);
        }
        return Optional.ofNullable(e);
    }

    /** The pod is terminating or gone: every deletion of it in flight is fulfilled. Returns their owners. */
    public List<String> deletionObserved(String podUid) {
        List<String> owners = new ArrayList<>();
        for (String requestId : List.copyOf(byRequest.keySet())) {
            Expectation e = byRequest.get(requestId);
            if (e.kind() == Kind.DELETION && podUid.equals(e.podUid())) {
                observe(requestId);
                owners.add(e.owner());
            }
        }
        return owners;
    }

    /** Whether the owner has no request of these kinds in flight. */
    public boolean satisfied(String owner, Set<Kind> kinds) {
        return byOwner.getOrDefault(owner, Map.of()).values().stream().noneMatch(e -> kinds.contains(e.kind()));
    }

    /** Whether the owner has no request in flight at all. */
    public boolean satisfied(String owner) {
        return !byOwner.containsKey(owner);
    }

    /** When the owner's oldest request in flight times out, if it has any. */
    public Optional<Instant> nextTimeout(String owner) {
        return byOwner.getOrDefault(owner, Map.of()).values().stream().map(Expectation::since).min(Instant::compareTo)
                .map(since -> since.plus(TIMEOUT));
    }

    /** Drops the owner's requests that have waited {@link #TIMEOUT} or longer; whether there were any. */
    public boolean expire(String owner, Instant now) {
        List<String> expired = byOwner.getOrDefault(owner, Map.of()).entrySet().stream()
                .filter(e -> !e.getValue().since().plus(TIMEOUT).isAfter(now)).map(Map.Entry::getKey).toList();
        expired.forEach(this::observe);
        return !expired.isEmpty();
    }

    /** The owner is gone: nothing it waits for matters any more ({@code DeleteExpectations}). */
    public void forget(String owner) {
        Map<String, Expectation> pending = byOwner.remove(owner);
        if (pending != null) {
            pending.keySet().forEach(byRequest::remove);
        }
    }

    private void drop(String owner, String requestId) {
        Map<String, Expectation> pending = byOwner.get(owner);
        pending.remove(requestId);
        if (pending.isEmpty()) {
            byOwner.remove(owner);
        }
    }
}
