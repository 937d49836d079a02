package io.podfall.kubelet.proxy;

import io.podfall.model.proxy.ServiceRules.RuleEndpoint;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;

/** What one node's kube-proxy knows beside the shared cache: its rules, what changed since, its runner, its sync. */
final class Proxier {
    /** The rules in effect, by Service: lists shared with the cache and the other nodes where they are equal. */
    final Map<ServiceName, List<RuleEndpoint>> programmed = new HashMap<>();
    /** The Services that changed since the last sync began (upstream's pending service and endpoints changes). */
    final Set<ServiceName> changed = new HashSet<>();

    final BoundedFrequencyRunner runner;
    /** The rules the sync in flight writes, by Service (a null list: the Service is gone); null: no sync in flight. */
    SortedMap<ServiceName, List<RuleEndpoint>> syncing;
    /** When the sync in flight ends. */
    Instant syncEnds;
    /** Whether the node's machine is stopped. */
    boolean stopped;

    Proxier(BoundedFrequencyRunner runner) {
        this.runner = runner;
    }

    boolean isSyncing() {
        return syncing != null;
    }
}
