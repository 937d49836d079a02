package io.podfall.controller.garbagecollector;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.podfall.controller.garbagecollector.GarbageCollectorState.Delete;
import io.podfall.controller.garbagecollector.GarbageCollectorState.DeleteOwnerReferences;
import io.podfall.controller.garbagecollector.GarbageCollectorState.Intent;
import io.podfall.controller.garbagecollector.GarbageCollectorState.RemoveFinalizer;
import io.podfall.controller.garbagecollector.GarbageCollectorState.Request;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.apiserver.RequestRejection;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Part;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The garbage collector of kube-controller-manager ({@code pkg/controller/garbagecollector/}): it deletes objects whose
 * owners are gone, and carries out the foreground and orphan deletions the API server starts, by asking the API server
 * for deletions and patches.
 *
 * <p><b>The graph.</b> Every object the API server reports, of every kind, is a node filed under the uids its
 * ownerReferences name ({@link GraphBuilder}, {@link Graph}). An owner is looked up by uid in the dependent's namespace
 * (or cluster-wide, if its kind is cluster-scoped): ownership never crosses namespaces. The log gives the collector the
 * API server's writes in order, so the graph is as current as the log; upstream's live GETs before each decision have
 * nothing to add.
 *
 * <p><b>attemptToDeleteItem</b> ({@code garbagecollector.go}), for an object that is not being deleted and names
 * owners. Each ownerReference is <i>solid</i> (the owner exists), <i>dangling</i> (no object of that uid exists there:
 * it was removed, or was never reported) or <i>waiting</i> (the owner is being deleted in foreground and waits for its
 * dependents). A reference to a kind the API server does not serve, or from a cluster-scoped object to a namespaced
 * kind, cannot be judged, and the object is left alone, as upstream does.
 *
 * <ul>
 *   <li>Some owner solid: the object stays; its dangling and waiting references are removed with a strategic merge
 *       patch that names the object's uid ({@link GarbageCollectorPatches#deleteOwnerReferences}).
 *   <li>No solid owner, some waiting, and dependents of its own: deleted with propagationPolicy Foreground, so the
 *       deletion goes on down the graph and the owner waits for all of it.
 *   <li>Otherwise (every owner gone, or waiting for an object without dependents): deleted with the policy of its own
 *       finalizers, Orphan or Foreground if it has that one, else Background.
 * </ul>
 *
 * Every delete carries a uid precondition, so a new object that took the name is never deleted in its place.
 *
 * <p><b>processDeletingDependentsItem</b>, for an owner deleted in foreground (deletionTimestamp and the
 * {@value Node#FINALIZER_DELETE_DEPENDENTS} finalizer): its blocking dependents (those whose reference has
 * {@code blockOwnerDeletion: true}) are attempted; when none remains in the graph, the finalizer is removed with a
 * merge patch that carries the resourceVersion it was computed from ({@link GarbageCollectorPatches#removeFinalizer}),
 * and the API server removes the owner. A dependent that is itself being deleted still blocks until it is removed.
 *
 * <p><b>attemptToOrphan</b>, for an owner deleted with the orphan policy (the {@value Node#FINALIZER_ORPHAN_DEPENDENTS}
 * finalizer): each dependent gets its reference to the owner removed by a patch; once the graph shows no dependent
 * naming the owner, the finalizer is removed.
 *
 * <p><b>When.</b> After each fact that changed the graph, the objects the {@link GraphBuilder} names are attempted in
 * order, and the blocking dependents an owner names after them; one decision per object and fact. Each request is an
 * effect of the fact that triggered it, so a cascade carries the correlation of the {@code kubectl delete} that started
 * it down to the last pod. An object listed at the start of a slice of the log ({@code apiserver.ObjectListed}) joins
 * the graph and is attempted at its next change, not before: its owners may be listed after it.
 *
 * <p><b>Requests in flight.</b> At most one request per object is in flight: while it is, the object is not attempted
 * again. It ends with the API server's answer (a fact caused by it, or {@code apiserver.RequestRejected}), or with a
 * fact that shows it done or the object removed. On a rejection:
 *
 * <ul>
 *   <li>404 NotFound, or 409 Conflict on a delete (its uid precondition failed): the object the collector knows is gone
 *       (another took its name), and it leaves the graph as if removed (upstream's virtual delete event).
 *   <li>any other refusal (a 409 on the finalizer patch's resourceVersion, say): if the object changed while the
 *       request was in flight the collector decides again at once on what it knows now (upstream retries on conflict);
 *       otherwise it waits for the object's next change rather than repeat a refused request.
 * </ul>
 *
 * <p>Invariants: no two requests about one object are in flight; an object being deleted is never deleted again by the
 * collector; an object with a solid owner is never deleted; a fact that tells the graph nothing new (a redelivery, a
 * stale resourceVersion, a uid already removed) emits nothing, so replaying the same facts in the same order gives the
 * same requests.
 */
public final class GarbageCollector implements Part<GarbageCollectorState> {
    /** The event source of every request of the collector. */
    public static final String SOURCE = "/controller/garbagecollector";

    private static final String FOREGROUND = "Foreground";
    private static final String BACKGROUND = "Background";
    private static final String ORPHAN = "Orphan";

    /** An item's ownerReferences, classified ({@code classifyReferences}). */
    private record References(List<Node.Owner> solid, List<Node.Owner> dangling, List<Node.Owner> waiting) {}

    @Override
    public GarbageCollectorState newState() {
        return new GarbageCollectorState();
    }

    @Override
    public void handle(GarbageCollectorState state, Event event, Effects.Builder effects) {
        if (event.is(EventTypes.REQUEST_REJECTED)) {
            rejected(state, event, effects);
        } else if (EventTypes.OBJECT_CHANGES.contains(event.type())) {
            state.answered(event.causationId());
            Node.of(ObjectChange.of(event)).ifPresent(node -> {
                List<String> attempts = state.fold(node, event.is(EventTypes.OBJECT_REMOVED));
                if (!event.is(EventTypes.OBJECT_LISTED)) { // listed: in the graph, and decided on before the slice
                    attemptToDelete(state, attempts, effects);
                }
            });
        }
    }

    private void rejected(GarbageCollectorState state, Event rejection, Effects.Builder effects) {
        Optional<Request> request = state.answered(rejection.causationId());
        Optional<Node> target = request.flatMap(r -> state.graph().node(r.targetUid()));
        if (target.isEmpty()) {
            return;
        }
        Status status = rejection.data(RequestRejection.class).status();
        int code = status == null || status.getCode() == null ? 0 : status.getCode();
        if (code == 404 || code == 409 && request.get().intent() instanceof Delete) {
            attemptToDelete(state, state.fold(target.get(), true), effects); // a virtual removal
        } else if (!Objects.equals(target.get().resourceVersion(), request.get().resourceVersion())) {
            attemptToDelete(state, List.of(target.get().uid()), effects);
        }
    }

    /** Drains upstream's attemptToDelete queue for one event: each object once, in the order named. */
    private void attemptToDelete(GarbageCollectorState state, List<String> uids, Effects.Builder effects) {
        Deque<String> queue = new ArrayDeque<>(uids);
        Set<String> attempted = new HashSet<>();
        while (!queue.isEmpty()) {
            String uid = queue.poll();
            if (attempted.add(uid)) {
                state.graph().node(uid).ifPresent(item -> attemptToDeleteItem(state, item, queue, effects));
            }
        }
    }

    private void attemptToDeleteItem(
            GarbageCollectorState state, Node item, Deque<String> queue, Effects.Builder effects) {
        if (state.hasRequestInFlight(item.uid())) {
            return;
        }
        if (item.isDeletingDependents()) {
            processDeletingDependentsItem(state, item, queue, effects);
            return;
        }
        if (item.isOrphaningDependents()) {
            attemptToOrphan(state, item, effects);
            return;
        }
        // "Being deleted" is a one-way trip to the removal: its dependents are handled when it is removed.
        if (item.beingDeleted() || item.owners().isEmpty()) {
            return;
        }
        Optional<References> classified = classifyReferences(state.graph(), item);
        if (classified.isEmpty()) {
            return;
        }
        References refs = classified.get();
        if (!refs.solid().isEmpty()) {
            // Waiting references go too, or their owners would wait for this object for ever.
            List<String> stale = Stream.concat(refs.dangling().stream(), refs.waiting().stream())
                    .map(Node.Owner::uid)
                    .toList();
            if (!stale.isEmpty()) {
                patch(
                        state,
                        item,
                        GarbageCollectorPatches.deleteOwnerReferences(item.uid(), stale),
                        PatchRequest.STRATEGIC,
                        new DeleteOwnerReferences(stale),
                        effects);
            }
        } else if (!refs.waiting().isEmpty() && state.graph().hasDependents(item)) {
            delete(state, item, FOREGROUND, effects);
        } else {
            delete(
                    state,
                    item,
                    item.finalizers().contains(Node.FINALIZER_ORPHAN_DEPENDENTS)
                            ? ORPHAN
                            : item.finalizers().contains(Node.FINALIZER_DELETE_DEPENDENTS) ? FOREGROUND : BACKGROUND,
                    effects);
        }
    }

    /**
     * An owner deleted in foreground: attempt its blocking dependents (only those an attempt may act on: the others,
     * being deleted or with a request in flight, would decide nothing); when none is left, let it go.
     */
    private void processDeletingDependentsItem(
            GarbageCollectorState state, Node owner, Deque<String> queue, Effects.Builder effects) {
        if (!state.hasBlockingDependents(owner)) {
            removeFinalizer(state, owner, Node.FINALIZER_DELETE_DEPENDENTS, effects);
        } else {
            queue.addAll(state.actionableBlockingDependents(owner));
        }
    }

    /** An owner deleted with the orphan policy: take it out of its dependents' references, then let it go. */
    private void attemptToOrphan(GarbageCollectorState state, Node owner, Effects.Builder effects) {
        List<Node> dependents = state.graph().dependents(owner);
        if (dependents.isEmpty()) {
            removeFinalizer(state, owner, Node.FINALIZER_ORPHAN_DEPENDENTS, effects);
            return;
        }
        dependents.stream()
                .filter(d -> !state.hasRequestInFlight(d.uid()))
                .forEach(d -> patch(
                        state,
                        d,
                        GarbageCollectorPatches.deleteOwnerReferences(d.uid(), List.of(owner.uid())),
                        PatchRequest.STRATEGIC,
                        new DeleteOwnerReferences(List.of(owner.uid())),
                        effects));
    }

    /**
     * Solid, dangling or waiting, for each of the item's ownerReferences; nothing if one cannot be judged (a kind the
     * API server does not serve, or a namespaced owner named by a cluster-scoped object: upstream's
     * {@code namespacedOwnerOfClusterScopedObjectErr}, never retried).
     */
    private static Optional<References> classifyReferences(Graph graph, Node item) {
        List<Node.Owner> solid = new ArrayList<>();
        List<Node.Owner> dangling = new ArrayList<>();
        List<Node.Owner> waiting = new ArrayList<>();
        for (Node.Owner reference : item.owners()) {
            Optional<ResourceType> kind = reference.resourceType();
            if (kind.isEmpty() || kind.get().namespaced() && item.clusterScoped()) {
                return Optional.empty();
            }
            Optional<Node> owner = graph.node(reference.uid()).filter(o -> o.mayOwn(item));
            if (owner.isEmpty()) {
                dangling.add(reference);
            } else if (owner.get().isDeletingDependents()) {
                waiting.add(reference);
            } else {
                solid.add(reference);
            }
        }
        return Optional.of(new References(solid, dangling, waiting));
    }

    private void removeFinalizer(GarbageCollectorState state, Node owner, String finalizer, Effects.Builder effects) {
        patch(
                state,
                owner,
                GarbageCollectorPatches.removeFinalizer(owner, finalizer),
                PatchRequest.MERGE,
                new RemoveFinalizer(finalizer),
                effects);
    }

    private void delete(GarbageCollectorState state, Node item, String propagationPolicy, Effects.Builder effects) {
        effects.emit(
                SOURCE,
                EventTypes.DELETION_REQUESTED,
                item.subject(),
                new DeletionRequest(
                        item.resource(),
                        item.namespace(),
                        item.name(),
                        new DeleteOptionsBuilder()
                                .withPropagationPolicy(propagationPolicy)
                                .withNewPreconditions()
                                .withUid(item.uid())
                                .endPreconditions()
                                .build()));
        state.sent(new Request(effects.lastEventId(), item.uid(), item.resourceVersion(), new Delete()));
    }

    private void patch(
            GarbageCollectorState state,
            Node item,
            JsonNode patch,
            String patchType,
            Intent intent,
            Effects.Builder effects) {
        effects.emit(
                SOURCE,
                EventTypes.PATCH_REQUESTED,
                item.subject(),
                new PatchRequest(item.resource(), item.namespace(), item.name(), null, patchType, patch));
        state.sent(new Request(effects.lastEventId(), item.uid(), item.resourceVersion(), intent));
    }
}
