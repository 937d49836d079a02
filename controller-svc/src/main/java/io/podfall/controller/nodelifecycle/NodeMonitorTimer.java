package io.podfall.controller.nodelifecycle;

import io.podfall.model.core.TimerKey;

/** The node monitor grace period of a node runs out unless a heartbeat comes first. */
record NodeMonitorTimer(String node) implements TimerKey {

    @Override
    public String id() {
        return "nodelifecycle/" + node;
    }
}
