package io.podfall.cli.analysis;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.event.Event;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Kubernetes object an event's data carries under {@code object} (an apiserver fact's
 * {@link io.podfall.model.apiserver.ObjectChange}, a create's or an update's request), read through the few fields the
 * analysis needs. The contract holds objects as JSON trees, and a whole fabric8 object read from every fact would cost
 * the analysis of a large log far more than these fields. An event without an object reads as one with no fields.
 */
record KubeObject(JsonNode object) {

    static KubeObject of(Event e) {
        return new KubeObject(e.data().path("object"));
    }

    private JsonNode metadata() {
        return object.path("metadata");
    }

    boolean hasMetadata() {
        return metadata().isObject();
    }

    /** metadata.uid; "" when absent. */
    String uid() {
        return metadata().path("uid").asText();
    }

    List<String> finalizers() {
        List<String> names = new ArrayList<>();
        metadata().path("finalizers").forEach(n -> names.add(n.asText()));
        return names;
    }

    /** metadata.deletionGracePeriodSeconds; null when absent. */
    Long deletionGracePeriodSeconds() {
        JsonNode grace = metadata().path("deletionGracePeriodSeconds");
        return grace.isNumber() ? grace.asLong() : null;
    }

    /** Whether the object is marked for deletion: metadata.deletionTimestamp is set. */
    boolean terminating() {
        return metadata().path("deletionTimestamp").isTextual();
    }

    Optional<Instant> deletionTimestamp() {
        return terminating()
                ? Optional.of(Instant.parse(metadata().path("deletionTimestamp").asText()))
                : Optional.empty();
    }

    /** metadata.annotations; a null value stays null, as when the runtime reads them ({@code RunPodSandbox}). */
    Map<String, String> annotations() {
        Map<String, String> annotations = new LinkedHashMap<>();
        metadata()
                .path("annotations")
                .properties()
                .forEach(a -> annotations.put(
                        a.getKey(), a.getValue().isNull() ? null : a.getValue().asText()));
        return annotations;
    }

    /** Whether it is a whole pod, one with its containers: a state that tells its spec and its annotations. */
    boolean hasContainers() {
        return object.path("spec").path("containers").isArray();
    }

    /**
     * A pod's spec.terminationGracePeriodSeconds, 30 when absent (the API server's default:
     * pkg/apis/core/v1/defaults.go SetDefaults_PodSpec).
     */
    long terminationGracePeriodSeconds() {
        return object.path("spec").path("terminationGracePeriodSeconds").asLong(30);
    }

    /** status.phase; "" when absent. */
    String phase() {
        return object.path("status").path("phase").asText();
    }

    /** Whether a pod's phase is terminal: Succeeded or Failed. */
    boolean terminal() {
        return "Succeeded".equals(phase()) || "Failed".equals(phase());
    }

    /** The status condition of this type (a pod's PodScheduled, a node's Ready); a missing node when absent. */
    JsonNode condition(String type) {
        for (JsonNode c : object.path("status").path("conditions")) {
            if (type.equals(c.path("type").asText())) {
                return c;
            }
        }
        return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }

    /** A pod's spec.nodeName, if it is bound. */
    Optional<String> nodeName() {
        JsonNode node = object.path("spec").path("nodeName");
        return node.isTextual() ? Optional.of(node.asText()) : Optional.empty();
    }
}
