package io.podfall.apiserver.registry;

import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.podfall.apiserver.registry.StatusError.FieldError;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The checks of a delete's options before anything is deleted, and the arithmetic of its deadline: upstream's
 * {@code staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go} {@code BeforeDelete}, which the generic
 * {@link Store}, a namespace's delete and an eviction all go through.
 */
final class BeforeDelete {
    private static final List<String> PROPAGATION_POLICIES = List.of("Foreground", "Background", "Orphan", "nil");

    private BeforeDelete() {}

    /** The options of a delete as its handler accepts them: no dry run, and valid ({@link #validateOptions}). */
    static DeleteOptions checkedOptions(DeleteOptions requested) {
        DeleteOptions options = requested == null ? new DeleteOptions() : requested;
        if (options.getDryRun() != null && !options.getDryRun().isEmpty()) {
            // A dry run stores nothing and so has no fact to put on the log; podfall refuses it rather than fake one.
            throw StatusError.badRequest("dryRun is not supported by this API server");
        }
        validateOptions(options);
        return options;
    }

    /**
     * {@code ValidateDeleteOptions}
     * ({@code staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go}).
     */
    private static void validateOptions(DeleteOptions options) {
        List<FieldError> errors = new ArrayList<>();
        String policy = options.getPropagationPolicy();
        if (options.getOrphanDependents() != null && policy != null) {
            errors.add(FieldError.invalid(
                    "propagationPolicy", policy, "orphanDependents and deletionPropagation cannot be both set"));
        }
        if (policy != null && !PROPAGATION_POLICIES.subList(0, 3).contains(policy)) {
            errors.add(FieldError.notSupported("propagationPolicy", policy, PROPAGATION_POLICIES));
        }
        if (!errors.isEmpty()) {
            throw StatusError.invalid("DeleteOptions.meta.k8s.io", "DeleteOptions", "meta.k8s.io", "", errors);
        }
    }

    /** The preconditions as {@code rest.BeforeDelete} checks them: the conflict names the kind ({@code Pod}). */
    static void checkPreconditions(ResourceType type, HasMetadata current, DeleteOptions options) {
        if (options.getPreconditions() == null) {
            return;
        }
        ObjectMeta meta = current.getMetadata();
        String uid = options.getPreconditions().getUid();
        if (uid != null && !uid.equals(meta.getUid())) {
            throw StatusError.conflict(
                    type.kind(),
                    meta.getName(),
                    "the UID in the precondition (" + uid
                            + ") does not match the UID in record (" + meta.getUid()
                            + "). The object might have been deleted and then recreated");
        }
        String rv = options.getPreconditions().getResourceVersion();
        if (rv != null && !rv.equals(meta.getResourceVersion())) {
            throw StatusError.conflict(
                    type.kind(),
                    meta.getName(),
                    "the ResourceVersion in the precondition (" + rv
                            + ") does not match the ResourceVersion in record (" + meta.getResourceVersion()
                            + "). The object might have been modified");
        }
    }

    /**
     * {@code t.Add(time.Second * time.Duration(seconds))} as BeforeDelete computes a deadline: the nanoseconds are an
     * int64 that wraps, so an absurd grace period (Long.MAX_VALUE) gives some deadline, as upstream, rather than an
     * overflow that fails the request.
     */
    static Instant plusGoSeconds(Instant t, long seconds) {
        return t.plusNanos(seconds * 1_000_000_000L);
    }
}
