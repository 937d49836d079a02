package io.podfall.controller.garbagecollector;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The ownership graph (upstream {@code uidToNode} and each node's {@code dependents} in
 * {@code pkg/controller/garbagecollector/graph_builder.go}): every object the API server holds, by uid, and for every
 * uid named in an ownerReference the objects that name it, whether that owner exists or not (a dangling reference).
 * Only the {@link GraphBuilder} changes it; {@link #put} and {@link #remove} keep the dependents index in step.
 */
final class Graph {
    /** Every object the API server holds, by uid. */
    private final Map<String, Node> uidToNode = new HashMap<>();
    /**
     * Owner uid → uids of the objects whose ownerReferences name it, in the order they were first seen, each with the
     * number of its filing (that order as a number, so an index of some of them can keep it).
     */
    private final Map<String, Map<String, Long>> dependents = new HashMap<>();
    /** Filings so far: the number of the next. */
    private long filings;
    /**
     * Uids removed from storage. A uid is never reused, so a later fact about one is a redelivery and must not bring it
     * back; it also answers "is this owner absent" for good (upstream's {@code absentOwnerCache}, unbounded here).
     */
    private final Set<String> removed = new HashSet<>();

    Optional<Node> node(String uid) {
        return Optional.ofNullable(uidToNode.get(uid));
    }

    boolean wasRemoved(String uid) {
        return removed.contains(uid);
    }

    /** The objects whose ownerReferences name this owner and that it may own, in the order they were first seen. */
    List<Node> dependents(Node owner) {
        return dependents.getOrDefault(owner.uid(), Map.of()).keySet().stream()
                .map(uidToNode::get)
                .filter(owner::mayOwn)
                .toList();
    }

    /** Whether an object names this owner that it may own; stops at the first. */
    boolean hasDependents(Node owner) {
        return dependents.getOrDefault(owner.uid(), Map.of()).keySet().stream()
                .map(uidToNode::get)
                .anyMatch(owner::mayOwn);
    }

    /** The number of the dependent's filing under the owner (the later, the greater); absent if not filed. */
    Optional<Long> filing(String ownerUid, String dependentUid) {
        return Optional.ofNullable(dependents.getOrDefault(ownerUid, Map.of()).get(dependentUid));
    }

    /** Adds or replaces the node, and files it under the owners it now names (only those). */
    void put(Node node) {
        Node before = uidToNode.put(node.uid(), node);
        if (before != null) {
            before.owners().stream()
                    .map(Node.Owner::uid)
                    .filter(uid -> node.owner(uid).isEmpty())
                    .forEach(uid -> unfile(uid, node.uid()));
        }
        node.owners()
                .forEach(o -> dependents
                        .computeIfAbsent(o.uid(), k -> new LinkedHashMap<>())
                        .computeIfAbsent(node.uid(), d -> filings++));
    }

    /** Forgets the node for good; its own dependents stay filed under its uid, now dangling. */
    void remove(String uid) {
        removed.add(uid);
        Node gone = uidToNode.remove(uid);
        if (gone != null) {
            gone.owners().forEach(o -> unfile(o.uid(), uid));
        }
    }

    private void unfile(String ownerUid, String dependentUid) {
        Map<String, Long> of = dependents.get(ownerUid);
        if (of != null && of.remove(dependentUid) != null && of.isEmpty()) {
            dependents.remove(ownerUid);
        }
    }
}
