package io.podfall.controller.tainteviction;

import io.podfall.controller.PodsByNode.PodKey;
import io.podfall.model.core.TimerKey;

/** A pod's scheduled eviction falls due: its smallest tolerationSeconds have passed. */
record TaintEvictionTimer(PodKey pod) implements TimerKey {

    @Override
    public String id() {
        return "tainteviction/" + pod;
    }
}
