package io.podfall.model.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.podfall.model.event.Event;
import io.podfall.model.event.UnreadableEventException;
import io.podfall.model.k8s.ResourceType;

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

    private record Read(Event fact, ObjectChange change) {
    }

    public static ObjectChange of(ResourceType type, HasMetadata object) {
        return new ObjectChange(type.plural(), io.podfall.model.Json.tree(object));
    }

    /**
     * The change a fact carries. The same fact read again on the same thread gives the same change, read once: its
     * tree is shared, a reader must not change it.
     *
     * @throws UnreadableEventException ({@link UnreadableEventException.Kind#BAD_DATA}) when the data has no
     *                                  resource name or no object
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
            throw new UnreadableEventException(UnreadableEventException.Kind.BAD_DATA,
                    "data of " + fact.type() + " does not match its schema: it needs a resource name and an object");
        }
        ObjectChange change = new ObjectChange(resource.asText(), object);
        LAST_READ.set(new Read(fact, change));
        return change;
    }

    public ResourceType resourceType() {
        return ResourceType.byPlural(resource);
    }

    public <T extends HasMetadata> T object(Class<T> kind) {
        return io.podfall.model.Json.convert(object, kind);
    }
}
