package io.podfall.model.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;

import java.util.Arrays;
import java.util.List;

/** The resource types the suite serves, with the names discovery and error messages use. */
public enum ResourceType {
    PODS("", "v1", "pods", "Pod", true, Pod.class, List.of("po")),
    NODES("", "v1", "nodes", "Node", false, Node.class, List.of("no"));

    private final String group;
    private final String version;
    private final String plural;
    private final String kind;
    private final boolean namespaced;
    private final Class<? extends HasMetadata> javaType;
    private final List<String> shortNames;

    ResourceType(String group, String version, String plural, String kind, boolean namespaced,
                 Class<? extends HasMetadata> javaType, List<String> shortNames) {
        this.group = group;
        this.version = version;
        this.plural = plural;
        this.kind = kind;
        this.namespaced = namespaced;
        this.javaType = javaType;
        this.shortNames = shortNames;
    }

    public static ResourceType byPlural(String plural) {
        return Arrays.stream(values()).filter(t -> t.plural.equals(plural)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown resource " + plural));
    }

    public String group() {
        return group;
    }

    public String version() {
        return version;
    }

    public String apiVersion() {
        return group.isEmpty() ? version : group + "/" + version;
    }

    public String plural() {
        return plural;
    }

    public String kind() {
        return kind;
    }

    public boolean namespaced() {
        return namespaced;
    }

    public Class<? extends HasMetadata> javaType() {
        return javaType;
    }

    public List<String> shortNames() {
        return shortNames;
    }

    /** As Kubernetes names a resource in messages: {@code pods}, {@code deployments.apps}. */
    public String qualifiedName() {
        return group.isEmpty() ? plural : plural + "." + group;
    }
}
