package io.podfall.kubelet.nodestatus;

import io.podfall.model.core.TimerKey;

/** The next report of a node's status is due (nodeStatusReportFrequency, or the retry of a refused post). */
public record NodeStatusTimer(String node) implements TimerKey {

    @Override
    public String id() {
        return "nodestatus/" + node;
    }
}
