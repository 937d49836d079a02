package io.podfall.kubelet.proxy;

import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Part;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.host.NodeMachine;
import io.podfall.model.proxy.ServiceRules.RuleEndpoint;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * kube-proxy on each node the kubelet simulates, as the iptables Proxier (pkg/proxy/iptables/proxier.go) decides what
 * its rules hold and when. Only the outcome is mirrored: per Service, the endpoints the node sends its traffic to;
 * never the chains, conntrack, NodePorts or load balancers.
 *
 * <p><b>What the rules hold</b> ({@link EndpointSliceCache}, {@link Topology}): for each Service with a cluster IP (not
 * headless, not ExternalName), its endpoints merged over its EndpointSlices, each address once, in address order: the
 * ready ones, else the serving-and-terminating ones; with {@code internalTrafficPolicy: Local}, the node's own only. No
 * endpoint at all is a rule too (upstream's REJECT): an empty list.
 *
 * <p><b>When.</b> A Service or slice fact that changes what a proxy reads asks every running node's runner for a sync
 * (OnServiceUpdate, OnEndpointSliceUpdate → Sync → syncRunner.Run). The runner ({@link BoundedFrequencyRunner}) runs at
 * once if a token is there, otherwise at {@code lastRun + minSyncPeriod} (timer {@link ProxyTimer.Run}). A sync takes
 * the changes made until it starts, and takes {@code syncDuration}: its rules take effect when it ends (timer
 * {@link ProxyTimer.SyncEnd}); a change during a sync is the next run's, tried as the sync returns. Upstream's periodic
 * resync changes nothing and is not mirrored.
 *
 * <p><b>What it says.</b> When a sync ends, one {@code proxy.RulesSynced} per Service whose rules changed, in namespace
 * and name order, from {@code /proxy/<node>}: the rules now in effect (empty when the Service went). Each is caused by
 * the latest Service or slice fact the sync took: the run's timer is set again by each fact that asks for it, so it
 * carries the latest, and the sync's end carries its start's cause. So the sync that drops a deleted pod carries the
 * pod's deletion's correlation id.
 *
 * <p><b>A stopped node</b> ({@code host.NodeStopped}) syncs nothing until it starts; then it runs for what changed
 * meanwhile, caused by the start. A sync in flight at the stop ends (the iptables-restore already runs).
 *
 * <p><b>A slice of the log</b> lists its Services and slices ({@code apiserver.ObjectListed}): their rules were in
 * effect before the slice began, so they are taken in as programmed, without a sync.
 */
public final class KubeProxy implements Part<KubeProxyState> {
    private static final String SOURCE = "/proxy/";

    private final List<String> nodeNames;
    private final Optional<ProxyTiming> timing;

    /** @param timing the proxies' timing; empty: no proxy (a kubelet replayed from before podfall mirrored them) */
    public KubeProxy(List<String> nodeNames, Optional<ProxyTiming> timing) {
        this.nodeNames = List.copyOf(nodeNames);
        this.timing = timing;
    }

    @Override
    public KubeProxyState newState() {
        KubeProxyState state = new KubeProxyState();
        timing.ifPresent(t -> nodeNames.forEach(n -> state.nodes.put(
                n, new Proxier(new BoundedFrequencyRunner(t.minSyncPeriod(), ProxyTiming.BURST_SYNCS)))));
        return state;
    }

    @Override
    public boolean reads(String type) {
        return timing.isPresent()
                && (EventTypes.OBJECT_CHANGES.contains(type)
                        || type.equals(EventTypes.NODE_STOPPED)
                        || type.equals(EventTypes.NODE_STARTED));
    }

    @Override
    public void handle(KubeProxyState state, Event event, Effects.Builder out) {
        if (event.is(EventTypes.NODE_STOPPED) || event.is(EventTypes.NODE_STARTED)) {
            String node = event.data(NodeMachine.class).node();
            Proxier proxier = state.nodes.get(node);
            if (proxier != null) {
                proxier.stopped = event.is(EventTypes.NODE_STOPPED);
                if (!proxier.stopped && !proxier.changed.isEmpty()) {
                    tryRun(state, node, proxier, out);
                }
            }
            return;
        }
        ObjectChange change = ObjectChange.of(event);
        if (!EndpointSliceCache.SERVICES.equals(change.resource())
                && !EndpointSliceCache.ENDPOINT_SLICES.equals(change.resource())) {
            return;
        }
        List<ServiceName> changed =
                state.cache.observe(change.resource(), change.object(), event.is(EventTypes.OBJECT_REMOVED));
        if (changed.isEmpty()) {
            return;
        }
        for (Map.Entry<String, Proxier> node : state.nodes.entrySet()) {
            Proxier proxier = node.getValue();
            if (event.is(EventTypes.OBJECT_LISTED)) {
                changed.forEach(s -> program(proxier, s, rules(state, s, node.getKey())));
                continue;
            }
            proxier.changed.addAll(changed);
            if (!proxier.stopped) {
                tryRun(state, node.getKey(), proxier, out);
            }
        }
    }

    @Override
    public void fire(KubeProxyState state, Timer timer, Effects.Builder out) {
        if (!(timer.key() instanceof ProxyTimer key)) {
            return;
        }
        Proxier proxier = state.nodes.get(key.node());
        if (proxier == null) {
            return;
        }
        if (key instanceof ProxyTimer.SyncEnd && proxier.isSyncing()) {
            end(state, key.node(), proxier, out);
        } else if (key instanceof ProxyTimer.Run && !proxier.stopped) {
            tryRun(state, key.node(), proxier, out);
        }
    }

    /**
     * The runner's tryRun, on a change or its timer: during a sync, the signal waits for the sync's end; else a sync
     * now if a token is there, or the runner's timer at the next possible run. The timer is set by the latest cause.
     * Time is the cause's; a fact stamped before the last sync ended but read after it came during that sync, so it is
     * tried as that sync returned.
     */
    private void tryRun(KubeProxyState state, String node, Proxier proxier, Effects.Builder out) {
        Instant now = proxier.runner.notBeforeLastRun(out.causeTime());
        if (proxier.isSyncing()) {
            out.timer(new ProxyTimer.Run(node), proxier.syncEnds);
        } else if (proxier.runner.mayRun(now)) {
            out.cancelTimer(new ProxyTimer.Run(node));
            start(state, node, proxier, now, out);
        } else {
            out.timer(new ProxyTimer.Run(node), proxier.runner.nextPossible());
        }
    }

    /** A sync begins: it takes the changes so far and computes their rules; they take effect at its end. */
    private void start(KubeProxyState state, String node, Proxier proxier, Instant now, Effects.Builder out) {
        proxier.runner.started(now);
        SortedMap<ServiceName, List<RuleEndpoint>> syncing = new TreeMap<>();
        for (ServiceName service : proxier.changed) {
            List<RuleEndpoint> rules = rules(state, service, node);
            List<RuleEndpoint> before = proxier.programmed.get(service);
            if (rules == null ? before != null : !rules.equals(before)) {
                syncing.put(service, rules);
            }
        }
        proxier.changed.clear();
        proxier.syncing = syncing;
        proxier.syncEnds = now.plus(timing.orElseThrow().syncDuration());
        if (timing.orElseThrow().syncDuration().isZero()) {
            end(state, node, proxier, out);
        } else {
            out.timer(new ProxyTimer.SyncEnd(node), proxier.syncEnds);
        }
    }

    /** The sync in flight ends: its rules take effect, and each Service whose rules changed is said so. */
    private static void end(KubeProxyState state, String node, Proxier proxier, Effects.Builder out) {
        proxier.syncing.forEach((service, rules) -> {
            program(proxier, service, rules);
            out.emitJson(
                    SOURCE + node,
                    EventTypes.PROXY_RULES_SYNCED,
                    Subjects.of(service.namespace(), EndpointSliceCache.SERVICES, service.name()),
                    state.json.of(node, service, rules == null ? List.of() : rules));
        });
        proxier.runner.ended(proxier.syncEnds);
        proxier.syncing = null;
        proxier.syncEnds = null;
    }

    private static void program(Proxier proxier, ServiceName service, List<RuleEndpoint> rules) {
        if (rules == null) {
            proxier.programmed.remove(service);
        } else {
            proxier.programmed.put(service, rules);
        }
    }

    /** The Service's rules on {@code node}; null if it gets none. */
    private static List<RuleEndpoint> rules(KubeProxyState state, ServiceName service, String node) {
        return state.cache
                .proxied(service)
                .map(s -> s.local()
                        ? Topology.local(state.cache.endpoints(service), node)
                        : state.cache.clusterRules(service))
                .orElse(null);
    }
}
