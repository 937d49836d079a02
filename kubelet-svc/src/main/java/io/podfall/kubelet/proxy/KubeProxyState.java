package io.podfall.kubelet.proxy;

import java.util.Map;
import java.util.TreeMap;

/** What {@link KubeProxy} knows: the Services and slices its nodes watch, and each node's proxier. */
public final class KubeProxyState {
    final EndpointSliceCache cache = new EndpointSliceCache();
    /** By node name, in name order. */
    final Map<String, Proxier> nodes = new TreeMap<>();
    /** The rules' JSON, shared by the nodes whose rules are alike. */
    final RulesJson json = new RulesJson();
}
