package io.podfall.apiserver.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.podfall.apiserver.registry.StatusError.FieldError;
import io.podfall.model.Json;
import io.podfall.model.k8s.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What an update of an object must satisfy before the generic {@link Store} writes it, and what it may not change:
 * upstream's {@code staging/src/k8s.io/apiserver/pkg/registry/rest/update.go} {@code BeforeUpdate}, with the
 * strategies' {@code PrepareForUpdate} and {@code ValidateUpdate} it calls and {@code ValidateObjectMetaUpdate}
 * ({@code staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go}).
 */
final class BeforeUpdate {
    private static final String STATUS = Kinds.STATUS;
    /** What podfall lets a pod update change; upstream's list also has a few spec fields podfall does not run. */
    private static final String POD_UPDATABLE_FIELDS = "`metadata.labels`,`metadata.annotations`,"
            + "`metadata.finalizers`,`metadata.ownerReferences` (and `status` through pods/status)";

    private BeforeUpdate() {}

    /**
     * The split of spec and status that every strategy with a status subresource makes in {@code PrepareForUpdate}: a
     * write of the main resource keeps the stored status, one of {@code /status} the stored spec. A namespace's spec
     * (its finalizers) is not written by an update either: only {@code /finalize} does that, and it keeps the status
     * ({@code namespaceFinalizeStrategy}).
     */
    static JsonNode withStoredParts(
            RegistryState state, ResourceType type, HasMetadata current, JsonNode next, String subresource) {
        if (!(next instanceof ObjectNode body) || !Kinds.hasStatusSubresource(type)) {
            return next;
        }
        for (String part : List.of("spec", STATUS)) {
            JsonNode sent = body.get(part);
            // Decoded before the stored parts replace it, as upstream decodes the body whole: a string is no spec.
            if (sent != null && !sent.isNull() && !sent.isObject()) {
                throw StatusError.badRequest(type.kind() + " in version \"" + type.version()
                        + "\" cannot be handled as a " + type.kind() + ": json: cannot unmarshal "
                        + sent.getNodeType().name().toLowerCase() + " into Go struct field " + type.kind() + "." + part
                        + " of type object");
            }
        }
        ObjectNode out = body.deepCopy();
        JsonNode stored = state.tree(type, current);
        List<String> kept = STATUS.equals(subresource)
                ? List.of("spec")
                : type == ResourceType.NAMESPACES && !Kinds.FINALIZE.equals(subresource)
                        ? List.of("spec", STATUS)
                        : List.of(STATUS);
        for (String field : kept) {
            if (stored.has(field)) {
                out.set(field, stored.get(field).deepCopy());
            } else {
                out.remove(field);
            }
        }
        return out;
    }

    /**
     * Readies {@code next}, which has the stored resourceVersion, to take the place of {@code current}: the fields an
     * update never changes, the strategy's {@code PrepareForUpdate} and validation.
     *
     * @throws StatusError 422 Invalid with every field error found
     */
    static void check(
            RegistryState state,
            ResourceType type,
            HasMetadata current,
            HasMetadata next,
            String name,
            String subresource) {
        ObjectMeta old = current.getMetadata();
        ObjectMeta meta = next.getMetadata();
        // rest.BeforeUpdate: generation and creationTimestamp are the server's, a missing uid is the stored one, and
        // an update never removes or changes a deletionTimestamp, nor drops the grace period recorded with it.
        meta.setGeneration(old.getGeneration());
        meta.setCreationTimestamp(old.getCreationTimestamp());
        if (meta.getUid() == null || meta.getUid().isEmpty()) {
            meta.setUid(old.getUid());
        }
        if (old.getDeletionTimestamp() != null) {
            meta.setDeletionTimestamp(old.getDeletionTimestamp());
        }
        if (meta.getDeletionGracePeriodSeconds() == null) {
            meta.setDeletionGracePeriodSeconds(old.getDeletionGracePeriodSeconds());
        }
        List<FieldError> errors = new ArrayList<>(prepareForUpdate(type, current, next, subresource));
        // ValidateObjectMetaUpdate.
        if (!meta.getUid().equals(old.getUid())) {
            errors.add(FieldError.immutable("metadata.uid", meta.getUid()));
        }
        if (!Objects.equals(meta.getDeletionTimestamp(), old.getDeletionTimestamp())) {
            errors.add(FieldError.immutable("metadata.deletionTimestamp", meta.getDeletionTimestamp()));
        }
        if (!Objects.equals(meta.getDeletionGracePeriodSeconds(), old.getDeletionGracePeriodSeconds())) {
            errors.add(
                    FieldError.immutable("metadata.deletionGracePeriodSeconds", meta.getDeletionGracePeriodSeconds()));
        }
        if (old.getDeletionTimestamp() != null) {
            List<String> added = meta.getFinalizers().stream()
                    .filter(f -> !old.getFinalizers().contains(f))
                    .distinct()
                    .toList();
            if (!added.isEmpty()) {
                errors.add(FieldError.forbidden(
                        "metadata.finalizers",
                        "no new finalizers can be added if the object is being deleted, found new finalizers []string{"
                                + String.join(
                                        ", ",
                                        added.stream().map(StatusError::quote).toList()) + "}"));
            }
        }
        if (next instanceof Pod) {
            errors.addAll(validatePodUpdate(state, (Pod) current, (Pod) next));
        }
        if (!errors.isEmpty()) {
            throw StatusError.invalid(type, name, errors);
        }
    }

