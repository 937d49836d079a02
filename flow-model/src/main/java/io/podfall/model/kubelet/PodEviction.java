package io.podfall.model.kubelet;

/**
 * The kubelet's eviction manager chose a pod to evict under node pressure ({@code kubelet.PodEvicted}): its node, UID,
 * namespace and name, the eviction signal and the resource the node is low on, the grace period override the pod is
 * killed with, and the message its final status will carry.
 */
public record PodEviction(
        String node,
        String podUid,
        String namespace,
        String name,
        String signal,
        String resource,
        long gracePeriodSeconds,
        String message) {}
