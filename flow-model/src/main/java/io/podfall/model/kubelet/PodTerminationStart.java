package io.podfall.model.kubelet;

import java.time.Instant;

/**
 * The start of a pod worker's termination of a pod ({@code kubelet.PodTerminationStarted}): a {@link PodTermination}
 * and, when a compatibility switch changed the grace period, the switch's name (else null), so a log recorded under an
 * old kubelet's defect says so. A reader of {@link PodTermination} reads it too.
 */
public record PodTerminationStart(
        String node,
        String podUid,
        String namespace,
        String name,
        long gracePeriodSeconds,
        Instant deadline,
        String compat) {}
