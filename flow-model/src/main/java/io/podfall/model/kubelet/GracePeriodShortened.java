package io.podfall.model.kubelet;

import java.time.Instant;

/**
 * A terminating pod's grace period got shorter (pkg/kubelet/pod_workers.go: wasGracePeriodShortened): the recorded and
 * the new effective grace period, and the new {@code deadline}, counted from when termination began, as the API
 * server's deletionTimestamp moved. {@code killDeadline} is when the kubelet's kill will SIGKILL what still runs: in a
 * released kubelet the kill in flight keeps its first deadline; under the fix switch ({@code compat}
 * {@code shortened-grace-kills-again}) the kubelet kills again with the new grace period, from when the kill in flight
 * returns (now, or once the running preStop hooks have returned; earlier if such a container exits first).
 *
 * <p>Logs recorded before {@code killDeadline} existed lack it: their kubelet moved the kill to {@code deadline},
 * unless {@code compat} is {@code shortened-grace-ignored}.
 */
public record GracePeriodShortened(
        String node,
        String podUid,
        String namespace,
        String name,
        long previousGracePeriodSeconds,
        long gracePeriodSeconds,
        Instant deadline,
        Instant killDeadline,
        String compat) {

    /**
     * Whether the shorter grace period reached the kill: the kubelet killed again, or (an older log) moved the kill.
     */
    public boolean reachesKill() {
        return killDeadline == null ? compat == null : compat != null;
    }
}
