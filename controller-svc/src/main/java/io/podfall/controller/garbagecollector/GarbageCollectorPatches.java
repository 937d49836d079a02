package io.podfall.controller.garbagecollector;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.model.Json;
import java.util.List;

/**
 * The collector's patches, shaped as upstream's ({@code pkg/controller/garbagecollector/patch.go}), so that the API
 * server applies each to the object as stored when it reads the request, not to the collector's view of it.
 */
final class GarbageCollectorPatches {
    private GarbageCollectorPatches() {}

    /**
     * {@code deleteOwnerRefStrategicMergePatch}: a strategic merge patch that deletes the ownerReferences with these
     * uids (merge key {@code uid}) and names the dependent's own uid, which the API server refuses to change: a new
     * object that took the name in the meantime is left alone (422).
     */
    static ObjectNode deleteOwnerReferences(String dependentUid, List<String> ownerUids) {
        ObjectNode patch = Json.MAPPER.createObjectNode();
        ObjectNode metadata = patch.putObject("metadata");
        ArrayNode ownerReferences = metadata.putArray("ownerReferences");
        ownerUids.forEach(
                uid -> ownerReferences.addObject().put("$patch", "delete").put("uid", uid));
        metadata.put("uid", dependentUid);
        return patch;
    }

    /**
     * {@code removeFinalizer} with {@code objectForFinalizersPatch}: a JSON merge patch of the whole finalizer list
     * without this one, with the resourceVersion it was computed from, so a concurrent change of the list is a 409
     * Conflict rather than lost.
     */
    static ObjectNode removeFinalizer(Node owner, String finalizer) {
        ObjectNode patch = Json.MAPPER.createObjectNode();
        ObjectNode metadata = patch.putObject("metadata");
        metadata.put("resourceVersion", owner.resourceVersion());
        ArrayNode finalizers = metadata.putArray("finalizers");
        owner.finalizers().stream().filter(f -> !f.equals(finalizer)).forEach(finalizers::add);
        return patch;
    }
}
