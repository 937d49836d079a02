package io.podfall.apiserver.registry;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.StatusCauseBuilder;
import io.podfall.model.k8s.ResourceType;
import java.util.List;

/**
 * The NamespaceLifecycle admission plugin
 * ({@code staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go}), run before a request's
 * validation: nothing is created in a namespace that does not exist (404 {@code namespaces "x" not found}) or that is
 * being terminated (403, with a {@code NamespaceTerminating} cause), and the namespaces the cluster cannot live without
 * are never deleted. Deletes, updates and cluster-scoped objects pass; so does anything about namespaces themselves.
 */
final class NamespaceLifecycle {
    /** The plugin's {@code immortalNamespaces}. */
    static final List<String> IMMORTAL = List.of("default", "kube-system", "kube-public");

    private NamespaceLifecycle() {}

    /**
     * A create in {@code namespace} (an object, or a pod's binding, which upstream admits as a create of the
     * {@code pods/binding} subresource). {@code name} is the object's, for the message.
     */
    static void admitCreate(RegistryState state, ResourceType type, String namespace, String name) {
        if (!type.namespaced() || namespace == null || namespace.isEmpty()) {
            return;
        }
        Namespace ns = (Namespace) state.get(ResourceType.NAMESPACES, "", namespace)
                .orElseThrow(() -> StatusError.notFound(ResourceType.NAMESPACES, namespace));
        if (NamespaceStrategy.isTerminating(ns)) {
            throw StatusError.forbidden(
                    type,
                    name,
                    "unable to create new content in namespace " + namespace + " because it is being terminated",
                    new StatusCauseBuilder()
                            .withReason("NamespaceTerminating")
                            .withField("metadata.namespace")
                            .withMessage("namespace " + namespace + " is being terminated")
                            .build());
        }
    }

    static void admitDelete(ResourceType type, String name) {
        if (type == ResourceType.NAMESPACES && IMMORTAL.contains(name)) {
            throw StatusError.forbidden(type, name, "this namespace may not be deleted");
        }
    }
}
