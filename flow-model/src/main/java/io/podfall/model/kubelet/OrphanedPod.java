package io.podfall.model.kubelet;

import java.util.List;

/**
 * A pod the runtime runs that the kubelet knows only from the runtime's facts ({@code kubelet.OrphanedPodFound}): its
 * node, UID, namespace and name (from the facts' subject), and the containers the runtime reported running, which the
 * kubelet is about to stop, with the grace period it gives them.
 */
public record OrphanedPod(
        String node,
        String podUid,
        String namespace,
        String name,
        List<String> runningContainers,
        long gracePeriodSeconds) {}
