package io.podfall.controller;

import io.podfall.controller.Expectations.Kind;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The rate limit of a controller's retries, per owner: upstream's work queue requeues a key whose sync failed with
 * {@code AddRateLimited}, after 5 ms doubling with every failure up to 1000 s ({@code DefaultControllerRateLimiter},
 * {@code staging/src/k8s.io/client-go/util/workqueue/default_rate_limiters.go}), and forgets the count once a sync
 * succeeds. Here a sync fails when the API server rejects one of its requests, and succeeds again when a request of the
 * kind that failed is answered. Without this, a request rejected for good would be re-sent at once, for ever.
 */
final class Backoff {
    static final Duration BASE = Duration.ofMillis(5);
    static final Duration MAX = Duration.ofSeconds(1000);
    /** Past this many failures in a row the delay is {@link #MAX} (and the doubling would overflow). */
    private static final int DOUBLINGS = 20;

    /** An owner's failures in a row, the kind of request that failed last, and until when it waits. */
    private record Failures(int count, Kind kind, Instant until) {}

    private final Map<String, Failures> byOwner = new HashMap<>();

    /** Records a failure of a request of this kind; returns when the owner may try again. */
    Instant failed(String owner, Kind kind, Instant now) {
        int count = byOwner.containsKey(owner) ? byOwner.get(owner).count() + 1 : 1;
        Duration delay = count > DOUBLINGS ? MAX : BASE.multipliedBy(1L << (count - 1));
        Instant until = now.plus(delay.compareTo(MAX) > 0 ? MAX : delay);
        byOwner.put(owner, new Failures(count, kind, until));
        return until;
    }

    /** A request of this kind was answered: if that kind failed last, the count starts again ({@code Forget}). */
    void succeeded(String owner, Kind kind) {
        Failures f = byOwner.get(owner);
        if (f != null && f.kind() == kind) {
            byOwner.remove(owner);
        }
    }

    /** The owner is gone. */
    void forget(String owner) {
        byOwner.remove(owner);
    }

    /** Whether the owner still waits out a failure. */
    boolean waiting(String owner, Instant now) {
        Failures f = byOwner.get(owner);
        return f != null && now.isBefore(f.until());
    }
}
