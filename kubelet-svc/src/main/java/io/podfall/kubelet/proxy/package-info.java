/**
 * kube-proxy on each node the kubelet simulates ({@link io.podfall.kubelet.proxy.KubeProxy}, one part of the
 * {@link io.podfall.kubelet.Kubelet}): which endpoints a node's rules hold for each Service, and when they take effect,
 * said on the log as {@code proxy.RulesSynced}. Upstream: pkg/proxy (the iptables Proxier, its change trackers and
 * EndpointSlice cache, topology.go) and pkg/util/async's BoundedFrequencyRunner.
 */
package io.podfall.kubelet.proxy;
