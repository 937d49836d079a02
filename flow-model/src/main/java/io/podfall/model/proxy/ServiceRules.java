package io.podfall.model.proxy;

import java.util.List;

/**
 * The rules a node's kube-proxy holds for one Service once a sync ended: the endpoints its node sends the Service's
 * traffic to, sorted by IP. Empty: the Service has no endpoint to use (upstream's REJECT rule), or it is gone.
 */
public record ServiceRules(String node, String namespace, String service, List<RuleEndpoint> endpoints) {
    public ServiceRules {
        endpoints = List.copyOf(endpoints);
    }

    /**
     * One endpoint of the rules: a pod's address.
     *
     * @param terminating true when the endpoint is used only because the Service has no ready one and this one is
     *     serving while terminating (upstream's ProxyTerminatingEndpoints fallback)
     */
    public record RuleEndpoint(String ip, String pod, String podUid, String nodeName, boolean terminating) {}
}
