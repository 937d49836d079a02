package io.podfall.runtime.cri;

import io.podfall.runtime.cni.IpPool;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What the container runtimes of every node hold: per node, its IP pool and its pod sandboxes by pod UID. A fold over
 * the CRI requests on the log; changed only by {@link ContainerRuntime}.
 */
public final class RuntimeState {
    /** Per node name, its pod IPs; kept when the node has no pods left, so the pool goes on as it was. */
    private final Map<String, IpPool> ipPools = new LinkedHashMap<>();
    /** Per node name, its sandboxes by pod UID, from RunPodSandbox until RemovePodSandbox. */
    private final Map<String, Map<String, PodSandbox>> sandboxes = new LinkedHashMap<>();

    public Optional<PodSandbox> sandbox(String node, String podUid) {
        Map<String, PodSandbox> onNode = sandboxes.get(node);
        return onNode == null || podUid == null ? Optional.empty() : Optional.ofNullable(onNode.get(podUid));
    }

    /** The sandboxes of every node, by node name and then pod UID, in the order they were run. */
    public Map<String, Collection<PodSandbox>> sandboxes() {
        Map<String, Collection<PodSandbox>> all = new LinkedHashMap<>();
        sandboxes.forEach((node, onNode) -> all.put(node, Collections.unmodifiableCollection(onNode.values())));
        return all;
    }

    public int sandboxCount(String node) {
        Map<String, PodSandbox> onNode = sandboxes.get(node);
        return onNode == null ? 0 : onNode.size();
    }

    /** Sandboxes held on every node: 0 once every pod is gone and housekeeping removed its sandbox. */
    public int sandboxCount() {
        return sandboxes.values().stream().mapToInt(Map::size).sum();
    }

    /** Pod IPs in use on every node: 0 once every sandbox is stopped, else an IP leaked. */
    public int ipsInUse() {
        return ipPools.values().stream().mapToInt(IpPool::inUse).sum();
    }

    /** The node's IP pool, made on first use: a node's runtime exists from the first request that names it. */
    IpPool ipPool(String node) {
        return ipPools.computeIfAbsent(node, IpPool::forNode);
    }

    void add(String node, PodSandbox sandbox) {
        sandboxes.computeIfAbsent(node, n -> new LinkedHashMap<>()).put(sandbox.podUid(), sandbox);
    }

    void remove(String node, String podUid) {
        Map<String, PodSandbox> onNode = sandboxes.get(node);
        if (onNode != null) {
            onNode.remove(podUid);
        }
    }
}
