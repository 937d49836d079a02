package io.podfall.apiserver.registry;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.podfall.model.CompressedAtRest;
import io.podfall.model.Json;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.k8s.ResourceType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What etcd holds for the {@link Registry}: the stored objects and the revision counter. Owned by the core; the HTTP
 * layer reads it under the log processor's lock.
 *
 * <p>Each object is kept as etcd keeps it, serialized: its JSON, some 1.6 KB for a running pod, where a fabric8 object
 * takes 6 KB of heap and a Jackson tree 12 KB (at 100,000 pods that is the difference between 0.2 and 1.8 GB). Whatever
 * leaves is decoded anew, so nothing read can change what is stored, and a stored object is only ever replaced. The
 * JSON is kept inside that of its write's fact ({@link ObjectChange#json}): the fact's data, and the watch history's
 * current content of the object, are the same bytes, held once, until the object has rested {@link #AT_REST}: then it
 * is held compressed ({@link CompressedAtRest}), still once (the watch history keeps the same holder,
 * {@link #holding}), and read back by decompressing it, until its next write.
 */
public final class RegistryState {
    /** How many request ids are remembered to recognise a duplicate of a request on the log. */
    static final int REMEMBERED_REQUESTS = 65_536;
    /** How long an object goes unwritten before it is held compressed. */
    public static final Duration AT_REST = Duration.ofSeconds(30);

    /**
     * Stored objects in etcd key order ({@code /registry/<resource>/<namespace>/<name>}), so lists come sorted as
     * upstream.
     */
    private final TreeMap<ObjectKey, Stored> objects = new TreeMap<>();
    /**
     * The same objects by key, for what a request reads and writes: a search of the tree took 9 % of the API server's
     * CPU in P2 (the first of a request's reads, a cache miss on each of its some 15 nodes); a write of an object
     * already stored replaces its JSON in place and leaves the tree alone.
     */
    private final Map<ObjectKey, Stored> byKey = new HashMap<>();
    /** The last resourceVersion handed out: one global counter, incremented by every write, like etcd's revision. */
    private long resourceVersion;
    /** What holds each stored object's JSON: plain while it is written, compressed once it rests. */
    private final CompressedAtRest resting = new CompressedAtRest(AT_REST);
    /** Ids of the most recent requests handled, oldest first; a request seen again changes nothing. */
    private final Set<String> recentRequests = new LinkedHashSet<>();

    public boolean contains(ResourceType type, String namespace, String name) {
        return byKey.containsKey(ObjectKey.of(type, namespace, name));
    }

    /** The object stored under a key, decoded: the caller's own copy. */
    public Optional<HasMetadata> get(ResourceType type, String namespace, String name) {
        return Optional.ofNullable(byKey.get(ObjectKey.of(type, namespace, name)))
                .map(s -> s.read(type, type.javaType()));
    }

    /** The objects of a type, decoded, in key order; {@code namespace} null or empty means all namespaces. */
    public List<HasMetadata> list(ResourceType type, String namespace) {
        return stored(type, namespace).stream()
                .<HasMetadata>map(s -> s.read(type, type.javaType()))
                .toList();
    }

    /** The JSON of the object stored under a key: the caller's own tree. */
    public Optional<JsonNode> tree(ResourceType type, String namespace, String name) {
        return Optional.ofNullable(byKey.get(ObjectKey.of(type, namespace, name)))
                .map(s -> s.tree(type));
    }

    /**
     * The JSON of the objects of a type, in key order, as {@link #list}: what the HTTP layer serves, never decoded to
     * fabric8.
     */
    public List<JsonNode> trees(ResourceType type, String namespace) {
        return stored(type, namespace).stream().map(s -> s.tree(type)).toList();
    }

    private List<Stored> stored(ResourceType type, String namespace) {
        List<Stored> out = new ArrayList<>();
        objects.forEach((k, v) -> {
            if (k.type() == type
                    && (namespace == null
                            || namespace.isEmpty()
                            || k.namespace().equals(namespace))) {
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
     * make (a log that holds only some flows of a recording, replayed in process) still took a revision, and the next
     * write must come after it, or the informers that saw it would take the next as old news.
     */
    public void observeRevision(long revision) {
        resourceVersion = Math.max(resourceVersion, revision);
    }

    long nextResourceVersion() {
        return ++resourceVersion;
    }

    /**
     * Stores {@code object}, whose JSON {@code tree} is, in place of the object of its key, written at {@code now}; the
     * JSON of the {@link ObjectChange} of the object as stored, which holds the stored bytes: the write's fact's data.
     */
    byte[] put(ResourceType type, HasMetadata object, JsonNode tree, Instant now) {
        byte[] change = ObjectChange.json(type, Json.bytes(tree));
        ObjectKey key = key(type, object);
        Stored stored = byKey.get(key);
        if (stored != null) {
            resting.release(stored.change);
        } else {
            stored = new Stored();
            byKey.put(key, stored);
            objects.put(key, stored);
        }
        stored.change = resting.hold(change, now);
        return change;
    }

    void remove(ResourceType type, HasMetadata object) {
        ObjectKey key = key(type, object);
        Stored gone = byKey.remove(key);
        if (gone != null) {
            objects.remove(key);
            resting.release(gone.change);
        }
    }

    /**
     * What holds the object stored under a key, if it holds {@code change}, the very bytes of a write's fact: the write
     * is the object's last, and the watch history keeps the same holder as the object's current content, so that the
     * content rests compressed once, not once in each.
     */
    public Optional<CompressedAtRest.Held> holding(ResourceType type, String namespace, String name, byte[] change) {
        Stored stored = byKey.get(ObjectKey.of(type, namespace, name));
        return stored != null && stored.change.holds(change) ? Optional.of(stored.change) : Optional.empty();
    }

    /** How many stored objects are held compressed. */
    int compressed() {
        return (int)
                objects.values().stream().filter(s -> s.change.isCompressed()).count();
    }

    /**
     * The JSON stored under the key of {@code object} (read from the store, so the registry compares a change with what
     * is stored, not with a copy it may have changed); made from {@code object} if none is stored.
     */
    JsonNode tree(ResourceType type, HasMetadata object) {
        Stored stored = byKey.get(key(type, object));
        return stored != null ? stored.tree(type) : Json.tree(object);
    }

    /** The object stored under the key of {@code object}, decoded anew: a copy to change and write. */
    @SuppressWarnings("unchecked")
    <T extends HasMetadata> T copy(ResourceType type, T object) {
        Stored stored = byKey.get(key(type, object));
        return stored != null ? (T) stored.read(type, object.getClass()) : Storage.copy(object);
    }

    private static ObjectKey key(ResourceType type, HasMetadata object) {
        return ObjectKey.of(
                type, object.getMetadata().getNamespace(), object.getMetadata().getName());
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

    /**
     * An object's JSON as stored, inside that of its change ({@link ObjectChange#json}); an update replaces it here.
     */
    private static final class Stored {
        CompressedAtRest.Held change;

        JsonNode tree(ResourceType type) {
            byte[] json = change.json();
            int from = ObjectChange.objectOffset(type);
            return Json.read(json, from, json.length - 1 - from);
        }

        <T> T read(ResourceType type, Class<T> kind) {
            byte[] json = change.json();
            int from = ObjectChange.objectOffset(type);
            return Json.read(json, from, json.length - 1 - from, kind);
        }
    }

    /** The etcd key of an object; cluster-scoped objects have the namespace "". */
    record ObjectKey(ResourceType type, String namespace, String name) implements Comparable<ObjectKey> {
        private static final Comparator<ObjectKey> ORDER = Comparator.comparing(ObjectKey::type)
                .thenComparing(ObjectKey::namespace)
                .thenComparing(ObjectKey::name);

        static ObjectKey of(ResourceType type, String namespace, String name) {
            return new ObjectKey(type, type.namespaced() && namespace != null ? namespace : "", name);
        }

        @Override
        public int compareTo(ObjectKey o) {
            return ORDER.compare(this, o);
        }
    }
}
