package io.podfall.controller.replicaset;

import java.util.HashMap;
import java.util.Map;

/**
 * Which facts a watcher has seen: the highest resourceVersion per namespace, as a reflector resumes its watch from
 * the last resourceVersion it saw ({@code staging/src/k8s.io/client-go/tools/cache/reflector.go}). The API server
 * gives every write the next value of one counter, and all facts about a namespace lie in one partition of the log,
 * in the order they were written; so a fact at or below the namespace's mark is a redelivery, or older than what the
 * cache holds. That also covers a redelivered fact of an object removed since, which a per-object comparison
 * would let back in.
 *
 * <p>Kubernetes calls resourceVersions opaque: one that is not a number is always taken as news.
 */
final class ResourceVersions {
    private final Map<String, Long> seen = new HashMap<>();

    /** Whether the fact is news, remembering it if so. */
    boolean isNews(String namespace, String resourceVersion) {
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
