package io.podfall.controller;

/**
 * How a watcher tells a stale fact from a new one. Kubernetes treats resourceVersions as opaque strings; podfall's
 * API server numbers every write from one counter, so when both are numbers the smaller is the older write (a
 * redelivered event). When either is not a number nothing can be said, and the fact is taken as news.
 */
public final class ResourceVersions {
    private ResourceVersions() {
    }

    /** Whether {@code a} is known to be an older write than {@code b}. */
    public static boolean isOlder(String a, String b) {
        try {
            return a != null && b != null && Long.parseLong(a) < Long.parseLong(b);
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