    /**
     * The rest of the strategies' {@code PrepareForUpdate} and update validation, after {@link #withStoredParts} split
     * spec from status: a pod's status write also keeps its owner references
     * ({@code pkg/registry/core/pod/strategy.go}); every body gets its kind's defaults; a workload's spec change is a
     * new generation ({@link WorkloadStrategy#prepareForUpdate}), as is a PodDisruptionBudget's
     * ({@link PodDisruptionBudgetStrategy}).
     */
    private static List<FieldError> prepareForUpdate(
            ResourceType type, HasMetadata current, HasMetadata next, String subresource) {
        boolean status = STATUS.equals(subresource);
        if (next instanceof Pod pod) {
            if (status) {
                pod.getMetadata().setOwnerReferences(current.getMetadata().getOwnerReferences());
            }
            PodStrategy.applyDefaults(pod);
            if (!status) {
                DefaultTolerationSeconds.admit(pod);
            }
        } else if (WorkloadStrategy.isWorkload(type)) {
            if (status) {
                WorkloadStrategy.prepareForStatusUpdate(current, next);
                return List.of();
            }
            List<FieldError> errors = new ArrayList<>(WorkloadStrategy.prepareForUpdate(current, next));
            errors.addAll(WorkloadStrategy.validate(next));
            return errors;
        } else if (next instanceof Namespace namespace) {
            NamespaceStrategy.applyDefaults(namespace);
            return NamespaceStrategy.validate(namespace);
        } else if (next instanceof Service service && !status) {
            ServiceStrategy.applyDefaults(service);
            return ServiceStrategy.keepClusterIP((Service) current, service);
        } else if (next instanceof Endpoints endpoints) {
            EndpointsStrategy.applyDefaults(endpoints);
            return EndpointsStrategy.validate(endpoints);
        } else if (next instanceof Lease lease) {
            return LeaseStrategy.validate(lease);
        } else if (next instanceof PodDisruptionBudget pdb) {
            return status
                    ? PodDisruptionBudgetStrategy.validateStatus(pdb)
                    : PodDisruptionBudgetStrategy.prepareForUpdate((PodDisruptionBudget) current, pdb);
        }
        return List.of();
    }

    /**
     * {@code ValidatePodUpdate} ({@code pkg/apis/core/validation/validation.go}), narrowed: podfall runs no in-place
     * change of a pod, so besides its status only labels, annotations, finalizers and ownerReferences may change
     * (upstream restricts only the spec: the garbage collector and the ReplicaSet controller patch a pod's
     * ownerReferences to orphan, release or adopt it).
     */
    private static List<FieldError> validatePodUpdate(RegistryState state, Pod current, Pod next) {
        Pod munged = Storage.copy(next);
        ObjectMeta meta = munged.getMetadata();
        meta.setLabels(current.getMetadata().getLabels());
        meta.setAnnotations(current.getMetadata().getAnnotations());
        meta.setFinalizers(current.getMetadata().getFinalizers());
        meta.setOwnerReferences(current.getMetadata().getOwnerReferences());
        // Checked on their own by the metadata rules above.
        meta.setUid(current.getMetadata().getUid());
        meta.setDeletionTimestamp(current.getMetadata().getDeletionTimestamp());
        meta.setDeletionGracePeriodSeconds(current.getMetadata().getDeletionGracePeriodSeconds());
        munged.setStatus(current.getStatus());
        if (Storage.same(state.tree(ResourceType.PODS, current), Json.tree(munged))) {
            return List.of();
        }
        String field = Objects.equals(Json.tree(current.getSpec()), Json.tree(munged.getSpec())) ? "metadata" : "spec";
        return List.of(
                FieldError.forbidden(field, "pod updates may not change fields other than " + POD_UPDATABLE_FIELDS));
    }
}
