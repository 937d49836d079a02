package io.podfall.kubelet.podworkers;

/**
 * Compatibility switches that reproduce defects of upstream kubelets around 1.22, off by default, so an incident
 * recorded under the old behaviour replays faithfully and a what-if replay without them shows the fix. Whenever a
 * switch changes a decision, the event carrying that decision names it in its {@code compat} field.
 *
 * @param shortenedGraceIgnored {@code podfall.kubelet.compat.shortened-grace-ignored}: a grace period shortened while
 *     the pod terminates does not reach the kill in flight; the containers keep the original deadline. Upstream issues
 *     #83916, #113712: UpdatePod cancels the sync in flight, but killPod never watched ctx.Done() (the unmerged fix
 *     #127580 names the cause).
 * @param forceDeleteUsesSpecGrace {@code podfall.kubelet.compat.force-delete-uses-spec-grace}: a force delete
 *     (deletionGracePeriodSeconds 0) is taken for "unset" by calculateEffectiveGracePeriod, so the node gives the pod
 *     spec.terminationGracePeriodSeconds instead of 1 s while the API server has already removed it. Upstream issue
 *     #120449.
 */
public record Compat(boolean shortenedGraceIgnored, boolean forceDeleteUsesSpecGrace) {
    public static final Compat NONE = new Compat(false, false);
    public static final String SHORTENED_GRACE_IGNORED = "shortened-grace-ignored";
    public static final String FORCE_DELETE_USES_SPEC_GRACE = "force-delete-uses-spec-grace";
}
