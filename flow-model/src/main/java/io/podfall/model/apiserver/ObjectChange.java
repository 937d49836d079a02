package io.podfall.model.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.podfall.model.event.Event;
import io.podfall.model.event.UnreadableEventException;
import io.podfall.model.k8s.ResourceType;

/**
 * An object as the API server stored it after a change (or, on removal, its last state): the data of every
 * {@code apiserver.Object*} and {@code apiserver.Pod*} fact. Watchers fold these into their caches.
 */
public record ObjectChange(String resource, JsonNode object) {

    public static ObjectChange of(ResourceType type, HasMetadata object) {
        return new ObjectChange(type.plural(), io.podfall.model.Json.tree(object));
    }

    /**
     * The change a fact carries, its object the fact's own tree rather than a copy. Every watcher of every service
     * reads every fact, so {@code event.data(ObjectChange.class)}, which rebuilds the whole object tree, was most of
     * what a watcher spent on a fact. The tree is shared: a reader must not change it.
     *
     * @throws UnreadableEventException ({@link UnreadableEventException.Kind#BAD_DATA}) when the data has no
     *                                  resource name or no object
     */
    public static ObjectChange of(Event fact) {
        JsonNode resource = fact.data().get("resource");
        JsonNode object = fact.data().get("object");
        if (resource == null || !resource.isTextual() || object == null || !object.isObject()) {
            throw new UnreadableEventException(UnreadableEventException.Kind.BAD_DATA,
                    "data of " + fact.type() + " does not match its schema: it needs a resource name and an object");
        }
        return new ObjectChange(resource.asText(), object);
    }

    public ResourceType resourceType() {
        return ResourceType.byPlural(resource);
    }

    public <T extends HasMetadata> T object(Class<T> kind) {
        return io.podfall.model.Json.convert(object, kind);
    }
}
