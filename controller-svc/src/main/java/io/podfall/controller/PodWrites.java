package io.podfall.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.podfall.controller.PodsByNode.PodKey;
import io.podfall.model.Json;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.MetaTimes;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;

/**
 * The writes of a pod that the controllers acting on a node's failure share: a status patch as upstream's
 * {@code pkg/util/pod} PatchPodStatus sends it (a strategic merge patch of {@code pods/status}, whose
 * {@code status.conditions} merge by type, with a precondition in {@code metadata}), the DisruptionTarget condition
 * (PodDisruptionConditions, GA since 1.31) and a delete.
 */
public final class PodWrites {
    /** {@code v1.DisruptionTarget}: the condition of a pod about to be disrupted, set by whoever disrupts it. */
    public static final String DISRUPTION_TARGET = "DisruptionTarget";

    private static final String PODS = ResourceType.PODS.plural();

    private PodWrites() {}

    /** A pod's condition as {@code UpdatePodCondition} writes a new one: its lastTransitionTime {@code at}. */
    public static ObjectNode condition(String type, String status, String reason, String message, Instant at) {
        ObjectNode c = Json.MAPPER.createObjectNode();
        c.put("type", type);
        c.put("status", status);
        c.putNull("lastProbeTime");
        c.put("lastTransitionTime", MetaTimes.format(at));
        if (reason != null) {
            c.put("reason", reason);
        }
        if (message != null) {
            c.put("message", message);
        }
        return c;
    }

    /**
     * Whether {@code UpdatePodCondition} would change the pod's conditions with this one: none of its type, or one
     * whose status, reason or message differ.
     */
    public static boolean changes(JsonNode conditions, String type, String status, String reason, String message) {
        for (JsonNode c : conditions) {
            if (type.equals(c.path("type").asText())) {
                return !status.equals(c.path("status").asText())
                        || !reason.equals(c.path("reason").asText())
                        || !message.equals(c.path("message").asText());
            }
        }
        return true;
    }

    /** A patch of {@code pods/status}: {@code metadata} the precondition (uid or resourceVersion). */
    public static void patchStatus(
            String source, PodKey pod, ObjectNode metadata, ObjectNode status, Effects.Builder effects) {
        ObjectNode patch = Json.MAPPER.createObjectNode();
        patch.set("metadata", metadata);
        patch.set("status", status);
        effects.emit(
                source,
                EventTypes.PATCH_REQUESTED,
                subject(pod),
                new PatchRequest(PODS, pod.namespace(), pod.name(), "status", PatchRequest.STRATEGIC, patch));
    }

    /** {@code metadata.uid} of a patch: it applies only to that pod, not to one of the same name created since. */
    public static ObjectNode uid(String uid) {
        ObjectNode meta = Json.MAPPER.createObjectNode();
        meta.put("uid", uid);
        return meta;
    }

    /** A DELETE of the pod: with the pod's own grace period when {@code gracePeriodSeconds} is null. */
    public static void delete(String source, PodKey pod, Long gracePeriodSeconds, Effects.Builder effects) {
        DeleteOptions options = new DeleteOptions();
        options.setGracePeriodSeconds(gracePeriodSeconds);
        effects.emit(
                source,
                EventTypes.DELETION_REQUESTED,
                subject(pod),
                new DeletionRequest(PODS, pod.namespace(), pod.name(), options));
    }

    private static String subject(PodKey pod) {
        return Subjects.of(pod.namespace(), PODS, pod.name());
    }
}
