package io.podfall.controller.tainteviction;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.podfall.controller.PodsByNode;
import io.podfall.controller.PodsByNode.PodKey;
import io.podfall.model.Json;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the {@link TaintEvictionController} knows: the pods by node, the NoExecute taints of each tainted node
 * (upstream's taintedNodes) and the pods' scheduled evictions (upstream's TimedWorkerQueue).
 */
public final class TaintEvictionState {
    final PodsByNode<EvictablePod> pods = new PodsByNode<>(EvictablePod::of);
    /** Node name → its NoExecute taints; only nodes that have some. */
    final Map<String, List<Taint>> taintedNodes = new HashMap<>();
    /** The pods whose eviction is scheduled, or running (due at once, its requests not yet answered). */
    final Map<PodKey, Work> evictions = new HashMap<>();

    /**
     * What the controller keeps of a pod: what it matches the taints with and writes the pod by.
     *
     * @param tolerations the pod's spec.tolerations as JSON, read as tolerations only when a taint needs them (every
     *     pod carries two since the DefaultTolerationSeconds admission; most never meet a NoExecute taint)
     * @param conditions the pod's status.conditions (to tell whether DisruptionTarget is written already)
     */
    record EvictablePod(String nodeName, String uid, JsonNode tolerations, JsonNode conditions)
            implements PodsByNode.Bound {
        static EvictablePod of(JsonNode pod) {
            return new EvictablePod(
                    pod.path("spec").path("nodeName").asText(""),
                    pod.path("metadata").path("uid").asText(),
                    pod.path("spec").path("tolerations"),
                    pod.path("status").path("conditions"));
        }

        List<Toleration> tolerationList() {
            return tolerations.isArray()
                    ? List.of(Json.MAPPER.convertValue(tolerations, Toleration[].class))
                    : List.of();
        }
    }

    /**
     * A scheduled eviction (upstream's TimedWorker): created at {@code createdAt}, due at {@code fireAt}; the timer
     * runs {@code fireAt - createdAt} from when it was added, as createWorker's delay does.
     */
    record Work(Instant createdAt, Instant fireAt) {}
}
