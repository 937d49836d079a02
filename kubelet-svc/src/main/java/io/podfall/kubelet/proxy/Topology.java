package io.podfall.kubelet.proxy;

import io.podfall.model.proxy.ServiceRules.RuleEndpoint;
import java.util.List;
import java.util.function.Predicate;

/**
 * Which endpoints a node's rules hold for a Service (pkg/proxy/topology.go CategorizeEndpoints): the ready ones; if
 * there is none, the serving-and-terminating ones (ProxyTerminatingEndpoints, GA since 1.28), so a Service whose pods
 * all terminate keeps sending to those still serving. With {@code internalTrafficPolicy: Local} only the node's own
 * endpoints count, ready ones first, the same way. Topology hints and traffic distribution are not mirrored.
 */
final class Topology {
    private Topology() {}

    /** The cluster-wide endpoints (internalTrafficPolicy Cluster): the same for every node. */
    static List<RuleEndpoint> cluster(List<Endpoint> endpoints) {
        return categorize(endpoints, e -> true);
    }

    /** The node's own endpoints (internalTrafficPolicy Local). */
    static List<RuleEndpoint> local(List<Endpoint> endpoints, String node) {
        return categorize(endpoints, e -> node.equals(e.nodeName()));
    }

    private static List<RuleEndpoint> categorize(List<Endpoint> endpoints, Predicate<Endpoint> scope) {
        List<RuleEndpoint> ready = endpoints.stream()
                .filter(e -> scope.test(e) && e.ready())
                .map(e -> e.rule(false))
                .toList();
        if (!ready.isEmpty()) {
            return ready;
        }
        return endpoints.stream()
                .filter(e -> scope.test(e) && e.serving() && e.terminating())
                .map(e -> e.rule(true))
                .toList();
    }
}
