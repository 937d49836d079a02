package io.podfall.model;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.function.Consumer;

/**
 * The values used most recently, up to a capacity: for what a service keeps of many objects in two forms, one quick to
 * use and one small. The value used least recently, once there is one too many, is handed to {@code rest}, which puts
 * it in its small form; it comes back here when it is used again.
 *
 * <p>Not thread-safe: a core's state, used under its log processor's lock.
 */
public final class RecentlyUsed<K, V> {
    private final int capacity;
    private final Consumer<V> rest;
    /** Least recently used first. */
    private final LinkedHashMap<K, V> values = new LinkedHashMap<>(64, 0.75f, true);

    public RecentlyUsed(int capacity, Consumer<V> rest) {
        this.capacity = capacity;
        this.rest = rest;
    }

    /** {@code value}, under {@code key}, was used: it stays in its quick form until others have been used since. */
    public void used(K key, V value) {
        if (values.put(key, value) == null && values.size() > capacity) {
            Iterator<V> eldest = values.values().iterator();
            rest.accept(eldest.next());
            eldest.remove();
        }
    }

    /** The value under {@code key} is gone: it no longer takes a place here. */
    public void forget(K key) {
        values.remove(key);
    }
}
