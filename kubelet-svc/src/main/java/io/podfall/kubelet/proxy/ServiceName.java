package io.podfall.kubelet.proxy;

import java.util.Comparator;

/** A Service by namespace and name (upstream's types.NamespacedName), in that order. */
record ServiceName(String namespace, String name) implements Comparable<ServiceName> {
    private static final Comparator<ServiceName> ORDER =
            Comparator.comparing(ServiceName::namespace).thenComparing(ServiceName::name);

    @Override
    public int compareTo(ServiceName other) {
        return ORDER.compare(this, other);
    }
}
