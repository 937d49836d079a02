package io.podfall.controller;

import java.util.HashMap;
import java.util.Map;

/**
 * How a watcher tells a stale fact from a new one. Kubernetes treats resourceVersions as opaque strings; podfall's API
 * server numbers every write from one counter, so when both are numbers the smaller is the older write (a redelivered
 * event). When either is not a number nothing can be said, and the fact is taken as news.
 *
 * <p>An instance is the highest resourceVersion a watcher has seen per namespace, as a reflector resumes its watch from
 * the last resourceVersion it saw ({@code staging/src/k8s.io/client-go/tools/cache/reflector.go}). All facts about a
 * namespace lie in one partition of the log, in the order they were written; so a fact at or below the namespace's mark
 * is a redelivery, or older than what the cache holds. That also covers a redelivered fact of an object removed since,
 * which a per-object comparison would let back in.
 */
public final class ResourceVersions {
    private final Map<String, Long> seen = new HashMap<>();

    /** Whether {@code a} is known to be an older write than {@code b}. */
    public static boolean isOlder(String a, String b) {
        try {
            return a != null && b != null && Long.parseLong(a) < Long.parseLong(b);
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** Whether a fact about the namespace ("" for cluster-scoped objects) is news, remembering it if so. */
    public boolean isNews(String namespace, String resourceVersion) {
        long version;
        try {
            version = Long.parseLong(resourceVersion);
        } catch (NumberFormatException | NullPointerException e) {
            return true;
        }
        String ns = namespace == null ? "" : namespace;
        if (version <= seen.getOrDefault(ns, Long.MIN_VALUE)) {
            return false;
        }
        seen.put(ns, version);
        return true;
    }
}
