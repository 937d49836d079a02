package io.podfall.controller.garbagecollector;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.controller.PodUtil;
import io.podfall.model.SharedStrings;
import io.podfall.model.SharedValues;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * One object of the ownership graph (upstream {@code node} of {@code pkg/controller/garbagecollector/graph.go}): where
 * it is served, which uid it has, the resourceVersion last seen, and the parts of its metadata the collector decides
 * on. Immutable: a new fact replaces the node.
 *
 * @param resource the plural it is served under ({@code pods}, {@code replicasets}); requests go there
 * @param namespace null or empty for a cluster-scoped object
 * @param resourceVersion of the last fact folded in: a stale fact is recognised by it, and the finalizer patch carries
 *     it as a precondition
 * @param owners its ownerReferences, in their order
 * @param finalizers its finalizers; {@value #FINALIZER_DELETE_DEPENDENTS} and {@value #FINALIZER_ORPHAN_DEPENDENTS} are
 *     the collector's own
 * @param beingDeleted whether it has a deletionTimestamp: a one-way trip to its removal
 */
record Node(
        String resource,
        String namespace,
        String name,
        String uid,
        String resourceVersion,
        List<Owner> owners,
        List<String> finalizers,
        boolean beingDeleted) {
    /** metav1.FinalizerDeleteDependents: a foreground deletion waits for the owner's blocking dependents. */
    static final String FINALIZER_DELETE_DEPENDENTS = "foregroundDeletion";
    /** metav1.FinalizerOrphanDependents: the owner goes once no dependent points to it any more. */
    static final String FINALIZER_ORPHAN_DEPENDENTS = "orphan";

    /**
     * An ownerReference. It names no namespace: a namespaced owner is looked up in the dependent's namespace.
     *
     * @param blockOwnerDeletion whether the owner, deleted in foreground, waits for this dependent to be removed
     */
    record Owner(String apiVersion, String kind, String name, String uid, boolean blockOwnerDeletion) {
        /** The type of the owner, if the API server serves its kind (upstream asks the REST mapper). */
        Optional<ResourceType> resourceType() {
            String group = apiVersion == null || !apiVersion.contains("/")
                    ? ""
                    : apiVersion.substring(0, apiVersion.indexOf('/'));
            return Arrays.stream(ResourceType.values())
                    .filter(t -> t.group().equals(group) && t.kind().equals(kind))
                    .findFirst();
        }
    }

    /**
     * The node of an object as a fact shows it; none for an object without a uid (nothing can own or be owned by it).
     * Read straight off the fact's tree, not converted to an {@code ObjectMeta}: the collector folds every fact of
     * every object. What many objects share (a namespace, a finalizer) is one string for all, and the ownerReferences
     * of a ReplicaSet's pods one list.
     */
    static Optional<Node> of(ObjectChange change) {
        JsonNode metadata = change.object() == null ? null : change.object().get("metadata");
        String uid = metadata == null ? null : metadata.path("uid").textValue();
        if (uid == null || uid.isEmpty()) {
            return Optional.empty();
        }
        List<Owner> owners = new ArrayList<>();
        for (JsonNode r : metadata.path("ownerReferences")) {
            owners.add(new Owner(
                    PodUtil.shared(r.path("apiVersion")),
                    PodUtil.shared(r.path("kind")),
                    PodUtil.shared(r.path("name")),
                    PodUtil.shared(r.path("uid")),
                    r.path("blockOwnerDeletion").asBoolean(false)));
        }
        List<String> finalizers = new ArrayList<>();
        metadata.path("finalizers").forEach(f -> finalizers.add(SharedStrings.shared(f.asText())));
        JsonNode deletionTimestamp = metadata.path("deletionTimestamp");
        return Optional.of(new Node(
                SharedStrings.shared(change.resource()),
                PodUtil.shared(metadata.path("namespace")),
                metadata.path("name").textValue(),
                uid,
                metadata.path("resourceVersion").textValue(),
                SharedValues.shared(List.copyOf(owners)),
                List.copyOf(finalizers),
                !deletionTimestamp.isMissingNode() && !deletionTimestamp.isNull()));
    }

    /**
     * Deleted in foreground: it stays until its blocking dependents are gone (graph.go {@code isDeletingDependents}).
     */
    boolean isDeletingDependents() {
        return beingDeleted && finalizers.contains(FINALIZER_DELETE_DEPENDENTS);
    }

    /** Deleted with the orphan policy: it stays until no dependent points to it. */
    boolean isOrphaningDependents() {
        return beingDeleted && finalizers.contains(FINALIZER_ORPHAN_DEPENDENTS);
    }

    boolean clusterScoped() {
        return namespace == null || namespace.isEmpty();
    }

    /** This object's reference to the owner of that uid. */
    Optional<Owner> owner(String ownerUid) {
        return owners.stream().filter(o -> o.uid().equals(ownerUid)).findFirst();
    }

    /**
     * Whether this object can be the owner its dependent names by uid: ownership never crosses namespaces, so a
     * namespaced owner must be in the dependent's namespace (a cluster-scoped one can own anything).
     */
    boolean mayOwn(Node dependent) {
        return clusterScoped() || namespace.equals(dependent.namespace());
    }

    /** The same object, as far as the collector cares: only the resourceVersion may differ (a status write, say). */
    boolean sameForCollector(Node other) {
        return owners.equals(other.owners) && finalizers.equals(other.finalizers) && beingDeleted == other.beingDeleted;
    }

    String subject() {
        return Subjects.of(namespace, resource, name);
    }
}
