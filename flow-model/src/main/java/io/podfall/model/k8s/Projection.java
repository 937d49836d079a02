package io.podfall.model.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.model.Json;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An object cut down to the fields a cache reads, as client-go's informers take a {@code TransformFunc}
 * ({@code staging/src/k8s.io/client-go/tools/cache/controller.go}) that kube-controller-manager and the scheduler use
 * to drop what they never look at before an object enters the cache. A running pod kept whole is some 6.3 KB of heap as
 * a fabric8 object; without the status a kubelet wrote itself, 5.0 KB; and converting the smaller tree costs less too.
 *
 * <p>Fields are named by dotted paths ({@code "status.containerStatuses.restartCount"}); a path through an array
 * applies the rest of it to each element, so the elements keep their places. A path naming an object or array keeps it
 * whole: the projection shares it with the object, so it is read only, as a fact's tree is. Fields the object lacks
 * stay absent.
 */
public final class Projection {
    /** The fields kept under each name; an empty map keeps the field whole. */
    private final Map<String, Projection> fields;

    private Projection(Map<String, Projection> fields) {
        this.fields = fields;
    }

    public static Projection of(String... paths) {
        Projection root = new Projection(new LinkedHashMap<>());
        for (String path : paths) {
            root.add(path.split("\\."));
        }
        return root;
    }

    private void add(String[] path) {
        Projection child = fields.computeIfAbsent(path[0], f -> new Projection(new LinkedHashMap<>()));
        if (path.length > 1) {
            child.add(Arrays.copyOfRange(path, 1, path.length));
        }
    }

    /** A tree with only the projected fields of {@code object}, which is not changed; what is kept whole is shared. */
    public JsonNode apply(JsonNode object) {
        if (fields.isEmpty()) {
            return object;
        }
        if (object instanceof ArrayNode array) {
            ArrayNode out = Json.MAPPER.createArrayNode();
            array.forEach(element -> out.add(apply(element)));
            return out;
        }
        if (!(object instanceof ObjectNode source)) {
            return object;
        }
        ObjectNode out = Json.MAPPER.createObjectNode();
        fields.forEach((name, projection) -> {
            JsonNode value = source.get(name);
            if (value != null) {
                out.set(name, projection.apply(value));
            }
        });
        return out;
    }
}
