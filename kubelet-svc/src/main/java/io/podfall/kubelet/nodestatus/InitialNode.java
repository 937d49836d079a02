package io.podfall.kubelet.nodestatus;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Node object a kubelet registers for itself at start (pkg/kubelet/kubelet_node_status.go initialNode, with the
 * conditions ({@link NodeConditions}: no pressure, Ready), the addresses and the node info that
 * pkg/kubelet/nodestatus/setters.go would fill in, and the capacity: cpu, memory and pods, {@link NodeCapacity}).
 */
public final class InitialNode {
    /** The Kubernetes version podfall's kubelet mirrors, as the API server's /version reports it, marked as ours. */
    public static final String KUBELET_VERSION = "v1.32.0-podfall";
    /** CRI Version's runtimeName://runtimeVersion, as setters.go VersionInfo writes containerRuntimeVersion. */
    public static final String CONTAINER_RUNTIME_VERSION = "podfall-runtime://0.1";
    /**
     * The kubelet's {@code --max-pods} default (pkg/kubelet/apis/config/v1beta1/defaults.go): setters.go MachineInfo
     * reports it as the node's capacity and allocatable {@code pods}, and the scheduler places no more pods on the node
     * than that (NodeResourcesFit, "Too many pods"). It also keeps a node's pods within the 253 addresses of its /24
     * pod CIDR.
     */
    public static final int MAX_PODS = 110;

    private static final Pattern TRAILING_NUMBER = Pattern.compile("(\\d+)$");

    private InitialNode() {}

    public static Node of(String nodeName, Instant now) {
        return of(nodeName, now, Map.of(), NodeCapacity.DEFAULT.defaults());
    }

    /** The Node with these annotations (what the kubelet records of itself on it) and this capacity. */
    public static Node of(
            String nodeName, Instant now, Map<String, String> annotations, Map<String, Quantity> capacity) {
        Node node = new NodeBuilder()
                .withApiVersion("v1")
                .withKind("Node")
                .withNewMetadata()
                .withName(nodeName)
                .addToLabels("kubernetes.io/hostname", nodeName)
                .addToLabels("kubernetes.io/os", "linux")
                .endMetadata()
                .withNewStatus()
                .withCapacity(new TreeMap<>(capacity))
                .withAllocatable(new TreeMap<>(capacity))
                .withConditions(NodeConditions.at(NodeConditions.of(Optional.empty()), List.of(), now))
                .addNewAddress()
                .withType("InternalIP")
                .withAddress(internalIP(nodeName))
                .endAddress()
                .addNewAddress()
                .withType("Hostname")
                .withAddress(nodeName)
                .endAddress()
                // setters.go MachineInfo and VersionInfo: what `kubectl get nodes -o wide` shows. The OS and
                // kernel are those of a kind node, the simulated machine podfall stands in for.
                .withNewNodeInfo()
                .withKubeletVersion(KUBELET_VERSION)
                .withKubeProxyVersion(KUBELET_VERSION)
                .withContainerRuntimeVersion(CONTAINER_RUNTIME_VERSION)
                .withOsImage("Debian GNU/Linux 12 (bookworm)")
                .withKernelVersion("6.1.0-podfall")
                .withArchitecture("amd64")
                .withOperatingSystem("linux")
                .withMachineID("")
                .withSystemUUID("")
                .withBootID("")
                .endNodeInfo()
                .endStatus()
                .build();
        if (!annotations.isEmpty()) {
            node.getMetadata().setAnnotations(new TreeMap<>(annotations));
        }
        return node;
    }

    /**
     * Whether the node's status reports {@code capacity} as its capacity and allocatable (a node registered by an older
     * kubelet, or edited, does not: the kubelet's next status post sets them, as MachineInfo would).
     */
    public static boolean reportsResources(Node node, Map<String, Quantity> capacity) {
        return node.getStatus() != null
                && holds(node.getStatus().getCapacity(), capacity)
                && holds(node.getStatus().getAllocatable(), capacity);
    }

    /** Whether {@code reported} has each of {@code capacity}: other resources someone added stay theirs. */
    private static boolean holds(Map<String, Quantity> reported, Map<String, Quantity> capacity) {
        return reported != null
                && capacity.entrySet().stream().allMatch(r -> r.getValue().equals(reported.get(r.getKey())));
    }

    /**
     * The node's address: 172.18.0.x as kind gives its node containers, x derived from the name alone (its trailing
     * number, else a hash) so that every kubelet process and every replay agrees on it.
     */
    public static String internalIP(String nodeName) {
        Matcher m = TRAILING_NUMBER.matcher(nodeName);
        int k = m.find() && m.group(1).length() <= 3 && Integer.parseInt(m.group(1)) <= 250
                ? Integer.parseInt(m.group(1))
                : Math.floorMod(nodeName.hashCode(), 250) + 1;
        return "172.18.0." + (k + 2);
    }
}
