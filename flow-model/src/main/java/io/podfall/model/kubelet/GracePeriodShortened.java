package io.podfall.model.kubelet;

import java.time.Instant;

/**
 * A terminating pod's grace period got shorter (pkg/kubelet/pod_workers.go: wasGracePeriodShortened): the recorded and
 * the new effective grace period, and the new deadline, still counted from when termination began. {@code compat} names
 * the compatibility switch under which the kill in flight ignored the shortening (it keeps its original deadline), else
 * null.
 */
public record GracePeriodShortened(
        String node,
        String podUid,
        String namespace,
        String name,
        long previousGracePeriodSeconds,
        long gracePeriodSeconds,
        Instant deadline,
        String compat) {}
