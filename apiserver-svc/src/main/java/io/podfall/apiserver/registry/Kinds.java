package io.podfall.apiserver.registry;

import io.podfall.model.k8s.ResourceType;

import java.util.List;

/**
 * What differs between the kinds the registry stores, besides their strategies: the subresources each serves,
 * whether a delete answers with the object or a Status, and the discovery categories. Shared by the registry and
 * the HTTP layer, so a path is served exactly when the registry accepts its requests.
 */
public final class Kinds {
    public static final String STATUS = "status";
    public static final String SCALE = "scale";

    private Kinds() {
    }

    /**
     * The subresources of a kind that podfall serves: {@code /status} where upstream splits the status from the
     * spec (every kind here but endpoints and events), {@code /scale} for the workloads
     * ({@code pkg/registry/apps/deployment/storage/storage.go}, {@code .../replicaset/storage/storage.go}).
     */
    public static List<String> subresources(ResourceType type) {
        return switch (type) {
            case DEPLOYMENTS, REPLICASETS -> List.of(STATUS, SCALE);
            case ENDPOINTS, EVENTS -> List.of();
            default -> List.of(STATUS);
        };
    }

    /** Whether the object has a status that only its {@code /status} subresource may write. */
    static boolean hasStatusSubresource(ResourceType type) {
        return subresources(type).contains(STATUS);
    }

    /**
     * {@code ReturnDeletedObject} of the kind's store: pods, services and namespaces answer a delete that removes
     * them with their last state, every other kind with a Status Success.
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

    /** Whether the kind can be deleted here: a namespace's deletion (the namespace controller emptying it) is not simulated. */
    public static boolean deletable(ResourceType type) {
        return type != ResourceType.NAMESPACES;
    }
}
