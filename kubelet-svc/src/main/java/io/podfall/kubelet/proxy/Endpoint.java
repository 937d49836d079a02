package io.podfall.kubelet.proxy;

import io.podfall.model.proxy.ServiceRules.RuleEndpoint;

/**
 * One endpoint of an EndpointSlice as kube-proxy keeps it (pkg/proxy/endpointslicecache.go endpointInfo): its first
 * address, the pod it is (targetRef), its node and its conditions, read as upstream reads them: ready and serving when
 * not said otherwise, terminating only when said.
 */
record Endpoint(
        String ip, String pod, String podUid, String nodeName, boolean ready, boolean serving, boolean terminating) {

    /** The endpoint as the rules hold it; {@code fallback}: used as serving-terminating, no ready one being left. */
    RuleEndpoint rule(boolean fallback) {
        return new RuleEndpoint(ip, pod, podUid, nodeName, fallback);
    }
}
