package io.podfall.cli.analysis;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.cli.analysis.Check.Finding;
import io.podfall.cli.analysis.Check.Level;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code eviction-refused}: evictions of a pod that the API server refused with 429 TooManyRequests because a
 * PodDisruptionBudget allowed no disruption (pkg/registry/core/pod/storage/eviction.go), and whether a later attempt
 * got through. {@code kubectl drain} retries a refused eviction every 5 s until its timeout, so a drain blocked by a
 * budget shows here as a run of refusals per pod: a warning per pod, with the budget's reason, how many times it was
 * refused, and how long after the first refusal it was evicted (or that it never was).
 */
final class EvictionsRefused implements Consumer<Event> {
    private static final int TOO_MANY_REQUESTS = 429;

    /** The pod each eviction request of the log names, by request id, until the API server answers it. */
    private final Map<String, Event> requests = new HashMap<>();

    private final Map<String, Refused> bySubject = new LinkedHashMap<>();

    private static final class Refused {
        final String subject;
        final Instant first;
        final String reason;
        final List<String> eventIds = new ArrayList<>();
        int count;
        Instant evictedAt;

        Refused(Event rejection) {
            subject = rejection.subject();
            first = rejection.time();
            reason = reason(rejection.data().path("status"));
        }
    }

    @Override
    public void accept(Event e) {
        if (e.is(EventTypes.EVICTION_REQUESTED)) {
            requests.put(e.id(), e);
            return;
        }
        Event request = e.causationId() == null ? null : requests.remove(e.causationId());
        if (request == null) {
            return;
        }
        if (e.is(EventTypes.REQUEST_REJECTED)) {
            if (e.data().path("status").path("code").asInt() == TOO_MANY_REQUESTS) {
                Refused r = bySubject.computeIfAbsent(request.subject(), s -> new Refused(e));
                if (r.evictedAt == null) {
                    r.count++;
                    r.eventIds.add(e.id());
                }
            }
        } else {
            Refused r = bySubject.get(request.subject());
            if (r != null && r.evictedAt == null) {
                r.evictedAt = e.time();
                r.eventIds.add(request.id());
            }
        }
    }

    /** The Status's cause from the budget ("The disruption budget web needs 2 healthy pods..."), else its message. */
    private static String reason(JsonNode status) {
        JsonNode cause = status.path("details").path("causes").path(0).path("message");
        return cause.isTextual() ? cause.asText() : status.path("message").asText();
    }

    /** Evictions refused in all. */
    int refusals() {
        return bySubject.values().stream().mapToInt(r -> r.count).sum();
    }

    /** Pods with at least one eviction refused. */
    int pods() {
        return bySubject.size();
    }

    /** For each pod evicted after a refusal, the time from its first refusal to the eviction that got through. */
    List<Duration> waits() {
        return bySubject.values().stream()
                .filter(r -> r.evictedAt != null)
                .map(r -> Duration.between(r.first, r.evictedAt))
                .toList();
    }

    List<Finding> findings() {
        return bySubject.values().stream()
                .map(r -> new Finding(
                        Level.WARNING,
                        "eviction-refused",
                        r.subject,
                        String.format(
                                "%d eviction(s) refused with 429 by a disruption budget (\"%s\"); %s",
                                r.count,
                                r.reason,
                                r.evictedAt == null
                                        ? "not evicted by the end of the log"
                                        : "evicted "
                                                + Duration.between(r.first, r.evictedAt)
                                                        .toMillis() + " ms after the first refusal"),
                        List.copyOf(r.eventIds)))
                .toList();
    }
}
