package io.podfall.kubelet.proxy;

import io.podfall.model.core.TimerKey;

/**
 * A node's kube-proxy's timers. At one instant a sync's end fires before a run: their ids sort so ({@code end} before
 * {@code run}), as upstream's runner takes the signal of a change that came during a sync only once the sync returned.
 */
public sealed interface ProxyTimer extends TimerKey {
    String node();

    /** The runner may run now (upstream's BoundedFrequencyRunner timer, reset to the next possible run). */
    record Run(String node) implements ProxyTimer {
        @Override
        public String id() {
            return "proxy/" + node + "/run";
        }
    }

    /** The sync in flight ends: its rules take effect. */
    record SyncEnd(String node) implements ProxyTimer {
        @Override
        public String id() {
            return "proxy/" + node + "/end";
        }
    }
}
