package io.podfall.controller.nodelifecycle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.controller.PodWrites;
import io.podfall.controller.PodsByNode;
import io.podfall.controller.PodsByNode.PodKey;
import io.podfall.model.Json;
import io.podfall.model.core.Effects;
import io.podfall.model.k8s.MetaTimes;

/**
 * MarkPodsNotReady ({@code pkg/controller/util/node/controller_utils.go}): the Ready condition of each pod on a node
 * that is not Ready becomes False, so that the endpoints controller takes the pod out of its services' endpoints; its
 * kubelet, silent, cannot say so itself. Upstream copies the pod's Ready condition with status False (reason, message
 * and lastProbeTime kept; lastTransitionTime now, as UpdatePodCondition sets it when the status changes;
 * ContainersReady untouched) and writes the pod with UpdateStatus, which carries the resourceVersion it read: here a
 * strategic merge patch of {@code pods/status} with that resourceVersion, which the API server applies alike (a 409
 * Conflict if the pod changed meanwhile). A pod whose Ready is False already, or that has none, is left alone.
 */
final class MarkPodsNotReady {
    private MarkPodsNotReady() {}

    /** What the controller keeps of a pod: its node, resourceVersion and Ready condition (null if it has none). */
    record NodePod(String nodeName, String resourceVersion, JsonNode ready) implements PodsByNode.Bound {
        static NodePod of(JsonNode pod) {
            JsonNode ready = null;
            for (JsonNode c : pod.path("status").path("conditions")) {
                if ("Ready".equals(c.path("type").asText())) {
                    ready = c;
                }
            }
            return new NodePod(
                    pod.path("spec").path("nodeName").asText(""),
                    pod.path("metadata").path("resourceVersion").asText(null),
                    ready);
        }

        boolean isReadyTrue() {
            return ready != null && "True".equals(ready.path("status").asText());
        }
    }

    /** A write of a pod's Ready in flight: the pod and the resourceVersion it is conditional on. */
    record PodWrite(PodKey pod, String resourceVersion) {}

    /** Marks the pod NotReady unless its Ready is not True or a write of it is in flight. */
    static void mark(NodeLifecycleState state, PodKey key, NodePod pod, Effects.Builder effects) {
        if (!pod.isReadyTrue() || state.podWriteInFlight(key)) {
            return;
        }
        ObjectNode ready = pod.ready().deepCopy();
        ready.put("status", "False");
        ready.put("lastTransitionTime", MetaTimes.format(effects.causeTime()));
        ObjectNode meta = Json.MAPPER.createObjectNode();
        meta.put("resourceVersion", pod.resourceVersion());
        ObjectNode status = Json.MAPPER.createObjectNode();
        status.putArray("conditions").add(ready);
        PodWrites.patchStatus(NodeLifecycleController.SOURCE, key, meta, status, effects);
        state.podWriteRequested(effects.lastEventId(), new PodWrite(key, pod.resourceVersion()));
    }
}
