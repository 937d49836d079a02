package io.podfall.apiserver.rest;

import io.podfall.apiserver.registry.RegistryState;
import io.podfall.apiserver.registry.StatusError;
import io.podfall.model.CompressedAtRest;
import io.podfall.model.event.Event;
import io.podfall.model.k8s.ResourceType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The recent changes a watch can start from, like the watch cache's ring of events
 * ({@code staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go}): the last {@code capacity} watch events in
 * resourceVersion order, plus the current content of every stored object (so a change knows the object it replaces).
 * Both keep the facts' data, serialized, not trees (a tree of a pod is some 12 KB of heap where its JSON is 1.6 KB):
 * the ring's 10,000 changes take some 30 MB, not 100, and the current content of an object is the registry's holder of
 * the very bytes it stores the object in ({@link RegistryState#holding}), so it costs nothing beside them, also once
 * they rest compressed. Built from the registry's facts in log order, so it is rebuilt with the registry when the
 * service reads the log again on start.
 *
 * <p>A watch from resourceVersion {@code rv} gets every retained event after {@code rv}. Every write of the registry
 * takes the next resourceVersion and is one fact, so the ring holds every change after the newest one it has dropped
 * ({@code compactedThrough}): any {@code rv} at or after that is served completely, including the resourceVersion of a
 * list just returned (it is at least the newest event's). An older one is refused with 410 Expired, as the watch cache
 * does, and the client lists again.
 *
 * <p>Not thread-safe: {@link WatchHub} guards it.
 */
final class WatchHistory {
    private final int capacity;
    private final ArrayDeque<Retained> events = new ArrayDeque<>();
    /** The current content of every stored object, by {@link WatchEvent#key()}: the data of the fact that stored it. */
    private final Map<String, CompressedAtRest.Held> current = new HashMap<>();
    /**
     * What holds the current content the registry no longer does: a write followed by another of the same object (or
     * its removal) in one request's facts, replaced before the request's last fact is recorded.
     */
    private final CompressedAtRest resting = new CompressedAtRest(RegistryState.AT_REST);
    /** The resourceVersion of the newest event dropped from the ring; 0 while none has been. */
    private long compactedThrough;

    WatchHistory(int capacity) {
        this.capacity = capacity;
    }

    /**
     * Records a fact of the registry, whose {@code state} is that after the request of the fact; empty for any event
     * that is not a change of a stored object.
     */
    Optional<WatchEvent> record(Event fact, RegistryState state) {
        Optional<WatchEvent> event = WatchEvent.of(fact, key -> {
            CompressedAtRest.Held held = current.get(key);
            return held == null ? null : held.json();
        });
        event.ifPresent(e -> {
            CompressedAtRest.Held replaced = e.type().equals(WatchEvent.DELETED)
                    ? current.remove(e.key())
                    : current.put(
                            e.key(),
                            state.holding(e.resource(), e.namespace(), e.name(), fact.dataJson())
                                    .orElseGet(() -> resting.hold(fact.dataJson(), fact.time())));
            if (replaced != null) { // nothing for a holder of the registry's: the registry releases its own
                resting.release(replaced);
            }
            events.addLast(new Retained(e, fact.dataJson()));
            if (events.size() > capacity) {
                compactedThrough = events.removeFirst().resourceVersion();
            }
        });
        return event;
    }

    /**
     * What holds the current content of the object of {@code key} ({@link WatchEvent#key()}); null if none is stored.
     */
    CompressedAtRest.Held current(String key) {
        return current.get(key);
    }

    /**
     * The retained events after {@code resourceVersion}, oldest first.
     *
     * @throws StatusError 410 Expired when events after {@code resourceVersion} have been dropped
     */
    List<WatchEvent> since(long resourceVersion) {
        if (resourceVersion < compactedThrough) {
            throw StatusError.expired(resourceVersion, compactedThrough);
        }
        List<WatchEvent> out = new ArrayList<>();
        for (Retained e : events) {
            if (e.resourceVersion() > resourceVersion) {
                out.add(e.event());
            }
        }
        return out;
    }

    /**
     * A change as the ring keeps it: the data of its fact in place of the object's tree, read back for a watch that
     * starts before it.
     */
    private record Retained(
            String type,
            ResourceType resource,
            String namespace,
            String name,
            long resourceVersion,
            byte[] change,
            byte[] previous) {
        Retained(WatchEvent e, byte[] change) {
            this(e.type(), e.resource(), e.namespace(), e.name(), e.resourceVersion(), change, e.previous());
        }

        WatchEvent event() {
            return new WatchEvent(
                    type, resource, namespace, name, resourceVersion, WatchEvent.objectOf(change), previous);
        }
    }
}
