package io.podfall.apiserver.registry;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.podfall.apiserver.registry.StatusError.FieldError;
import java.util.ArrayList;
import java.util.List;

/**
 * The Lease rules of {@code pkg/apis/coordination/validation/validation.go} ValidateLeaseSpec, on create and on every
 * update or patch: a lease's duration is positive, its transitions are not negative, and a preferred holder needs a
 * strategy (the coordinated leader election strategies themselves are an alpha feature podfall does not serve, so a
 * strategy is stored as given). A Lease has no status: the whole object is its spec
 * ({@code pkg/registry/coordination/lease/strategy.go}).
 */
final class LeaseStrategy {

    private LeaseStrategy() {}

    static List<FieldError> validate(Lease lease) {
        List<FieldError> errors = new ArrayList<>();
        LeaseSpec spec = lease.getSpec();
        if (spec == null) {
            return errors;
        }
        if (spec.getLeaseDurationSeconds() != null && spec.getLeaseDurationSeconds() <= 0) {
            errors.add(FieldError.invalidValue(
                    "spec.leaseDurationSeconds", spec.getLeaseDurationSeconds().toString(), "must be greater than 0"));
        }
        if (spec.getLeaseTransitions() != null && spec.getLeaseTransitions() < 0) {
            errors.add(FieldError.invalidValue(
                    "spec.leaseTransitions",
                    spec.getLeaseTransitions().toString(),
                    "must be greater than or equal to 0"));
        }
        if (spec.getPreferredHolder() != null
                && !spec.getPreferredHolder().isEmpty()
                && (spec.getStrategy() == null || spec.getStrategy().isEmpty())) {
            errors.add(FieldError.forbidden("spec.preferredHolder", "may only be specified if `strategy` is defined"));
        }
        return errors;
    }
}
