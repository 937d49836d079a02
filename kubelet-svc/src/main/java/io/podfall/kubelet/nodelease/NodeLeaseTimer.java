package io.podfall.kubelet.nodelease;

import io.podfall.model.core.TimerKey;

/** The next renewal of a node's Lease is due (renewInterval, or the retry of a refused renewal). */
public record NodeLeaseTimer(String node) implements TimerKey {

    @Override
    public String id() {
        return "nodelease/" + node;
    }
}
