package io.podfall.model.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.podfall.model.k8s.ResourceType;

/**
 * An object as the API server stored it after a change (or, on removal, its last state): the data of every
 * {@code apiserver.Object*} and {@code apiserver.Pod*} fact. Watchers fold these into their caches.
 */
public record ObjectChange(String resource, JsonNode object) {

    public static ObjectChange of(ResourceType type, HasMetadata object) {
        return new ObjectChange(type.plural(), io.podfall.model.Json.tree(object));
    }

    public ResourceType resourceType() {
        return ResourceType.byPlural(resource);
    }

    public <T extends HasMetadata> T object(Class<T> kind) {
        return io.podfall.model.Json.convert(object, kind);
    }
}
