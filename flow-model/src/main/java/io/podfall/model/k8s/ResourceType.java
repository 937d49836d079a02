package io.podfall.model.k8s;

import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.Arrays;
import java.util.List;

/**
 * The resource types the suite serves, with the names discovery and error messages use: the core/v1 objects of a pod's
 * life, the apps/v1 workloads whose deletion cascades to them through ownerReferences, the coordination.k8s.io/v1
 * Leases of the nodes' heartbeats, and the policy/v1 PodDisruptionBudgets that the Eviction API honours.
 */
public enum ResourceType {
    PODS("", "v1", "pods", "Pod", true, Pod.class, List.of("po")),
    NODES("", "v1", "nodes", "Node", false, Node.class, List.of("no")),
    NAMESPACES("", "v1", "namespaces", "Namespace", false, Namespace.class, List.of("ns")),
    SERVICES("", "v1", "services", "Service", true, Service.class, List.of("svc")),
    ENDPOINTS("", "v1", "endpoints", "Endpoints", true, Endpoints.class, List.of("ep")),
    EVENTS("", "v1", "events", "Event", true, io.fabric8.kubernetes.api.model.Event.class, List.of("ev")),
    DEPLOYMENTS("apps", "v1", "deployments", "Deployment", true, Deployment.class, List.of("deploy")),
    REPLICASETS("apps", "v1", "replicasets", "ReplicaSet", true, ReplicaSet.class, List.of("rs")),
    /** A kubelet's heartbeat: one Lease per node in {@code kube-node-lease}, renewed every few seconds. */
    LEASES("coordination.k8s.io", "v1", "leases", "Lease", true, Lease.class, List.of()),
    /** How many of a set of pods a voluntary disruption (an eviction) must leave healthy. */
    PODDISRUPTIONBUDGETS(
            "policy",
            "v1",
            "poddisruptionbudgets",
            "PodDisruptionBudget",
            true,
            PodDisruptionBudget.class,
            List.of("pdb"));

    private final String group;
    private final String version;
    private final String plural;
    private final String kind;
    private final boolean namespaced;
    private final Class<? extends HasMetadata> javaType;
    private final List<String> shortNames;

    ResourceType(
            String group,
            String version,
            String plural,
            String kind,
            boolean namespaced,
            Class<? extends HasMetadata> javaType,
            List<String> shortNames) {
        this.group = group;
        this.version = version;
        this.plural = plural;
        this.kind = kind;
        this.namespaced = namespaced;
        this.javaType = javaType;
        this.shortNames = shortNames;
    }

    /** The type of a plural name; the plurals of the suite's types are unique across their groups. */
    public static ResourceType byPlural(String plural) {
        return Arrays.stream(values())
                .filter(t -> t.plural.equals(plural))
                .findFirst()
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
