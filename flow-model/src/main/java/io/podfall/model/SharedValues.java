package io.podfall.model;

import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * One instance of each value, of any immutable type, that many objects a service keeps carry alike: the labels of a
 * ReplicaSet's pods, the container specs of its pods' sandboxes. At 100,000 pods each read from its own event is a copy
 * a pod in every cache that keeps it; {@link SharedStrings} does the same for strings.
 */
public final class SharedValues {
    /** Weak both ways, so a value no cache holds any more goes. */
    private static final Map<Object, WeakReference<Object>> VALUES = new WeakHashMap<>();

    private SharedValues() {}

    /**
     * The one instance equal to {@code value}: the first one asked for while some cache still holds it. The value must
     * be immutable and interchangeable with whatever it equals (a record of immutable fields; an unmodifiable
     * {@code List}, {@code Set} or {@code Map}, as their equality is by content whatever the class). Null stays null.
     */
    @SuppressWarnings("unchecked")
    public static <T> T shared(T value) {
        if (value == null) {
            return null;
        }
        synchronized (VALUES) {
            WeakReference<Object> known = VALUES.get(value);
            Object shared = known == null ? null : known.get();
            if (shared == null) {
                VALUES.put(value, new WeakReference<>(value));
                return value;
            }
            return (T) shared;
        }
    }
}
