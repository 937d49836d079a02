package io.podfall.apiserver.registry;

import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceSpec;
import io.fabric8.kubernetes.api.model.NamespaceStatus;
import io.podfall.apiserver.registry.StatusError.FieldError;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The namespace rules of {@code pkg/registry/core/namespace/strategy.go} and {@code .../storage/storage.go}.
 *
 * <p>A namespace's life: created {@code Active} with the {@code kubernetes} finalizer in {@code spec.finalizers}; the
 * first DELETE marks it {@code Terminating} (deletionTimestamp now, no grace period); the namespace controller then
 * deletes everything in it and takes {@code kubernetes} out through {@code /finalize}, the only write of
 * {@code spec.finalizers}; the write that leaves both {@code spec.finalizers} and {@code metadata.finalizers} empty
 * removes it. While it terminates, nothing new may be created in it ({@link NamespaceLifecycle}).
 */
final class NamespaceStrategy {
    static final String FINALIZER_KUBERNETES = "kubernetes";
    static final String NAME_LABEL = "kubernetes.io/metadata.name";
    static final String ACTIVE = "Active";
    static final String TERMINATING = "Terminating";
    /** {@code standardFinalizers} of {@code pkg/apis/core/helper/helpers.go}: the names that need no domain prefix. */
    private static final List<String> STANDARD_FINALIZERS =
            List.of(FINALIZER_KUBERNETES, Registry.FINALIZER_ORPHAN, Registry.FINALIZER_FOREGROUND);
    /** {@code IsQualifiedName}: an optional DNS subdomain prefix and a name of at most 63 characters. */
    private static final Pattern QUALIFIED_NAME = Pattern.compile(
            "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");

    private NamespaceStrategy() {}

    static void prepareForCreate(Namespace namespace) {
        NamespaceSpec spec = namespace.getSpec() == null ? new NamespaceSpec() : namespace.getSpec();
        namespace.setSpec(spec);
        List<String> finalizers = new ArrayList<>(spec.getFinalizers());
        if (!finalizers.contains(FINALIZER_KUBERNETES)) {
            finalizers.add(FINALIZER_KUBERNETES);
        }
        spec.setFinalizers(finalizers);
        NamespaceStatus status = new NamespaceStatus();
        status.setPhase(ACTIVE);
        namespace.setStatus(status);
        applyDefaults(namespace);
    }

    /** SetDefaults_Namespace: the name label, on create and on every update. */
    static void applyDefaults(Namespace namespace) {
        Map<String, String> labels = new LinkedHashMap<>(
                namespace.getMetadata().getLabels() == null
                        ? Map.of()
                        : namespace.getMetadata().getLabels());
        labels.put(NAME_LABEL, namespace.getMetadata().getName());
        namespace.getMetadata().setLabels(labels);
    }

    /**
     * The {@code spec.finalizers} part of {@code ValidateNamespace} and {@code ValidateNamespaceFinalizeUpdate}
     * ({@code pkg/apis/core/validation/validation.go} validateFinalizerName): a qualified name, and one without a
     * domain prefix only if it is a standard finalizer.
     */
    static List<FieldError> validate(Namespace namespace) {
        List<FieldError> errors = new ArrayList<>();
        List<String> finalizers =
                namespace.getSpec() == null ? List.of() : namespace.getSpec().getFinalizers();
        for (int i = 0; i < finalizers.size(); i++) {
            String name = finalizers.get(i);
            String field = "spec.finalizers[" + i + "]";
            if (name == null || !QUALIFIED_NAME.matcher(name).matches()) {
                errors.add(
                        FieldError.invalid(
                                field,
                                name,
                                "a qualified name must consist of alphanumeric characters, '-', '_' or '.', "
                                        + "and must start and end with an alphanumeric character, with an optional DNS subdomain prefix and '/'"));
            } else if (!name.contains("/") && !STANDARD_FINALIZERS.contains(name)) {
                errors.add(FieldError.invalid(
                        field, name, "name is neither a standard finalizer name nor is it fully qualified"));
            }
        }
        return errors;
    }

    static boolean isTerminating(Namespace namespace) {
        return namespace.getStatus() != null
                && TERMINATING.equals(namespace.getStatus().getPhase());
    }

    /** Whether the namespace controller has taken every finalizer of {@code spec.finalizers} out. */
    static boolean isFinalized(Namespace namespace) {
        return namespace.getSpec() == null
                || namespace.getSpec().getFinalizers().isEmpty();
    }

    /**
     * The first DELETE of a namespace ({@code REST.Delete} of storage.go): deletionTimestamp now and phase
     * {@code Terminating}, with no deletionGracePeriodSeconds (it bypasses the graceful path); the garbage collector's
     * finalizers follow the options as for any object, except that {@code orphanDependents: false} asks for
     * {@code foregroundDeletion} here ({@code shouldHaveDeleteDependentsFinalizer}).
     */
    static void markTerminating(Namespace namespace, DeleteOptions options, String now) {
        namespace.getMetadata().setDeletionTimestamp(now);
        NamespaceStatus status = namespace.getStatus() == null ? new NamespaceStatus() : namespace.getStatus();
        status.setPhase(TERMINATING);
        namespace.setStatus(status);
        List<String> finalizers =
                Store.deletionFinalizers(namespace.getMetadata().getFinalizers(), options);
        if (Boolean.FALSE.equals(options.getOrphanDependents())
                && !finalizers.contains(Registry.FINALIZER_FOREGROUND)) {
            finalizers.add(Registry.FINALIZER_FOREGROUND);
        }
        namespace.getMetadata().setFinalizers(finalizers);
    }
}
