package io.podfall.apiserver.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.apiserver.registry.Selectors;
import io.podfall.model.Json;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.util.Optional;
import java.util.function.Function;

/**
 * One change of one stored object, as the watch cache holds it ({@code staging/src/k8s.io/apiserver/pkg/storage/
 * cacher/watch_cache.go} {@code watchCacheEvent}): the object after the change ({@code object}; for a removal its last
 * state, carrying the resourceVersion of the removal as the registry writes it) and the object before it
 * ({@code previous}, null for a creation), so that a watcher with a selector can see an object enter or leave its
 * selection. The object before is kept serialized, the data of the fact that stored it, as {@link WatchHistory} keeps
 * every object's current content, and read back only for a watcher whose selector needs it.
 *
 * @param type ADDED, MODIFIED or DELETED
 */
record WatchEvent(
        String type,
        ResourceType resource,
        String namespace,
        String name,
        long resourceVersion,
        JsonNode object,
        byte[] previous) {
    static final String ADDED = "ADDED";
    static final String MODIFIED = "MODIFIED";
    static final String DELETED = "DELETED";

    /**
     * The watch event of an API server fact, or empty for any other event on the log; {@code currentByKey} gives the
     * data of the fact that stored the object as it was before this one.
     */
    static Optional<WatchEvent> of(Event fact, Function<String, byte[]> currentByKey) {
        String type = switch (fact.type()) {
            case EventTypes.OBJECT_CREATED -> ADDED;
            case EventTypes.POD_BOUND,
                    EventTypes.POD_STATUS_UPDATED,
                    EventTypes.OBJECT_UPDATED,
                    EventTypes.OBJECT_MARKED_TERMINATING -> MODIFIED;
            case EventTypes.OBJECT_REMOVED -> DELETED;
            default -> null;
        };
        if (type == null) {
            return Optional.empty();
        }
        ObjectChange change = ObjectChange.of(fact);
        JsonNode meta = change.object().path("metadata");
        String namespace = meta.path("namespace").asText("");
        String name = meta.path("name").asText();
        byte[] previous = type.equals(ADDED) ? null : currentByKey.apply(key(change.resourceType(), namespace, name));
        return Optional.of(new WatchEvent(
                type,
                change.resourceType(),
                namespace,
                name,
                Long.parseLong(meta.path("resourceVersion").asText()),
                change.object(),
                previous));
    }

    /** The key of the object in the cache: {@code pods/default/web-1}, {@code nodes//node-1}. */
    String key() {
        return key(resource, namespace, name);
    }

    static String key(ResourceType resource, String namespace, String name) {
        return resource.plural() + "/" + namespace + "/" + name;
    }

    /**
     * What a watcher with this filter is sent, if anything: {@code cacheWatcher.convertToWatchEvent}
     * ({@code staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go}). An object that comes into the
     * selection is ADDED, one that stays in it MODIFIED, and one that leaves it (or is removed) DELETED with its
     * previous content and the resourceVersion of this change.
     */
    Optional<WatchEvent> seenThrough(WatchFilter filter) {
        if (!filter.covers(resource, namespace)) {
            return Optional.empty();
        }
        Selectors selectors = filter.selectors();
        boolean nowPasses = !type.equals(DELETED) && selectors.matches(object);
        boolean beforePassed = type.equals(DELETED)
                ? selectors.matches(object)
                : previous != null && (selectors.selectsAll() || selectors.matches(objectOf(previous)));
        if (nowPasses && !beforePassed) {
            return Optional.of(with(ADDED, object));
        } else if (nowPasses) {
            return Optional.of(with(MODIFIED, object));
        } else if (beforePassed) {
            ObjectNode last = type.equals(DELETED) ? object.deepCopy() : (ObjectNode) objectOf(previous);
            ((ObjectNode) last.path("metadata")).put("resourceVersion", Long.toString(resourceVersion));
            return Optional.of(with(DELETED, last));
        }
        return Optional.empty();
    }

    /** The object in the data of a fact that changed it (an {@link ObjectChange}'s JSON), read anew. */
    static JsonNode objectOf(byte[] change) {
        return Json.read(change).get("object");
    }

    private WatchEvent with(String newType, JsonNode newObject) {
        return new WatchEvent(newType, resource, namespace, name, resourceVersion, newObject, previous);
    }
}
