package io.podfall.kubelet.nodestatus;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * An informer's cache of the kubelet's own objects of one kind (its Nodes, its Leases), by name, as the API server last
 * stored them. The API server numbers every write from one counter, so a fact whose resourceVersion is not above the
 * cached one is a redelivery, and no news.
 */
public final class Informer<T extends HasMetadata> {
    private final Map<String, T> objects = new HashMap<>();

    public Optional<T> get(String name) {
        return Optional.ofNullable(objects.get(name));
    }

    /** Caches the object unless the cache holds the same or a later write of it; whether it was news. */
    public boolean observe(T object) {
        String name = object.getMetadata().getName();
        T known = objects.get(name);
        if (known != null
                && Long.parseLong(object.getMetadata().getResourceVersion())
                        <= Long.parseLong(known.getMetadata().getResourceVersion())) {
            return false;
        }
        objects.put(name, object);
        return true;
    }

    public void remove(String name) {
        objects.remove(name);
    }
}
