package io.podfall.model;

/**
 * One string for a value that many objects a service keeps carry (a namespace, a node's name, an owner's uid, an
 * image): at 100,000 pods, each read from its own event would be a copy a pod in every cache that keeps it.
 */
public final class SharedStrings {
    private SharedStrings() {}

    /**
     * The one instance of {@code value} ({@link String#intern()}: its table lets go of what no one holds); null stays
     * null.
     */
    public static String shared(String value) {
        return value == null ? null : value.intern();
    }
}
