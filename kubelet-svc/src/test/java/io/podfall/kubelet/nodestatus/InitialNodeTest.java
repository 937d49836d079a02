package io.podfall.kubelet.nodestatus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.podfall.model.Json;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class InitialNodeTest {
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    @Test
    void isAReadyNodeUnderNoPressureWithItsInternalIP() {
        Node node = InitialNode.of("node-3", T0.plusMillis(250));

        assertEquals("v1", node.getApiVersion());
        assertEquals("Node", node.getKind());
        assertEquals("node-3", node.getMetadata().getName());
        assertEquals(
                List.of("MemoryPressure=False", "DiskPressure=False", "PIDPressure=False", "Ready=True"),
                node.getStatus().getConditions().stream()
                        .map(c -> c.getType() + "=" + c.getStatus())
                        .toList());
        var ready = NodeConditions.find(node.getStatus().getConditions(), "Ready");
        assertEquals("KubeletReady", ready.getReason());
        assertEquals(T0.toString(), ready.getLastHeartbeatTime(), "a metav1.Time, in whole seconds");
        assertEquals(T0.toString(), ready.getLastTransitionTime());
        NodeAddress internal = node.getStatus().getAddresses().get(0);
        assertEquals("InternalIP", internal.getType());
        assertEquals("172.18.0.5", internal.getAddress());
    }

    @Test
    void carriesTheNodeInfoKubectlShowsAsVersionAndRuntime() {
        var info = InitialNode.of("node-1", T0).getStatus().getNodeInfo();

        assertEquals("v1.32.0-podfall", info.getKubeletVersion());
        assertEquals("podfall-runtime://0.1", info.getContainerRuntimeVersion());
        assertEquals("Debian GNU/Linux 12 (bookworm)", info.getOsImage());
        assertEquals("6.1.0-podfall", info.getKernelVersion());
        assertEquals("amd64", info.getArchitecture());
        assertEquals("linux", info.getOperatingSystem());
    }

    @Test
    void reportsTheKubeletsDefaultMaxPodsAsCapacityAndAllocatable() {
        var status = InitialNode.of("node-1", T0).getStatus();

        assertEquals("110", status.getCapacity().get("pods").toString());
        assertEquals("110", status.getAllocatable().get("pods").toString());
    }

    @Test
    void reportsAKindNodesCpuAndMemoryOrWhatItIsGiven() {
        var status = InitialNode.of("node-1", T0).getStatus();
        assertEquals("4", status.getAllocatable().get("cpu").toString());
        assertEquals("8Gi", status.getCapacity().get("memory").toString());

        NodeCapacity capacity = NodeCapacity.DEFAULT.overriding("node-2", NodeCapacity.parse("cpu=500m"));
        var small = InitialNode.of("node-2", T0, java.util.Map.of(), capacity.of("node-2"))
                .getStatus();
        assertEquals("500m", small.getAllocatable().get("cpu").toString());
        assertEquals("8Gi", small.getAllocatable().get("memory").toString(), "the rest as the default");
        assertEquals(NodeCapacity.DEFAULT.defaults(), capacity.of("node-1"));
        assertEquals("cpu=500m,memory=8Gi,pods=110", NodeCapacity.format(capacity.of("node-2")));
    }

    @Test
    void aCapacityThatIsNotNameEqualsQuantityIsRefused() {
        org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> NodeCapacity.parse("cpu:4"));
    }

    @Test
    void survivesTheRoundTripThroughJson() {
        Node node = InitialNode.of("node-1", T0);
        assertEquals(node, Json.convert(Json.tree(node), Node.class));
    }

    @Test
    void theInternalIPComesFromTheNodeNameAlone() {
        assertEquals("172.18.0.3", InitialNode.internalIP("node-1"));
        assertEquals(InitialNode.internalIP("worker-a"), InitialNode.internalIP("worker-a"));
        assertNotEquals(InitialNode.internalIP("node-1"), InitialNode.internalIP("node-2"));
    }
}
