package io.podfall.model.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.podfall.model.SharedStrings;
import io.podfall.model.event.Event;
import io.podfall.model.event.UnreadableEventException;
import io.podfall.model.k8s.ResourceType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;

/**
 * An object as the API server stored it after a change (or, on removal, its last state): the data of every
 * {@code apiserver.Object*} and {@code apiserver.Pod*} fact. Watchers fold these into their caches.
 */
public record ObjectChange(String resource, JsonNode object) {
    /**
     * The last fact read on this thread, and its change. A fact reaches every watcher of a core in turn (seven in the
     * controller manager), and in the replay engine every core in turn, on one thread: it is read once for all of them.
     */
    private static final ThreadLocal<Read> LAST_READ = new ThreadLocal<>();

    private record Read(Event fact, ObjectChange change) {}

    public static ObjectChange of(ResourceType type, HasMetadata object) {
        return new ObjectChange(type.plural(), io.podfall.model.Json.tree(object));
    }

    /** The JSON before an object in the change of an object of each type: written once, not at each write. */
    private static final Map<ResourceType, byte[]> HEADS = new EnumMap<>(ResourceType.class);

    static {
        for (ResourceType type : ResourceType.values()) {
            HEADS.put(
                    type,
                    ("{\"resource\":" + io.podfall.model.Json.string(type.plural()) + ",\"object\":")
                            .getBytes(StandardCharsets.UTF_8));
        }
    }

    /**
     * The JSON of the change of an object whose JSON is {@code object}, put around it rather than written again: the
     * API server writes each object it stores once, for the store and the fact alike. The object's JSON is the range
     * from {@link #objectOffset} to the last byte, excluded.
     */
    public static byte[] json(ResourceType type, byte[] object) {
        byte[] head = HEADS.get(type);
        byte[] json = Arrays.copyOf(head, head.length + object.length + 1);
        System.arraycopy(object, 0, json, head.length, object.length);
        json[json.length - 1] = '}';
        return json;
    }

    /** Where the object's JSON starts in a change {@link #json} made of an object of {@code type}. */
    public static int objectOffset(ResourceType type) {
        return HEADS.get(type).length;
    }

    /**
     * The change a fact carries. The same fact read again on the same thread gives the same change, read once: its tree
     * is shared, a reader must not change it. The object's uid and name are {@link SharedStrings#shared}: the caches of
     * a service key and keep an object by them, fact after fact (a pod has some seven), and each fact read would
     * otherwise be a copy of both in each cache (three of each a pod in the controller manager's).
     *
     * @throws UnreadableEventException ({@link UnreadableEventException.Kind#BAD_DATA}) when the data has no resource
     *     name or no object
     */
    public static ObjectChange of(Event fact) {
        Read last = LAST_READ.get();
        if (last != null && last.fact() == fact) {
            return last.change();
        }
        JsonNode data = fact.data();
        JsonNode resource = data.get("resource");
        JsonNode object = data.get("object");
        if (resource == null || !resource.isTextual() || object == null || !object.isObject()) {
            throw new UnreadableEventException(
                    UnreadableEventException.Kind.BAD_DATA,
                    "data of " + fact.type() + " does not match its schema: it needs a resource name and an object");
        }
        share(object.get("metadata"), "uid");
        share(object.get("metadata"), "name");
        ObjectChange change = new ObjectChange(resource.asText(), object);
        LAST_READ.set(new Read(fact, change));
        return change;
    }

    private static void share(JsonNode metadata, String field) {
        JsonNode value = metadata == null ? null : metadata.get(field);
        if (value != null && value.isTextual() && metadata instanceof ObjectNode fields) {
            fields.set(field, TextNode.valueOf(SharedStrings.shared(value.textValue())));
        }
    }

    public ResourceType resourceType() {
        return ResourceType.byPlural(resource);
    }

    public <T extends HasMetadata> T object(Class<T> kind) {
        return io.podfall.model.Json.convert(object, kind);
    }
}
