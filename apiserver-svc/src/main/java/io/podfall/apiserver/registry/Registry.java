package io.podfall.apiserver.registry;

import io.podfall.model.apiserver.BindingRequest;
import io.podfall.model.apiserver.CollectionDeletionRequest;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.EvictionRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.apiserver.RequestRejection;
import io.podfall.model.apiserver.StatusUpdateRequest;
import io.podfall.model.apiserver.UpdateRequest;
import io.podfall.model.core.Core;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.Set;

/**
 * The API server's registry and etcd: the only writer of object state. Requests reach it as events on the log
 * ({@code apiserver.CreationRequested}, {@code BindingRequested}, {@code StatusUpdateRequested},
 * {@code UpdateRequested}, {@code PatchRequested}, {@code DeletionRequested}, {@code CollectionDeletionRequested}),
 * whoever sent them (source {@code /apiserver} for HTTP calls, {@code /kubelet/<node>}, {@code /controller/scheduler});
 * every other event is ignored. Each request is either applied, and every write it makes is one fact with the full
 * object after the change (what a watch shows), or refused with one {@code apiserver.RequestRejected} carrying the
 * Kubernetes Status, and then nothing is stored.
 *
 * <p>The life of an object in storage:
 *
 * <ul>
 *   <li><b>created</b> ({@code ObjectCreated}): uid, resourceVersion, creationTimestamp and defaults assigned. A pod
 *       starts {@code Pending} and unbound; {@code PodBound} sets {@code spec.nodeName} once, only while it is not
 *       being deleted; {@code PodStatusUpdated} replaces its status. A client's update or patch
 *       ({@code UpdateRequested}, {@code PatchRequested}, the patch applied here to the object as stored) is
 *       {@code ObjectUpdated}: on a pod it may change labels, annotations and finalizers, and through the status
 *       subresource the status; a stale resourceVersion in it is a 409 Conflict.
 *   <li><b>terminating</b> ({@code ObjectMarkedTerminating}): {@code deletionTimestamp} and
 *       {@code deletionGracePeriodSeconds} set. Only pods are deleted gracefully ({@code CheckGracefulDelete}): grace =
 *       the request's, else {@code spec.terminationGracePeriodSeconds}; 0 for an unscheduled or finished pod. From here
 *       a delete may only shorten the grace period (the deadline moves earlier by the difference); a longer or equal
 *       one writes nothing ({@code rest.BeforeDelete}).
 *   <li><b>removed</b> ({@code ObjectRemoved}, the last state): when a delete finds grace 0 (or the kind has no
 *       graceful deletion) and no finalizers. A graceful delete to grace 0 is two facts of one step, as upstream's
 *       store writes, then deletes: {@code ObjectMarkedTerminating} with grace 0, then {@code ObjectRemoved} of that
 *       state. The kubelet's final delete (grace 0, uid precondition) does this for a pod whose containers have
 *       stopped. An object held by finalizers at grace 0 is removed by the update that takes its last finalizer away.
 * </ul>
 *
 * A deletecollection deletes every object its selectors match, each exactly as a single delete
 * ({@link Store#deleteCollection}). A namespace terminates its own way: see {@link NamespaceStrategy}; and nothing is
 * created in a namespace that does not exist or is terminating ({@link NamespaceLifecycle}).
 *
 * <p>Per kind ({@link Kinds}): pods follow {@link PodStrategy}; Deployments and ReplicaSets {@link WorkloadStrategy}
 * (defaults, generation 1 on create and +1 on every spec change, a {@code /scale} that writes {@code spec.replicas});
 * namespaces their own defaults; services {@link ServiceStrategy} (defaults and a cluster IP); Endpoints
 * {@link EndpointsStrategy} (defaults and validation); Leases {@link LeaseStrategy} (validation); PodDisruptionBudgets
 * {@link PodDisruptionBudgetStrategy} (validation, generation as workloads); events are stored as given. Every kind
 * with a {@code /status} subresource keeps its status out of writes of the main resource and its spec out of writes of
 * {@code /status}. ownerReferences are stored as given; the garbage collector acts on them.
 *
 * <p>Invariants: an object with finalizers is never removed, it stays terminating; the deletionTimestamp of a
 * terminating object never moves later and its grace period never grows; every write takes the next value of one global
 * resourceVersion counter (the removal too, as an etcd delete is a revision); a stored object is never changed in
 * place; a request id seen before changes nothing (a duplicate on the log).
 *
 * <p>The times it stores (creationTimestamp, deletionTimestamp, a condition's lastTransitionTime) are the request's
 * time on the log, when the API server received it, not the time the request is read back: so a registry rebuilt from
 * the log stores the very same objects (its facts still carry the time they were written).
 *
 * <p>The registry takes each request to what upstream's REST storage would: the generic {@link Store} (create, update,
 * patch, delete, deletecollection) and, as upstream keeps them apart from it, the pod subresources {@link BindingRest},
 * {@link StatusRest} and {@link EvictionRest}, and a namespace's delete {@link NamespaceRest}; all write through
 * {@link Storage}.
 *
 * <p>The HTTP layer answers a request from the effects of handling it, see {@link Outcome}.
 */
