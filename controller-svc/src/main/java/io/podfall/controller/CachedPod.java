package io.podfall.controller;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.SharedStrings;
import io.podfall.model.SharedValues;
import io.podfall.model.k8s.MetaTimes;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.Map;

/**
 * What the ReplicaSet controller's cache keeps of a pod: what it counts ({@link ControlledPods}), ranks
 * ({@link ActivePods#deletionOrder}) and names pods by, read straight off the API server's JSON. Upstream's informer
 * keeps the whole pod; as a fabric8 object a running pod takes 6.3 KB of heap, this 0.4 to 0.7 KB (JOL), and converting
 * every pod change to fabric8 was most of what this controller spent on a fact. The Deployment controller reads a pod's
 * ReplicaSet and phase from it too.
 *
 * @param controllerUid the uid of the ReplicaSet that controls it ({@code ownerReferences[controller=true]}), or null
 * @param nodeName "" while unscheduled
 * @param phase null until the kubelet writes one
 * @param terminating it has a deletionTimestamp
 * @param ready its Ready condition is True
 * @param readySince when that condition became True, if it says; null otherwise
 * @param deletionCost the {@value ActivePods#POD_DELETION_COST} annotation, 0 if absent or not a number
 * @param restarts the most restarts of any of its containers
 * @param created its creationTimestamp, null if it has none
 */
public record CachedPod(
        String uid,
        String name,
        String controllerUid,
        Map<String, String> labels,
        String nodeName,
        String phase,
        boolean terminating,
        boolean ready,
        Instant readySince,
        int deletionCost,
        int restarts,
        Instant created) {

    public static CachedPod of(JsonNode pod) {
        JsonNode meta = pod.path("metadata");
        JsonNode status = pod.path("status");
        JsonNode readyCondition = PodUtil.readyCondition(pod);
        int restarts = 0;
        for (JsonNode c : status.path("containerStatuses")) {
            restarts = Math.max(restarts, c.path("restartCount").asInt(0));
        }
        // A ReplicaSet's uid, a node's name and a phase are shared by many pods: one string each, not one a pod.
        return new CachedPod(
                meta.path("uid").asText(),
                meta.path("name").asText(),
                SharedStrings.shared(controllerUid(meta)),
                PodUtil.labels(pod),
                SharedStrings.shared(pod.path("spec").path("nodeName").asText("")),
                PodUtil.shared(status.path("phase")),
                !meta.path("deletionTimestamp").isMissingNode()
                        && !meta.path("deletionTimestamp").isNull(),
                readyCondition != null,
                readyCondition == null ? null : time(readyCondition.path("lastTransitionTime")),
                deletionCost(meta.path("annotations")
                        .path(ActivePods.POD_DELETION_COST)
                        .textValue()),
                restarts,
                time(meta.path("creationTimestamp")));
    }

    /**
     * A time, one instance for each: times are written in whole seconds ({@link MetaTimes}), and the pods of a
     * ReplicaSet are created and become ready hundreds in the same second.
     */
    private static Instant time(JsonNode text) {
        return SharedValues.shared(MetaTimes.parse(text.textValue()));
    }

    /** {@code metav1.GetControllerOf}, kept only when the controller is a ReplicaSet. */
    private static String controllerUid(JsonNode meta) {
        for (JsonNode ref : meta.path("ownerReferences")) {
            if (ref.path("controller").asBoolean(false)) {
                return ResourceType.REPLICASETS.kind().equals(ref.path("kind").asText())
                        ? ref.path("uid").textValue()
                        : null;
            }
        }
        return null;
    }

    private static int deletionCost(String cost) {
        try {
            return cost == null ? 0 : Integer.parseInt(cost);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
