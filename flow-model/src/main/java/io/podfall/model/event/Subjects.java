package io.podfall.model.event;

/**
 * Event subjects name Kubernetes objects the way their API paths do: {@code namespaces/default/pods/web-1} for a
 * namespaced object, {@code nodes/node-1} for a cluster-scoped one.
 */
public final class Subjects {
    private Subjects() {}

    public static String of(String namespace, String resource, String name) {
        return namespace == null || namespace.isEmpty()
                ? resource + "/" + name
                : "namespaces/" + namespace + "/" + resource + "/" + name;
    }

    /** A collection, the subject of a request about many objects: {@code namespaces/default/pods}, {@code nodes}. */
    public static String ofCollection(String namespace, String resource) {
        return namespace == null || namespace.isEmpty() ? resource : "namespaces/" + namespace + "/" + resource;
    }

    /** The namespace of a subject, "" when it names a cluster-scoped object (or nothing). */
    public static String namespaceOf(String subject) {
        if (subject == null || !subject.startsWith("namespaces/")) {
            return "";
        }
        int end = subject.indexOf('/', "namespaces/".length());
        return end < 0 ? subject.substring("namespaces/".length()) : subject.substring("namespaces/".length(), end);
    }
}
