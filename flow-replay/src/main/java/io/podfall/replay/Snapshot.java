package io.podfall.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.podfall.apiserver.registry.Registry;
import io.podfall.apiserver.registry.RegistryState;
import io.podfall.kubelet.nodelease.NodeLeaseController;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Ids;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What the flows of a slice of a log (one namespace, one flow, a time window) depend on at its start, so that the slice
 * replays on its own: the API server's objects they may read as they stood then, each an {@code apiserver.ObjectListed}
 * event, written before the slice's events. Replaying or rebuilding the state of such a file folds these first
 * ({@link Engine#fold}, as any recorded event): the API server stores each, the other cores take each in as the
 * object's state and decide nothing on it, and the kubelets that run the listed Nodes are running ({@link Recording}).
 *
 * <p>Which objects: every cluster-scoped one (Nodes, Namespaces), and every one in a namespace the slice's events are
 * about or in {@code kube-node-lease} (the nodes' Leases). Ownership never crosses namespaces, so the owners of the
 * slice's objects, the Services and Endpoints that select its pods are among them. What is not an API object is not:
 * the pod workers and containers of pods that run when the slice begins.
 */
public final class Snapshot {
    private static final String SELECTION = "selection";
    private static final String KUBELET = "kubelet";

    private Snapshot() {}

    /**
     * What a slice holds: the events that meet every criterion given (null: any); {@code since} inclusive,
     * {@code until} exclusive. A namespace holds, beside its own objects' events, those of the objects every namespace
     * shares: cluster-scoped ones (a Node cordoned by {@code kubectl drain}, its status) and the nodes' Leases. A
     * replay of the slice compares only the replayed events it would hold too: the rest (other namespaces, other flows)
     * is work the slice left out.
     */
    public record Selection(String namespace, String correlation, Instant since, Instant until)
            implements Predicate<Event> {
        @Override
        public boolean test(Event e) {
            return (since == null || !e.time().isBefore(since))
                    && (until == null || e.time().isBefore(until))
                    && (namespace == null || inNamespace(e))
                    && (correlation == null || correlation.equals(e.correlationId()));
        }

        private boolean inNamespace(Event e) {
            String of = Subjects.namespaceOf(e.subject());
            return namespace.equals(of) || of.isEmpty() || NodeLeaseController.NAMESPACE.equals(of);
        }

        /**
         * This selection from the first event of its namespace on, where it names no start: the objects every namespace
         * shares have events from the log's beginning, which are no part of the namespace's story.
         */
        Selection startingIn(List<Event> log) {
            if (namespace == null || since != null) {
                return this;
            }
            return log.stream()
                    .filter(e -> namespace.equals(Subjects.namespaceOf(e.subject()))
                            && (correlation == null || correlation.equals(e.correlationId())))
                    .findFirst()
                    .map(e -> new Selection(namespace, correlation, e.time(), until))
                    .orElse(this);
        }

        /** Whether it selects all of any log: then it needs no snapshot. */
        public boolean isAll() {
            return namespace == null && correlation == null && since == null && until == null;
        }

        ObjectNode json() {
            ObjectNode json = Json.MAPPER.createObjectNode();
            if (namespace != null) {
                json.put("namespace", namespace);
            }
            if (correlation != null) {
                json.put("correlation", correlation);
            }
            if (since != null) {
                json.put("since", since.toString());
            }
            if (until != null) {
                json.put("until", until.toString());
            }
            return json;
        }

        static Selection of(JsonNode json) {
            return new Selection(
                    text(json, "namespace"), text(json, "correlation"), instant(json, "since"), instant(json, "until"));
        }

        private static String text(JsonNode json, String field) {
            return json.path(field).isTextual() ? json.path(field).asText() : null;
        }

        private static Instant instant(JsonNode json, String field) {
            String t = text(json, field);
            return t == null ? null : Instant.parse(t);
        }
    }

    /**
     * The slice of {@code log} that {@code selection} holds, preceded by its snapshot: the state the recording led to
     * just before the slice's first instant ({@code since}, else its first event), rebuilt as {@code state --at}
     * rebuilds it ({@link StateReport#rebuild}). Nothing is listed when nothing came before.
     */
    public static List<Event> slice(List<Event> log, Selection asked) {
        Selection selection = asked.startingIn(log);
        List<Event> kept = log.stream().filter(selection).toList();
        if (kept.isEmpty()) {
            return kept;
        }
        Instant start =
                selection.since() != null ? selection.since() : kept.get(0).time();
        List<Event> out = new ArrayList<>();
        if (!log.isEmpty() && log.get(0).time().isBefore(start)) {
            Instant before = start.minusNanos(1);
            Set<String> namespaces = new HashSet<>();
            kept.forEach(e -> namespaces.add(Subjects.namespaceOf(e.subject())));
            out.addAll(listed(
                    StateReport.rebuild(log, before),
                    before,
                    selection,
                    namespaces,
                    Recording.of(log).kubelets()));
        }
        out.addAll(kept);
        return out;
    }

    /**
     * The snapshot of the API server's state in {@code engine} at {@code at} for a slice about {@code namespaces}: one
     * {@code apiserver.ObjectListed} per object (above), at {@code at}, with an id derived from the object's key and
     * resourceVersion, in resourceVersion order: the order of their last writes, which is the order a watcher expects
     * facts of one namespace in. Each carries the {@code selection}; a Node, the nodes and switches of the kubelet
     * among {@code kubelets} that runs it.
     */
    static List<Event> listed(
            Engine engine,
            Instant at,
            Selection selection,
            Set<String> namespaces,
            List<Engine.KubeletSettings> kubelets) {
        RegistryState registry = engine.apiServer();
        record Listed(ResourceType type, HasMetadata object, JsonNode tree) {
            long resourceVersion() {
                return Long.parseLong(object.getMetadata().getResourceVersion());
            }
        }
        List<Listed> objects = new ArrayList<>();
        for (ResourceType type : ResourceType.values()) {
            List<HasMetadata> all = registry.list(type, null);
            List<JsonNode> trees = registry.trees(type, null);
            for (int i = 0; i < all.size(); i++) {
                String ns = all.get(i).getMetadata().getNamespace();
                if (!type.namespaced() || namespaces.contains(ns) || NodeLeaseController.NAMESPACE.equals(ns)) {
                    objects.add(new Listed(type, all.get(i), trees.get(i)));
                }
            }
        }
        objects.sort(Comparator.comparingLong(Listed::resourceVersion));
        List<Event> out = new ArrayList<>();
        for (Listed o : objects) {
            String subject = Subjects.of(
                    o.object().getMetadata().getNamespace(),
                    o.type().plural(),
                    o.object().getMetadata().getName());
            ObjectNode data =
                    Json.MAPPER.createObjectNode().put("resource", o.type().plural());
            data.set("object", o.tree());
            data.set(SELECTION, selection.json());
            if (o.type() == ResourceType.NODES) {
                kubeletOf(kubelets, o.object().getMetadata().getName()).ifPresent(k -> data.set(KUBELET, k));
            }
            String id = Ids.derived("listed", subject, o.object().getMetadata().getResourceVersion(), at.toString());
            out.add(Event.request(id, Registry.SOURCE, EventTypes.OBJECT_LISTED, subject, at, null, data));
        }
        return out;
    }

    private static Optional<JsonNode> kubeletOf(List<Engine.KubeletSettings> kubelets, String node) {
        return kubelets.stream()
                .filter(k -> k.nodes().contains(node))
                .findFirst()
                .map(k -> {
                    ObjectNode json = Json.MAPPER.createObjectNode();
                    k.nodes().forEach(json.putArray("nodes")::add);
                    Recording.switches(k.compat()).forEach(json.putArray("compat")::add);
                    return json;
                });
    }

    /** How many events {@code log} begins with that are its snapshot: 0 for a log that is not a slice. */
    public static int length(List<Event> log) {
        int n = 0;
        while (n < log.size() && log.get(n).is(EventTypes.OBJECT_LISTED)) {
            n++;
        }
        return n;
    }

    /** What a slice holds: the selection its snapshot names; empty for a log that is not a slice. */
    public static Optional<Selection> selection(List<Event> log) {
        return log.isEmpty() || !log.get(0).is(EventTypes.OBJECT_LISTED)
                ? Optional.empty()
                : Optional.of(Selection.of(log.get(0).data().path(SELECTION)));
    }

    /** The nodes of the kubelet that runs a listed Node, as {@link #listed} names them; empty if it names none. */
    static List<String> kubeletNodes(Event listed) {
        List<String> nodes = new ArrayList<>();
        listed.data().path(KUBELET).path("nodes").forEach(n -> nodes.add(n.asText()));
        return nodes;
    }

    /** The compatibility switches of the kubelet that runs a listed Node. */
    static List<String> kubeletCompat(Event listed) {
        List<String> compat = new ArrayList<>();
        listed.data().path(KUBELET).path("compat").forEach(n -> compat.add(n.asText()));
        return compat;
    }
}
