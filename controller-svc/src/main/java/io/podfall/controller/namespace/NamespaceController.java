package io.podfall.controller.namespace;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CollectionDeletionRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.UpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Part;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.TreeSet;

/**
 * The namespace controller of kube-controller-manager ({@code pkg/controller/namespace/namespace_controller.go} and
 * {@code deletion/namespaced_resources_deleter.go}): it empties a namespace that is being deleted, then lets the API
 * server remove it.
 *
 * <p><b>When.</b> A namespace with a deletionTimestamp whose {@code spec.finalizers} still hold {@code kubernetes} (the
 * API server's namespace deletion marks it so and phase {@code Terminating}).
 *
 * <p><b>Emptying.</b> For every resource that holds objects in the namespace, one deletecollection with background
 * propagation, as upstream's deleteAllContentForGroupVersionResource (each caused by the namespace's
 * {@code ObjectMarkedTerminating}, so in the flow of the namespace's deletion). Once a namespace is terminating the API
 * server creates nothing new in it, so one round deletes everything there is; objects held by finalizers or terminating
 * gracefully (pods) then leave at their own pace. A refused collection delete is asked again after {@link #RETRY_AFTER}
 * while that resource still has objects (upstream requeues with a rate limit).
 *
 * <p><b>Finalizing.</b> When the cache holds no object of the namespace any more, the controller takes
 * {@code kubernetes} out of {@code spec.finalizers} through {@code /finalize} (finalizeNamespace); the API server then
 * removes the namespace (unless {@code metadata.finalizers} still hold it). A refused finalize is asked again after
 * {@link #RETRY_AFTER}.
 *
 * <p>Invariants: a fact at or below the namespace's last resourceVersion (a redelivery) changes nothing; at most one
 * request per collection and per finalize is in flight; the same facts in the same order give the same requests. Not
 * mirrored: the namespace's status conditions (NamespaceContentRemaining, ...) and the estimate of how long the
 * remaining pods will take.
 */
public final class NamespaceController implements Part<NamespaceControllerState> {
    public static final String SOURCE = "/controller/namespace";
    /** upstream's finalizer of a namespace's content ({@code v1.FinalizerKubernetes}). */
    public static final String FINALIZER_KUBERNETES = "kubernetes";

    static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    @Override
    public NamespaceControllerState newState() {
        return new NamespaceControllerState();
    }

    @Override
    public void handle(NamespaceControllerState state, Event event, Effects.Builder effects) {
        if (event.is(EventTypes.REQUEST_REJECTED)) {
            NamespaceRequest refused = event.causationId() == null ? null : state.inFlight.remove(event.causationId());
            if (refused != null) {
                effects.timer(refused, effects.now().plus(RETRY_AFTER));
            }
            return;
        }
        if (!EventTypes.OBJECT_CHANGES.contains(event.type())) {
            return;
        }
        if (event.causationId() != null) {
            state.inFlight.remove(event.causationId());
        }
        ObjectChange change = ObjectChange.of(event);
        JsonNode meta = change.object().path("metadata");
        String namespace = meta.path("namespace").asText("");
        if (!state.resourceVersions.isNews(
                namespace, meta.path("resourceVersion").asText(null))) {
            return;
        }
        boolean removed = event.is(EventTypes.OBJECT_REMOVED);
        if (ResourceType.NAMESPACES.plural().equals(change.resource())) {
            namespaceChanged(
                    state, change.object(Namespace.class), removed, event.is(EventTypes.OBJECT_LISTED), effects);
        } else if (!namespace.isEmpty()) {
            contentChanged(state, namespace, change.resource(), meta.path("uid").asText(), removed, effects);
        }
    }

    /** A retry after a refusal: the collection delete or the finalize, if still needed. */
    @Override
    public void fire(NamespaceControllerState state, Timer timer, Effects.Builder effects) {
        if (!(timer.key() instanceof NamespaceRequest retry)) {
            return;
        }
        Namespace ns = state.namespaces.get(retry.namespace());
        if (ns == null || !isTerminating(ns)) {
            return;
        }
        if (retry instanceof NamespaceRequest.DeleteCollection d) {
            if (state.resourcesWithContent(d.namespace()).contains(d.resource())) {
                deleteCollection(state, d.namespace(), d.resource(), effects);
            }
        } else {
            finalizeIfEmpty(state, ns, effects);
        }
    }

