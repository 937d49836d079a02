package io.podfall.model.kubelet;

import java.time.Instant;

/** A pod worker's termination of a pod: the effective grace period and the deadline it gives the containers. */
public record PodTermination(
        String node, String podUid, String namespace, String name, long gracePeriodSeconds, Instant deadline) {}
