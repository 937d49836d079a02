package io.podfall.kubelet.podworkers;

/**
 * Switches that move the kubelet away from what the current release does, off by default: a proposed fix upstream has
 * not released, or an older behaviour, so an incident recorded under either replays faithfully and a what-if replay
 * shows the difference. Whenever a switch changes a decision, the event carrying that decision names it in its
 * {@code compat} field.
 *
 * @param shortenedGraceKillsAgain {@code podfall.kubelet.compat.shortened-grace-kills-again}: the unmerged fix of
 *     upstream PR #113883 for issues #83916 and #113712. In every released kubelet a grace period shortened while the
 *     pod terminates does not reach the kill in flight: UpdatePod cancels the sync, but SyncTerminatingPod's killPod
 *     never watches that cancellation (pkg/kubelet/kubelet.go; upstream's comment there names #113606), so the
 *     containers keep the first deadline. With the fix, StopContainer returns on the cancellation, the kill returns
 *     once every running preStop hook has returned (a hook is not interrupted), and the worker kills again with the
 *     shorter grace period, counted from that moment. The second kill is a fresh killContainer: a container's preStop
 *     hook runs again.
 * @param forceDeleteUsesSpecGrace {@code podfall.kubelet.compat.force-delete-uses-spec-grace}: a force delete
 *     (deletionGracePeriodSeconds 0) is taken for "unset" by calculateEffectiveGracePeriod, so the node gives the pod
 *     spec.terminationGracePeriodSeconds instead of 1 s while the API server has already removed it. Upstream issues
 *     #115819, #120449.
 */
public record Compat(boolean shortenedGraceKillsAgain, boolean forceDeleteUsesSpecGrace) {
    public static final Compat NONE = new Compat(false, false);
    public static final String SHORTENED_GRACE_KILLS_AGAIN = "shortened-grace-kills-again";
    /**
     * The name logs recorded before the release's defect became the default give it: events whose shortened grace
     * period did not reach the kill name it. It is the default now, so a replay needs nothing to reproduce them.
     */
    public static final String SHORTENED_GRACE_IGNORED = "shortened-grace-ignored";

    public static final String FORCE_DELETE_USES_SPEC_GRACE = "force-delete-uses-spec-grace";
}
