package io.podfall.controller.garbagecollector;

import io.podfall.controller.ResourceVersions;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Folds the API server's facts into the {@link Graph} and names the objects the collector must look at because of them
 * (upstream {@code processGraphChanges} and {@code processTransitions} of
 * {@code pkg/controller/garbagecollector/graph_builder.go}, which feed the {@code attemptToDelete} and
 * {@code attemptToOrphan} queues).
 *
 * <ul>
 *   <li>An object stored or changed: the object itself (it may name an owner that is gone, or have just started a
 *       foreground or orphan deletion); if it is deleting its dependents, those dependents; and every owner, before and
 *       after the change, that waits for its dependents (a reference removed or a dependent changed may be what it
 *       waits for).
 *   <li>An object removed: its dependents (their reference now dangles) and its owners that wait for their dependents.
 *       The same follows a "virtual" removal, when a request tells the collector that the object it knows is no longer
 *       there.
 * </ul>
 *
 * <p>A fact that tells the graph nothing new names nobody: a redelivery (same or older resourceVersion, or a uid
 * already removed), or a write that changed nothing the collector decides on (a pod's status, say), though its
 * resourceVersion is kept.
 */
final class GraphBuilder {
    private GraphBuilder() {}

    /**
     * Folds the node an {@code apiserver.Object*} or {@code apiserver.Pod*} fact shows (its last state if
     * {@code removed}); returns the uids to attempt, in order.
     */
    static List<String> processGraphChanges(Graph graph, Node node, boolean removed) {
        if (graph.wasRemoved(node.uid())) {
            return List.of();
        }
        if (removed) {
            return removeNode(graph, node);
        }
        Optional<Node> existing = graph.node(node.uid());
        if (existing.isPresent()
                && (existing.get().equals(node)
                        || ResourceVersions.isOlder(
                                node.resourceVersion(), existing.get().resourceVersion()))) {
            return List.of();
        }
        graph.put(node);
        if (existing.isPresent() && existing.get().sameForCollector(node)) {
            return List.of();
        }
        Set<String> attempts = new LinkedHashSet<>();
        if (node.isDeletingDependents()) {
            graph.dependents(node).forEach(d -> attempts.add(d.uid()));
        }
        attempts.add(node.uid());
        attempts.addAll(ownersAwaitingDependents(graph, Stream.concat(existing.stream(), Stream.of(node))));
        return List.copyOf(attempts);
    }

    /**
     * Removes the node (its last state, from a removal fact or from the graph); returns its dependents and its owners
     * that wait for their dependents.
     */
    private static List<String> removeNode(Graph graph, Node node) {
        graph.remove(node.uid());
        Set<String> attempts = new LinkedHashSet<>();
        graph.dependents(node).forEach(d -> attempts.add(d.uid()));
        attempts.addAll(ownersAwaitingDependents(graph, Stream.of(node)));
        return List.copyOf(attempts);
    }

    /** The owners of these nodes that are being deleted in foreground or with orphan, waiting on their dependents. */
    private static List<String> ownersAwaitingDependents(Graph graph, Stream<Node> nodes) {
        return nodes.flatMap(n -> n.owners().stream())
                .map(o -> graph.node(o.uid()))
                .flatMap(Optional::stream)
                .filter(o -> o.isDeletingDependents() || o.isOrphaningDependents())
                .map(Node::uid)
                .distinct()
                .toList();
    }
}
