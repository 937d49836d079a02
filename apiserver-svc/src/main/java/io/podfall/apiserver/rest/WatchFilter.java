package io.podfall.apiserver.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.apiserver.registry.Selectors;
import io.podfall.model.k8s.ResourceType;

/**
 * What one watch is about: a resource type, a namespace (null or empty: all namespaces, or a cluster-scoped type) and
 * the field and label selectors of the request.
 */
record WatchFilter(ResourceType resource, String namespace, Selectors selectors) {

    boolean covers(ResourceType type, String objectNamespace) {
        return type == resource && (namespace == null || namespace.isEmpty() || namespace.equals(objectNamespace));
    }

    /** Whether a stored object is in this watch's selection (for the initial ADDED events). */
    boolean matches(JsonNode object) {
        return selectors.matches(object);
    }
}