    /**
     * A namespace stored; {@code listed} at a slice's start ({@code apiserver.ObjectListed}): a terminating one had its
     * content's deletion asked for before the slice, and is finalized when the last of it goes.
     */
    private void namespaceChanged(
            NamespaceControllerState state, Namespace ns, boolean removed, boolean listed, Effects.Builder effects) {
        String name = ns.getMetadata().getName();
        if (removed) {
            state.namespaces.remove(name);
            state.emptying.remove(name);
            return;
        }
        state.namespaces.put(name, ns);
        if (!isTerminating(ns)) {
            return;
        }
        if (state.emptying.add(name) && !listed) {
            state.resourcesWithContent(name).forEach(resource -> deleteCollection(state, name, resource, effects));
        }
        if (!listed) {
            finalizeIfEmpty(state, ns, effects);
        }
    }

    private void contentChanged(
            NamespaceControllerState state,
            String namespace,
            String resource,
            String uid,
            boolean removed,
            Effects.Builder effects) {
        var uids = state.content
                .computeIfAbsent(namespace, n -> new HashMap<>())
                .computeIfAbsent(resource, r -> new TreeSet<>());
        if (!removed) {
            uids.add(uid);
            return;
        }
        uids.remove(uid);
        Namespace ns = state.namespaces.get(namespace);
        if (ns != null && isTerminating(ns)) {
            finalizeIfEmpty(state, ns, effects);
        }
    }

    /** deleteCollection with background propagation, as upstream's deleter sends it. */
    private void deleteCollection(
            NamespaceControllerState state, String namespace, String resource, Effects.Builder effects) {
        NamespaceRequest what = new NamespaceRequest.DeleteCollection(namespace, resource);
        if (state.inFlight.containsValue(what)) {
            return;
        }
        effects.emit(
                SOURCE,
                EventTypes.COLLECTION_DELETION_REQUESTED,
                Subjects.ofCollection(namespace, resource),
                new CollectionDeletionRequest(
                        resource,
                        namespace,
                        null,
                        null,
                        new DeleteOptionsBuilder()
                                .withPropagationPolicy("Background")
                                .build()));
        state.inFlight.put(effects.lastEventId(), what);
    }

    /** finalizeNamespace: {@code kubernetes} out of spec.finalizers, once nothing is left in the namespace. */
    private void finalizeIfEmpty(NamespaceControllerState state, Namespace ns, Effects.Builder effects) {
        String name = ns.getMetadata().getName();
        NamespaceRequest what = new NamespaceRequest.Finalize(name);
        if (!state.isEmpty(name) || state.inFlight.containsValue(what)) {
            return;
        }
        List<String> rest = ns.getSpec().getFinalizers().stream()
                .filter(f -> !FINALIZER_KUBERNETES.equals(f))
                .toList();
        Namespace finalized = new NamespaceBuilder(ns)
                .editSpec()
                .withFinalizers(rest)
                .endSpec()
                .editMetadata()
                .withResourceVersion(null)
                .endMetadata()
                .build();
        effects.emit(
                SOURCE,
                EventTypes.UPDATE_REQUESTED,
                Subjects.of("", ResourceType.NAMESPACES.plural(), name),
                new UpdateRequest(ResourceType.NAMESPACES.plural(), "", name, "finalize", Json.tree(finalized)));
        state.inFlight.put(effects.lastEventId(), what);
    }

    /** Being deleted, with its content not yet finalized. */
    private static boolean isTerminating(Namespace ns) {
        return ns.getMetadata().getDeletionTimestamp() != null
                && ns.getSpec() != null
                && ns.getSpec().getFinalizers() != null
                && ns.getSpec().getFinalizers().contains(FINALIZER_KUBERNETES);
    }
}
