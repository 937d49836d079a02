package io.podfall.kubelet.nodestatus;

import io.fabric8.kubernetes.api.model.Quantity;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What each node of a kubelet has: its {@code status.capacity}, which it also reports as {@code status.allocatable}
 * (setters.go MachineInfo; allocatable is capacity less kube-reserved, system-reserved and the hard eviction
 * thresholds, none of which a kind node sets for cpu and memory, so a kind node shows both alike).
 *
 * <p>The default is a kind node on a developer's machine: {@value #DEFAULT_SPEC}. A kind node reports its host's cores
 * and memory; 4 cores and 8 GiB is a small laptop's or CI runner's, and the pod limit is the kubelet's
 * {@code --max-pods} default ({@link InitialNode#MAX_PODS}).
 *
 * @param defaults what a node has unless told otherwise ({@code podfall.kubelet.node-capacity})
 * @param byNode what named nodes have instead ({@code podfall.kubelet.node-capacity.<node>}, over the defaults), or
 *     what a recording shows they registered with
 */
public record NodeCapacity(Map<String, Quantity> defaults, Map<String, Map<String, Quantity>> byNode) {
    /** The default, as {@code podfall.kubelet.node-capacity} writes it. */
    public static final String DEFAULT_SPEC = "cpu=4,memory=8Gi,pods=" + InitialNode.MAX_PODS;

    public static final NodeCapacity DEFAULT = new NodeCapacity(parse(DEFAULT_SPEC), Map.of());

    public NodeCapacity {
        defaults = Map.copyOf(defaults);
        byNode = Map.copyOf(byNode);
    }

    /** What the node has. */
    public Map<String, Quantity> of(String node) {
        return byNode.getOrDefault(node, defaults);
    }

    /** These capacities with the node's {@code overrides} laid over the defaults. */
    public NodeCapacity overriding(String node, Map<String, Quantity> overrides) {
        Map<String, Quantity> capacity = new TreeMap<>(defaults);
        capacity.putAll(overrides);
        return with(node, capacity);
    }

    /**
     * These capacities with the node having exactly {@code capacity}, as a recording shows it; a node with the defaults
     * is not named, so that settings alike are equal.
     */
    public NodeCapacity with(String node, Map<String, Quantity> capacity) {
        Map<String, Map<String, Quantity>> nodes = new TreeMap<>(byNode);
        if (capacity.equals(defaults)) {
            nodes.remove(node);
        } else {
            nodes.put(node, Map.copyOf(capacity));
        }
        return new NodeCapacity(defaults, nodes);
    }

    /**
     * {@code cpu=4,memory=8Gi,pods=110}: each resource and its quantity.
     *
     * @throws IllegalArgumentException for an entry that is not {@code name=quantity}
     */
    public static Map<String, Quantity> parse(String spec) {
        Map<String, Quantity> resources = new LinkedHashMap<>();
        for (String entry : spec.split(",")) {
            if (entry.isBlank()) {
                continue;
            }
            String[] kv = entry.split("=", 2);
            if (kv.length != 2 || kv[0].isBlank() || kv[1].isBlank()) {
                throw new IllegalArgumentException("not name=quantity: " + entry.trim());
            }
            resources.put(kv[0].trim(), Quantity.parse(kv[1].trim()));
        }
        return Map.copyOf(resources);
    }

    /** The resources as {@link #parse} reads them, by name. */
    public static String format(Map<String, Quantity> resources) {
        return new TreeMap<>(resources)
                .entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
    }
}
