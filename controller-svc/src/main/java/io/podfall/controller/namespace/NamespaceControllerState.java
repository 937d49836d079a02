package io.podfall.controller.namespace;

import io.fabric8.kubernetes.api.model.Namespace;
import io.podfall.controller.ResourceVersions;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The namespace controller's cache: the namespaces, the uids of the objects in each (by resource), and the requests it
 * has in flight. Sorted maps, so every pass goes in the same order.
 */
public final class NamespaceControllerState {
    final ResourceVersions resourceVersions = new ResourceVersions();
    final Map<String, Namespace> namespaces = new TreeMap<>();
    /** namespace → resource plural → uids of the objects stored there, terminating or not. */
    final Map<String, Map<String, Set<String>>> content = new TreeMap<>();
    /** Request id → what it asks. */
    final Map<String, NamespaceRequest> inFlight = new HashMap<>();
    /** The namespaces whose content was asked to be deleted (once per termination). */
    final Set<String> emptying = new TreeSet<>();

    boolean isEmpty(String namespace) {
        return content.getOrDefault(namespace, Map.of()).values().stream().allMatch(Set::isEmpty);
    }

    /** The resources that still hold objects in the namespace, in name order. */
    Set<String> resourcesWithContent(String namespace) {
        Set<String> resources = new TreeSet<>();
        content.getOrDefault(namespace, Map.of()).forEach((resource, uids) -> {
            if (!uids.isEmpty()) {
                resources.add(resource);
            }
        });
        return resources;
    }
}
