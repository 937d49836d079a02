package io.podfall.apiserver.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.model.Json;
import io.podfall.model.k8s.ResourceType;
import java.util.List;

/**
 * What differs between the kinds the registry stores, besides their strategies: the subresources each serves, whether a
 * delete answers with the object or a Status, which serve deletecollection, and the discovery categories. Shared by the
 * registry and the HTTP layer, so a path is served exactly when the registry accepts its requests.
 */
public final class Kinds {
    public static final String STATUS = "status";
    public static final String SCALE = "scale";
    /** A namespace's {@code /finalize}: the only write of its {@code spec.finalizers}. */
    public static final String FINALIZE = "finalize";
    /**
     * A pod's {@code /eviction}: only created, with an Eviction ({@code pkg/registry/core/pod/storage/eviction.go}).
     */
    public static final String EVICTION = "eviction";

    private Kinds() {}

    /**
     * The subresources of a kind that podfall serves: {@code /status} where upstream splits the status from the spec
     * (every kind here but endpoints, events and leases; a PodDisruptionBudget's status is written by the disruption
     * controller and the Eviction API), {@code /scale} for the workloads
     * ({@code pkg/registry/apps/deployment/storage/storage.go}, {@code .../replicaset/storage/storage.go}),
     * {@code /finalize} for namespaces ({@code pkg/registry/core/namespace/storage/storage.go} FinalizeREST),
     * {@code /eviction} for pods ({@code pkg/registry/core/pod/storage/storage.go}).
     */
    public static List<String> subresources(ResourceType type) {
        return switch (type) {
            case PODS -> List.of(STATUS, EVICTION);
            case DEPLOYMENTS, REPLICASETS -> List.of(STATUS, SCALE);
            case NAMESPACES -> List.of(STATUS, FINALIZE);
            case ENDPOINTS, EVENTS, LEASES -> List.of();
            default -> List.of(STATUS);
        };
    }

    /** The verbs of a subresource, as discovery lists them: FinalizeREST only updates, EvictionREST only creates. */
    public static List<String> subresourceVerbs(String subresource) {
        return switch (subresource) {
            case FINALIZE -> List.of("update");
            case EVICTION -> List.of("create");
            default -> List.of("get", "patch", "update");
        };
    }

    /** Whether the object itself ({@code null}) or a subresource can be read (GET, and so PATCH). */
    public static boolean readable(String subresource) {
        return subresource == null || subresourceVerbs(subresource).contains("get");
    }

    /** Whether the object itself ({@code null}) or a subresource can be replaced (PUT). */
    public static boolean updatable(String subresource) {
        return subresource == null || subresourceVerbs(subresource).contains("update");
    }

    /** Whether the object has a status that only its {@code /status} subresource may write. */
    static boolean hasStatusSubresource(ResourceType type) {
        return subresources(type).contains(STATUS);
    }

    /**
     * {@code ReturnDeletedObject} of the kind's store: pods, services and namespaces answer a delete that removes them
     * with their last state, every other kind with a Status Success.
     */
    static boolean returnsDeletedObject(ResourceType type) {
        return type == ResourceType.PODS || type == ResourceType.SERVICES || type == ResourceType.NAMESPACES;
    }

    /** The categories of the kind ({@code kubectl get all}): what upstream puts in {@code all}. */
    public static List<String> categories(ResourceType type) {
        return switch (type) {
            case PODS, SERVICES, DEPLOYMENTS, REPLICASETS -> List.of("all");
            default -> List.of();
        };
    }

    /**
     * Whether the kind serves {@code deletecollection}: every kind but namespaces, whose storage has no
     * DeleteCollection (a namespace goes only through its own termination, one at a time).
     */
    public static boolean collectionDeletable(ResourceType type) {
        return type != ResourceType.NAMESPACES;
    }

    /** A {@code <Kind>List} of {@code items} at {@code resourceVersion}, as a LIST and a deletecollection answer. */
    public static ObjectNode list(ResourceType type, String resourceVersion, List<JsonNode> items) {
        ObjectNode doc =
                Json.MAPPER.createObjectNode().put("kind", type.kind() + "List").put("apiVersion", type.apiVersion());
        doc.putObject("metadata").put("resourceVersion", resourceVersion);
        doc.putArray("items").addAll(items);
        return doc;
    }
}
