package io.podfall.controller;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.SharedStrings;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A controller's cache of pods indexed by the node they are bound to, as upstream's pod informer with the
 * {@code spec.nodeName} indexer ({@code pkg/controller/controller_utils.go} AddPodNodeNameIndexer) that the node
 * lifecycle, taint eviction and pod GC controllers share. Each controller keeps its own view of a pod ({@code P}, a
 * small record read off the fact's tree, not the pod), so a cache of 100,000 pods stays small. Iteration is in key
 * order, so every pass over the pods decides in the same order.
 *
 * @param <P> what the controller keeps of a pod
 */
public final class PodsByNode<P extends PodsByNode.Bound> {

    /** What the index needs of a pod view: the node it is bound to, "" while unscheduled. */
    public interface Bound {
        String nodeName();
    }

    /** A pod's namespace and name: the key of upstream's informer cache. */
    public record PodKey(String namespace, String name) implements Comparable<PodKey> {
        private static final Comparator<PodKey> ORDER =
                Comparator.comparing(PodKey::namespace).thenComparing(PodKey::name);

        public static PodKey of(JsonNode pod) {
            JsonNode meta = pod.path("metadata");
            return new PodKey(
                    meta.path("namespace").asText(""), meta.path("name").asText());
        }

        @Override
        public int compareTo(PodKey o) {
            return ORDER.compare(this, o);
        }

        @Override
        public String toString() {
            return namespace + "/" + name;
        }
    }

    /**
     * A pod fact folded into the cache: the pod's view before (null when it is new) and after (null when it was
     * removed).
     */
    public record Change<P>(PodKey key, P old, P now, boolean listed) {
        public boolean removed() {
            return now == null;
        }
    }

    private final Function<JsonNode, P> view;
    private final ResourceVersions resourceVersions = new ResourceVersions();
    private final Map<PodKey, P> pods = new TreeMap<>();
    private final Map<String, Map<PodKey, P>> byNode = new HashMap<>();

    /** @param view what the controller keeps of a pod, read off the fact's tree */
    public PodsByNode(Function<JsonNode, P> view) {
        this.view = view;
    }

    /**
     * Folds a fact about a pod, unless it is a redelivery (its resourceVersion is not above the last one of its
     * namespace). The change it made, if it was news.
     */
    public Optional<Change<P>> observe(Event fact, ObjectChange change) {
        JsonNode pod = change.object();
        PodKey key = PodKey.of(pod);
        if (!resourceVersions.isNews(
                key.namespace(), pod.path("metadata").path("resourceVersion").asText(null))) {
            return Optional.empty();
        }
        P old = remove(key);
        P now = null;
        if (!fact.is(EventTypes.OBJECT_REMOVED)) {
            now = view.apply(pod);
            pods.put(key, now);
            byNode.computeIfAbsent(SharedStrings.shared(now.nodeName()), n -> new TreeMap<>())
                    .put(key, now);
        }
        return Optional.of(new Change<>(key, old, now, fact.is(EventTypes.OBJECT_LISTED)));
    }

    private P remove(PodKey key) {
        P old = pods.remove(key);
        if (old != null) {
            Map<PodKey, P> onNode = byNode.get(old.nodeName());
            onNode.remove(key);
            if (onNode.isEmpty()) {
                byNode.remove(old.nodeName());
            }
        }
        return old;
    }

    public Optional<P> get(PodKey key) {
        return Optional.ofNullable(pods.get(key));
    }

    /**
     * The pods bound to a node, in key order ("" names the unscheduled ones): a copy, to change the cache meanwhile.
     */
    public List<Map.Entry<PodKey, P>> onNode(String nodeName) {
        return byNode.getOrDefault(nodeName, Map.of()).entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue()))
                .toList();
    }

    /** Every pod, in key order. */
    public Collection<Map.Entry<PodKey, P>> all() {
        return pods.entrySet();
    }

    /** The names of the nodes that have pods bound to them ("" not among them), in name order. */
    public List<String> nodes() {
        return byNode.keySet().stream().filter(n -> !n.isEmpty()).sorted().toList();
    }
}