public final class Registry implements Core<RegistryState> {
    public static final String SOURCE = "/apiserver";
    static final String FINALIZER_ORPHAN = "orphan";
    static final String FINALIZER_FOREGROUND = "foregroundDeletion";
    private static final Set<String> REQUESTS = Set.of(
            EventTypes.CREATION_REQUESTED,
            EventTypes.BINDING_REQUESTED,
            EventTypes.STATUS_UPDATE_REQUESTED,
            EventTypes.DELETION_REQUESTED,
            EventTypes.COLLECTION_DELETION_REQUESTED,
            EventTypes.UPDATE_REQUESTED,
            EventTypes.PATCH_REQUESTED,
            EventTypes.EVICTION_REQUESTED);

    @Override
    public RegistryState newState() {
        return new RegistryState();
    }

    @Override
    public Effects handle(RegistryState state, Event event, Instant now) {
        if (event.is(EventTypes.OBJECT_LISTED)) {
            restore(state, ObjectChange.of(event), now);
            return Effects.NONE;
        }
        if (!isRequest(event) || !state.firstSeen(event.id())) {
            return Effects.NONE;
        }
        Effects.Builder out = Effects.of(event, now);
        try {
            switch (event.type()) {
                case EventTypes.CREATION_REQUESTED ->
                    Store.create(state, event, payload(event, CreationRequest.class), out);
                case EventTypes.BINDING_REQUESTED ->
                    BindingRest.create(state, payload(event, BindingRequest.class), out);
                case EventTypes.STATUS_UPDATE_REQUESTED ->
                    StatusRest.update(state, payload(event, StatusUpdateRequest.class), out);
                case EventTypes.UPDATE_REQUESTED -> Store.update(state, payload(event, UpdateRequest.class), out);
                case EventTypes.PATCH_REQUESTED -> Store.patch(state, payload(event, PatchRequest.class), out);
                case EventTypes.COLLECTION_DELETION_REQUESTED ->
                    Store.deleteCollection(state, event, payload(event, CollectionDeletionRequest.class), out);
                case EventTypes.EVICTION_REQUESTED ->
                    EvictionRest.create(state, payload(event, EvictionRequest.class), out);
                default -> Store.delete(state, payload(event, DeletionRequest.class), out);
            }
        } catch (StatusError refused) {
            // Checks all come before the first write, so a refused request has stored nothing.
            return Effects.of(event, now)
                    .emit(SOURCE, EventTypes.REQUEST_REJECTED, event.subject(), new RequestRejection(refused.status()))
                    .build();
        }
        return out.build();
    }

    /**
     * Requests, and the objects listed at the start of a slice of the log: the registry's other facts are its effects,
     * and it hears nothing of the nodes.
     */
    @Override
    public boolean reads(String type) {
        return REQUESTS.contains(type) || EventTypes.OBJECT_LISTED.equals(type);
    }

    /**
     * An object listed at the start of a slice ({@link EventTypes#OBJECT_LISTED}): stored as it stands, its
     * resourceVersion kept, as etcd restored from a snapshot holds it; no fact, since nothing changed.
     */
    private static void restore(RegistryState state, ObjectChange listed, Instant now) {
        ResourceType type = listed.resourceType();
        state.put(type, listed.object(type.javaType()), listed.object(), now);
        String rv = listed.object().path("metadata").path("resourceVersion").asText("");
        if (!rv.isEmpty() && rv.chars().allMatch(Character::isDigit)) {
            state.observeRevision(Long.parseLong(rv));
        }
    }

    /** The registry sets no timers: a grace period runs out at the kubelet, which then sends the final delete. */
    @Override
    public Effects fire(RegistryState state, Timer timer, Instant now) {
        return Effects.NONE;
    }

    static boolean isRequest(Event event) {
        return REQUESTS.contains(event.type());
    }

    private static <T> T payload(Event event, Class<T> type) {
        try {
            return event.data(type);
        } catch (IllegalArgumentException e) {
            throw StatusError.badRequest("the request could not be read: " + e.getMessage());
        }
    }
}
