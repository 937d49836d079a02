package io.podfall.apiserver.registry;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Ids;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.List;

/**
 * The namespaces every cluster has, which the API server creates itself
 * ({@code pkg/controlplane/controller/systemnamespaces/ system_namespaces_controller.go}: {@code default},
 * {@code kube-system}, {@code kube-public}, {@code kube-node-lease}, each created if missing). In podfall they are
 * ordinary creation requests on the log, appended once the service has rebuilt its state, so every reader of the log
 * sees them created like any namespace. Each request's id is derived from the name and the registry's resourceVersion
 * when it was found missing: two replicas (or a restart before the first request reached the log) that decide on the
 * same state append the same request, which the registry handles once.
 */
public final class SystemNamespaces {
    public static final List<String> NAMES = List.of("default", "kube-system", "kube-public", "kube-node-lease");

    private SystemNamespaces() {}

    /** The creation requests of the system namespaces the registry does not hold. */
    public static List<Event> missing(RegistryState state, Instant now) {
        return NAMES.stream()
                .filter(name -> !state.contains(ResourceType.NAMESPACES, "", name))
                .map(name -> {
                    ObjectNode namespace = Json.MAPPER
                            .createObjectNode()
                            .put("apiVersion", "v1")
                            .put("kind", "Namespace");
                    namespace.putObject("metadata").put("name", name);
                    return Event.request(
                            Ids.derived("system-namespace", name, Long.toString(state.resourceVersion())),
                            Registry.SOURCE,
                            EventTypes.CREATION_REQUESTED,
                            Subjects.of("", ResourceType.NAMESPACES.plural(), name),
                            now,
                            null,
                            new CreationRequest(ResourceType.NAMESPACES.plural(), "", namespace));
                })
                .toList();
    }

    /**
     * Whether the namespaces nobody can delete ({@link NamespaceLifecycle#IMMORTAL}) exist, so that clients can create
     * in {@code default}: the API server is ready only then, as upstream's readiness waits for its bootstrap.
     */
    public static boolean ready(RegistryState state) {
        return NamespaceLifecycle.IMMORTAL.stream().allMatch(name -> state.contains(ResourceType.NAMESPACES, "", name));
    }
}
