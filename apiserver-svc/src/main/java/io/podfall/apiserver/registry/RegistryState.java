package io.podfall.apiserver.registry;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.podfall.model.Json;
import io.podfall.model.k8s.ResourceType;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What etcd holds for the {@link Registry}: the stored objects and the revision counter. Owned by the core; the
 * HTTP layer reads it under the log processor's lock and copies what it takes (a stored object is never changed
 * in place: every write stores a new object, so a copy taken under the lock stays consistent).
 */
public final class RegistryState {
    /** How many request ids are remembered to recognise a duplicate of a request on the log. */
    static final int REMEMBERED_REQUESTS = 65_536;

    /** Stored objects in etcd key order ({@code /registry/<resource>/<namespace>/<name>}), so lists come sorted as upstream. */
    private final TreeMap<ObjectKey, HasMetadata> objects = new TreeMap<>();
    /**
     * The JSON of each stored object, made when it was written, so a later write copies and compares it without
     * serializing it again. Never handed out (what leaves the registry is a copy of it), and a stored object is
     * never changed in place, so it stays the object's JSON.
     */
    private final Map<HasMetadata, JsonNode> trees = new IdentityHashMap<>();
    /** The last resourceVersion handed out: one global counter, incremented by every write, like etcd's revision. */
    private long resourceVersion;
    /** Ids of the most recent requests handled, oldest first; a request seen again changes nothing. */
    private final Set<String> recentRequests = new LinkedHashSet<>();

    public Optional<HasMetadata> get(ResourceType type, String namespace, String name) {
        return Optional.ofNullable(objects.get(ObjectKey.of(type, namespace, name)));
    }

    /** The objects of a type, in key order; {@code namespace} null or empty means all namespaces. */
    public List<HasMetadata> list(ResourceType type, String namespace) {
        List<HasMetadata> out = new ArrayList<>();
        objects.forEach((k, v) -> {
            if (k.type() == type && (namespace == null || namespace.isEmpty() || k.namespace().equals(namespace))) {
                out.add(v);
            }
        });
        return out;
    }

    public long resourceVersion() {
        return resourceVersion;
    }

    public int size() {
        return objects.size();
    }

    /**
     * Moves the revision counter up to {@code revision} if it is behind: a write on the log that this state did not
     * make (a log that holds only some flows of a recording, replayed in process) still took a revision, and the
     * next write must come after it, or the informers that saw it would take the next as old news.
     */
    public void observeRevision(long revision) {
        resourceVersion = Math.max(resourceVersion, revision);
    }

    long nextResourceVersion() {
        return ++resourceVersion;
    }

    /** Stores {@code object}, whose JSON {@code tree} is, in place of the object of its key. */
    void put(ResourceType type, HasMetadata object, JsonNode tree) {
        trees.remove(objects.put(ObjectKey.of(type, object.getMetadata().getNamespace(), object.getMetadata().getName()), object));
        trees.put(object, tree);
    }

    void remove(ResourceType type, HasMetadata object) {
        trees.remove(objects.remove(ObjectKey.of(type, object.getMetadata().getNamespace(), object.getMetadata().getName())));
    }

    /**
     * The JSON of {@code object}: kept from its write if it is a stored object, else made now. Read only: the
     * registry copies it before anything changes it or it leaves.
     */
    JsonNode tree(HasMetadata object) {
        JsonNode stored = trees.get(object);
        return stored != null ? stored : Json.tree(object);
    }

    /** Records a request id; false if it was handled before (a duplicate on the log). */
    boolean firstSeen(String requestId) {
        if (!recentRequests.add(requestId)) {
            return false;
        }
        if (recentRequests.size() > REMEMBERED_REQUESTS) {
            Iterator<String> oldest = recentRequests.iterator();
            oldest.next();
            oldest.remove();
        }
        return true;
    }

    /** The etcd key of an object; cluster-scoped objects have the namespace "". */
    record ObjectKey(ResourceType type, String namespace, String name) implements Comparable<ObjectKey> {
        private static final Comparator<ObjectKey> ORDER = Comparator.comparing(ObjectKey::type)
                .thenComparing(ObjectKey::namespace).thenComparing(ObjectKey::name);

        static ObjectKey of(ResourceType type, String namespace, String name) {
            return new ObjectKey(type, type.namespaced() && namespace != null ? namespace : "", name);
        }

        @Override
        public int compareTo(ObjectKey o) {
            return ORDER.compare(this, o);
        }
    }
}
