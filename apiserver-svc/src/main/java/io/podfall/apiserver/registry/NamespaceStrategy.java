package io.podfall.apiserver.registry;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceSpec;
import io.fabric8.kubernetes.api.model.NamespaceStatus;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The namespace rules of {@code pkg/registry/core/namespace/strategy.go}: a new namespace is {@code Active} and
 * carries the {@code kubernetes} finalizer (which the namespace controller removes once it has emptied a
 * namespace being deleted), and every namespace the label {@code kubernetes.io/metadata.name} with its name.
 */
final class NamespaceStrategy {
    static final String FINALIZER_KUBERNETES = "kubernetes";
    static final String NAME_LABEL = "kubernetes.io/metadata.name";

    private NamespaceStrategy() {
    }

    static void prepareForCreate(Namespace namespace) {
        NamespaceSpec spec = namespace.getSpec() == null ? new NamespaceSpec() : namespace.getSpec();
        namespace.setSpec(spec);
        List<String> finalizers = new ArrayList<>(spec.getFinalizers());
        if (!finalizers.contains(FINALIZER_KUBERNETES)) {
            finalizers.add(FINALIZER_KUBERNETES);
        }
        spec.setFinalizers(finalizers);
        NamespaceStatus status = new NamespaceStatus();
        status.setPhase("Active");
        namespace.setStatus(status);
        applyDefaults(namespace);
    }

    /** SetDefaults_Namespace: the name label, on create and on every update. */
    static void applyDefaults(Namespace namespace) {
        Map<String, String> labels = new LinkedHashMap<>(namespace.getMetadata().getLabels() == null ? Map.of() : namespace.getMetadata().getLabels());
        labels.put(NAME_LABEL, namespace.getMetadata().getName());
        namespace.getMetadata().setLabels(labels);
    }
}
