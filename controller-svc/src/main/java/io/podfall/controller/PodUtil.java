package io.podfall.controller;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.SharedStrings;
import io.podfall.model.SharedValues;
import java.util.HashMap;
import java.util.Map;

/**
 * What the controllers read off an object's JSON, as upstream's {@code pkg/api/v1/pod/util.go} ({@code podutil}) is
 * what they share about pods: the caches that keep a record of a pod read it straight off the fact's tree.
 */
public final class PodUtil {
    private PodUtil() {}

    /** The pod's Ready condition if it is True ({@code IsPodReady}), else null. */
    public static JsonNode readyCondition(JsonNode pod) {
        for (JsonNode c : pod.path("status").path("conditions")) {
            if ("Ready".equals(c.path("type").asText())
                    && "True".equals(c.path("status").asText())) {
                return c;
            }
        }
        return null;
    }

    /**
     * An object's {@code metadata.labels}, empty if it has none: one unmodifiable map for all the objects that carry
     * the same labels.
     */
    public static Map<String, String> labels(JsonNode object) {
        Map<String, String> labels = new HashMap<>();
        object.path("metadata")
                .path("labels")
                .fields()
                .forEachRemaining(l -> labels.put(l.getKey(), l.getValue().asText()));
        // the pods of a ReplicaSet carry the same labels, and two of the controllers keep every pod's
        return SharedValues.shared(Map.copyOf(labels));
    }

    /** A text field's value as {@link SharedStrings#shared}; null for a field that is absent or not text. */
    public static String shared(JsonNode text) {
        return SharedStrings.shared(text.textValue());
    }
}
