package io.podfall.controller.podgc;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.controller.PodsByNode;
import io.podfall.model.SharedStrings;
import io.podfall.model.k8s.MetaTimes;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the {@link PodGCController} knows: the pods by node, the nodes (upstream's node informer), the names of missing
 * nodes in quarantine (upstream's nodeQueue, a delaying queue) and whether its passes have begun.
 */
public final class PodGCState {
    final PodsByNode<GcPod> pods = new PodsByNode<>(GcPod::of);
    /** Node name → what the controller needs of it. */
    final Map<String, NodeView> nodes = new HashMap<>();
    /** A node some pod is bound to but that the cache does not hold → when its quarantine ends. */
    final Map<String, Instant> quarantine = new TreeMap<>();
    /** Whether the timer of the next pass is set. */
    boolean running;

    /**
     * What the controller keeps of a pod.
     *
     * @param phase null until one is written
     * @param evicted its status.reason is Evicted (eviction.PodIsEvicted): deleted first among the terminated
     * @param created its creationTimestamp, null if it has none
     * @param conditions its status.conditions
     */
    record GcPod(
            String nodeName,
            String uid,
            String phase,
            boolean terminating,
            boolean evicted,
            Instant created,
            JsonNode conditions)
            implements PodsByNode.Bound {
        static GcPod of(JsonNode pod) {
            JsonNode deletion = pod.path("metadata").path("deletionTimestamp");
            JsonNode status = pod.path("status");
            return new GcPod(
                    pod.path("spec").path("nodeName").asText(""),
                    pod.path("metadata").path("uid").asText(),
                    SharedStrings.shared(status.path("phase").textValue()),
                    !deletion.isMissingNode() && !deletion.isNull(),
                    "Failed".equals(status.path("phase").textValue())
                            && "Evicted".equals(status.path("reason").textValue()),
                    MetaTimes.parse(
                            pod.path("metadata").path("creationTimestamp").textValue()),
                    status.path("conditions"));
        }

        /** isPodTerminated: neither Pending, Running nor Unknown. */
        boolean terminated() {
            return !"Pending".equals(phase) && !"Running".equals(phase) && !"Unknown".equals(phase);
        }
    }

    /** A node: whether it is Ready (IsNodeReady) and has the out-of-service taint (any effect: TaintKeyExists). */
    record NodeView(boolean ready, boolean outOfService) {}
}
