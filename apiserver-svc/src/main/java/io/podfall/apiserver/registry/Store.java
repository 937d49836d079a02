package io.podfall.apiserver.registry;

import static io.podfall.apiserver.registry.Registry.FINALIZER_FOREGROUND;
import static io.podfall.apiserver.registry.Registry.FINALIZER_ORPHAN;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.podfall.apiserver.registry.StatusError.FieldError;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CollectionDeletionRequest;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.apiserver.RequestRejection;
import io.podfall.model.apiserver.UpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Ids;
import io.podfall.model.event.Rfc3339;
import io.podfall.model.k8s.MetaTimes;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The generic store every kind is written through: create, update (and patch, applied first to the object as stored),
 * delete and deletecollection, with the kind's strategy. Upstream's
 * {@code staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go}, with the decoding and the checks of the
 * handlers before it ({@code staging/src/k8s.io/apiserver/pkg/endpoints/handlers/}). The pod subresources that are not
 * generic stand beside it ({@link BindingRest}, {@link StatusRest}, {@link EvictionRest}), as a namespace's delete does
 * ({@link NamespaceRest}).
 */
final class Store {
    /** {@code maxNameGenerationCreateAttempts} of store.go. */
    static final int GENERATE_NAME_ATTEMPTS = 8;

    private Store() {}

    // --- create: staging/src/k8s.io/apiserver/pkg/registry/rest/create.go BeforeCreate, then the store's Create ---

    static void create(RegistryState state, Event event, CreationRequest req, Effects.Builder out) {
        ResourceType type = resourceType(req.resource());
        HasMetadata object = decode(type, req.object());
        ObjectMeta meta = object.getMetadata() == null ? new ObjectMeta() : object.getMetadata();
        object.setMetadata(meta);
        String namespace = req.namespace() == null ? "" : req.namespace();
        setNamespace(type, meta, namespace);
        boolean generated = (meta.getName() == null || meta.getName().isEmpty())
                && meta.getGenerateName() != null
                && !meta.getGenerateName().isEmpty();
        if (generated) {
            meta.setName(Names.generate(meta.getGenerateName(), event.id()));
        }
        // FillObjectMetaSystemFields, and a new object is never born terminating.
        meta.setUid(Ids.derived("uid", event.id()));
        meta.setCreationTimestamp(MetaTimes.format(out.causeTime()));
        meta.setDeletionTimestamp(null);
        meta.setDeletionGracePeriodSeconds(null);
        meta.setResourceVersion(null);
        // Mutating admission comes before validation upstream, so a missing namespace is a 404 whatever the object.
        NamespaceLifecycle.admitCreate(state, type, namespace, meta.getName());
        List<FieldError> errors = new ArrayList<>(Names.validate(type, meta));
        if (type.namespaced() && namespace.isEmpty()) {
            errors.add(FieldError.required("metadata.namespace", ""));
        }
        if (object instanceof Pod pod) {
            PodStrategy.prepareForCreate(pod);
            DefaultTolerationSeconds.admit(pod);
            errors.addAll(PodStrategy.validateSpec(pod));
        } else if (WorkloadStrategy.isWorkload(type)) {
            WorkloadStrategy.prepareForCreate(object);
            errors.addAll(WorkloadStrategy.validate(object));
        } else if (object instanceof Namespace ns) {
            NamespaceStrategy.prepareForCreate(ns);
            errors.addAll(NamespaceStrategy.validate(ns));
        } else if (object instanceof Service service) {
            ServiceStrategy.prepareForCreate(service);
            errors.addAll(ServiceStrategy.allocateClusterIP(service, state.list(ResourceType.SERVICES, null)));
        } else if (object instanceof Endpoints endpoints) {
            EndpointsStrategy.applyDefaults(endpoints);
            errors.addAll(EndpointsStrategy.validate(endpoints));
        } else if (object instanceof Lease lease) {
            errors.addAll(LeaseStrategy.validate(lease));
        } else if (object instanceof PodDisruptionBudget pdb) {
            PodDisruptionBudgetStrategy.prepareForCreate(pdb);
            errors.addAll(PodDisruptionBudgetStrategy.validate(pdb));
        }
        if (!errors.isEmpty()) {
            throw StatusError.invalid(type, meta.getName() == null ? "" : meta.getName(), errors);
        }
        // RetryGenerateName (KEP-4420, GA in 1.32; the create of store.go): a generated name already taken is
        // generated again, up to 8 attempts in all. Five characters of 27 collide: some 350 times among 100,000
        // pods of one ReplicaSet.
        for (int attempt = 1;
                generated
                        && attempt < GENERATE_NAME_ATTEMPTS
                        && state.contains(type, meta.getNamespace(), meta.getName());
                attempt++) {
            meta.setName(Names.generate(meta.getGenerateName(), event.id(), attempt));
        }
        if (state.contains(type, meta.getNamespace(), meta.getName())) {
            throw StatusError.alreadyExists(type, meta.getName());
        }
        Storage.write(state, out, EventTypes.OBJECT_CREATED, type, object);
    }

    /**
     * The namespace of an object written: the request's for a namespaced kind (the object's must match it, the
     * namespace check of the create and update handlers), none for a cluster-scoped one.
     */
    private static void setNamespace(ResourceType type, ObjectMeta meta, String namespace) {
        if (type.namespaced()) {
            if (meta.getNamespace() != null
                    && !meta.getNamespace().isEmpty()
                    && !meta.getNamespace().equals(namespace)) {
                throw StatusError.badRequest(
                        "the namespace of the provided object does not match the namespace sent on the request");
            }
            meta.setNamespace(namespace);
        } else {
            meta.setNamespace(null);
        }
    }

    private static HasMetadata decode(ResourceType type, JsonNode json) {
        if (json == null || !json.isObject()) {
            throw StatusError.badRequest("the object of the request is not a JSON object");
        }
        String apiVersion = json.path("apiVersion").asText("");
        if (!apiVersion.isEmpty() && !apiVersion.equals(type.apiVersion())) {
            throw StatusError.badRequest("the API version in the data (" + apiVersion
                    + ") does not match the expected API version (" + type.apiVersion() + ")");
        }
        String kind = json.path("kind").asText("");
        if (!kind.isEmpty() && !kind.equals(type.kind())) {
            throw StatusError.badRequest(
                    "the kind in the data (" + kind + ") does not match the expected kind (" + type.kind() + ")");
        }
        try {
            // fabric8's Pod and Node carry kind and apiVersion from construction: a body without them gets them.
            return Json.convert(withoutNulls(json), type.javaType());
        } catch (IllegalArgumentException e) {
            throw StatusError.badRequest(type.kind() + " in version \"" + type.version() + "\" cannot be handled as a "
                    + type.kind() + ": " + e.getMessage());
        }
    }

    /**
     * A JSON null decodes to the zero value in Go: an absent field, a nil list or map. fabric8 would keep a null list
     * where the rules expect an empty one, so a null field is dropped and a null element of a list is an empty object
     * (Go's zero struct).
     */
    private static JsonNode withoutNulls(JsonNode json) {
        if (json instanceof ObjectNode object) {
            ObjectNode out = Json.MAPPER.createObjectNode();
            object.fields().forEachRemaining(f -> {
                if (!f.getValue().isNull()) {
                    out.set(f.getKey(), withoutNulls(f.getValue()));
                }
            });
            return out;
        }
        if (json instanceof ArrayNode array) {
            ArrayNode out = Json.MAPPER.createArrayNode();
            array.forEach(e -> out.add(e.isNull() ? Json.MAPPER.createObjectNode() : withoutNulls(e)));
            return out;
        }
        return json;
    }

    // --- update and patch: store.go Update with staging/.../registry/rest/update.go BeforeUpdate; a patch is
    //     applied first to the object as stored (staging/.../endpoints/handlers/patch.go), then updated alike ---

    static void update(RegistryState state, UpdateRequest req, Effects.Builder out) {
        ResourceType type = resourceType(req.resource());
        String subresource = subresource(type, req.subresource(), Kinds::updatable);
        HasMetadata current = Storage.existing(state, type, req.namespace(), req.name());
        if (Kinds.SCALE.equals(subresource)) {
            updateObject(
                    state,
                    type,
                    current,
                    WorkloadStrategy.scaled(type, current, req.object(), req.name()),
                    req.namespace(),
                    req.name(),
                    null,
                    out);
            return;
        }
        updateBody(state, type, current, req.object(), req.namespace(), req.name(), subresource, out);
    }

    /** A patch of {@code /scale} is applied to the Scale the workload shows ({@code scaleUpdatedObjectInfo}). */
    static void patch(RegistryState state, PatchRequest req, Effects.Builder out) {
        ResourceType type = resourceType(req.resource());
        // A patch reads the object through the subresource first; /finalize has no GET to read it through.
        String subresource = subresource(type, req.subresource(), Kinds::readable);
        HasMetadata current = Storage.existing(state, type, req.namespace(), req.name());
        if (req.patch() == null) {
            throw StatusError.badRequest("the body of the request is empty");
        }
        String patchType = req.patchType() == null ? "" : req.patchType();
        if (Kinds.SCALE.equals(subresource)) {
            JsonNode scale =
                    Patches.apply(patchType, Map.of(), WorkloadStrategy.scale(state.tree(type, current)), req.patch());
            updateObject(
                    state,
                    type,
                    current,
                    WorkloadStrategy.scaled(type, current, scale, req.name()),
                    req.namespace(),
                    req.name(),
                    null,
                    out);
            return;
        }
        JsonNode patched = Patches.apply(patchType, type, state.tree(type, current), req.patch());
        updateBody(state, type, current, patched, req.namespace(), req.name(), subresource, out);
    }

    /**
     * The subresource of a write (null for the main resource), if the kind serves it ({@link Kinds#subresources}; any
     * other is a path not served) and the verb may write it ({@code allowed}, else 405 MethodNotAllowed).
     */
    private static String subresource(ResourceType type, String subresource, Predicate<String> allowed) {
        String served = null;
        if (subresource != null && !subresource.isEmpty()) {
            if (!Kinds.subresources(type).contains(subresource)) {
                throw StatusError.pathNotFound();
            }
            served = subresource;
        }
        if (!allowed.test(served)) {
            throw StatusError.methodNotAllowed();
        }
        return served;
    }

    /** The update of the object a body (sent, or the patched object) makes, its parts kept as the strategy says. */
    private static void updateBody(
            RegistryState state,
            ResourceType type,
            HasMetadata current,
            JsonNode body,
            String namespace,
            String name,
            String subresource,
            Effects.Builder out) {
        HasMetadata next = decode(type, BeforeUpdate.withStoredParts(state, type, current, body, subresource));
        updateObject(state, type, current, next, namespace, name, subresource, out);
    }

    /**
     * Stores {@code next} in place of {@code current}: the resourceVersion precondition, {@link BeforeUpdate}, then one
     * write ({@code ObjectUpdated}), none if nothing changed, or the removal of an object whose last finalizer this
     * update took away while it waits at grace 0 (store.go {@code ShouldDeleteDuringUpdate}: no finalizers left, being
     * deleted, {@code deletionGracePeriodSeconds} 0 or unset; a pod still within its grace period stays, and the
     * kubelet's final delete removes it). A namespace also needs its {@code spec.finalizers} empty
     * ({@code ShouldDeleteNamespaceDuringUpdate}): the {@code /finalize} of the namespace controller removes it.
     */
    private static void updateObject(
            RegistryState state,
            ResourceType type,
            HasMetadata current,
            HasMetadata next,
            String namespace,
            String name,
            String subresource,
            Effects.Builder out) {
        ObjectMeta old = current.getMetadata();
        ObjectMeta meta = next.getMetadata() == null ? new ObjectMeta() : next.getMetadata();
        next.setMetadata(meta);
        // staging/.../endpoints/handlers/rest.go checkName and the namespace check of the update handler.
        if (meta.getName() != null && !meta.getName().equals(name)) {
            throw StatusError.badRequest("the name of the object (" + meta.getName()
                    + ") does not match the name on the URL (" + name + ")");
        }
        meta.setName(name);
        setNamespace(type, meta, namespace);
        // etcd3's GuaranteedUpdate with the object's resourceVersion as precondition; none means unconditional.
        if (meta.getResourceVersion() != null
                && !meta.getResourceVersion().isEmpty()
                && !meta.getResourceVersion().equals(old.getResourceVersion())) {
            throw StatusError.conflict(
                    type.qualifiedName(),
                    name,
                    "the object has been modified; please apply your changes to the latest version and try again");
        }
        meta.setResourceVersion(old.getResourceVersion());
        BeforeUpdate.check(state, type, current, next, name, subresource);

        Long grace = old.getDeletionGracePeriodSeconds();
        boolean finalized = !(next instanceof Namespace ns) || NamespaceStrategy.isFinalized(ns);
        if (meta.getFinalizers().isEmpty()
                && old.getDeletionTimestamp() != null
                && (grace == null || grace == 0)
                && finalized) {
            // The removal carries the object as this update left it (no finalizers), with its own resourceVersion.
            meta.setResourceVersion(Long.toString(state.nextResourceVersion()));
            state.remove(type, next);
            Storage.emit(out, EventTypes.OBJECT_REMOVED, type, next, Json.tree(next));
        } else {
            Storage.writeIfChanged(state, out, EventTypes.OBJECT_UPDATED, type, current, next);
        }
    }

    // --- delete: store.go Delete and updateForGracefulDeletionAndFinalizers, with
    //     staging/.../registry/rest/delete.go BeforeDelete ---

    static void delete(RegistryState state, DeletionRequest req, Effects.Builder out) {
        ResourceType type = resourceType(req.resource());
        NamespaceLifecycle.admitDelete(type, req.name());
        DeleteOptions options = BeforeDelete.checkedOptions(req.options());
        HasMetadata current = Storage.existing(state, type, req.namespace(), req.name());
        if (current instanceof Namespace namespace) {
            NamespaceRest.delete(state, namespace, options, out);
        } else {
            deleteObject(state, type, current, options, out);
        }
    }

    /**
     * {@code DeleteCollection} of store.go: the objects of the resource in the namespace that the selectors match,
     * listed once, each deleted exactly as a single delete with the same options would (a pod gracefully, another kind
     * at once or held by its finalizers), in key order. The handler refuses bad options and selectors before anything
     * is deleted. Not atomic, as upstream: the first refusal (a precondition that does not hold for this object) ends
     * it, the deletions before it stay, and the refusal is the answer.
     */
    static void deleteCollection(
            RegistryState state, Event request, CollectionDeletionRequest req, Effects.Builder out) {
        ResourceType type = resourceType(req.resource());
        String namespace = req.namespace() == null ? "" : req.namespace();
        if (!Kinds.collectionDeletable(type) || type.namespaced() == namespace.isEmpty()) {
            throw StatusError.methodNotAllowed();
        }
        DeleteOptions options = BeforeDelete.checkedOptions(req.options());
        Selectors selectors = Selectors.parse(type, req.fieldSelector(), req.labelSelector());
        List<HasMetadata> matched = state.trees(type, namespace).stream()
                .filter(selectors::matches)
                .<HasMetadata>map(o -> Json.convert(o, type.javaType()))
                .toList();
        for (HasMetadata object : matched) {
            try {
                deleteObject(state, type, object, options, out);
            } catch (StatusError refused) {
                out.emit(
                        Registry.SOURCE,
                        EventTypes.REQUEST_REJECTED,
                        request.subject(),
                        new RequestRejection(refused.status()));
                return;
            }
        }
    }

    /**
     * One object's delete: store.go {@code Delete} from {@code rest.BeforeDelete} on. Every check precedes the first
     * write.
     */
    static void deleteObject(
            RegistryState state, ResourceType type, HasMetadata current, DeleteOptions options, Effects.Builder out) {
        BeforeDelete.checkPreconditions(type, current, options);
        // delete.go: negative values are treated as 1s on the delete path.
        Long requested = options.getGracePeriodSeconds() != null && options.getGracePeriodSeconds() < 0
                ? Long.valueOf(1)
                : options.getGracePeriodSeconds();

        HasMetadata next = state.copy(type, current);
        ObjectMeta meta = next.getMetadata();
        boolean wasTerminating = meta.getDeletionTimestamp() != null;
        boolean graceful;
        long grace = 0;
        if (!(next instanceof Pod pod)) {
            // Only pods implement RESTGracefulDeleteStrategy: other kinds go at once, or wait for their finalizers
            // (Foreground and Orphan add one, see deletionFinalizers) with deletionTimestamp now and grace 0.
            graceful = false;
        } else if (wasTerminating) {
            Long recorded = meta.getDeletionGracePeriodSeconds();
            if (recorded == null || recorded == 0) {
                // Already at grace 0 (e.g. held by finalizers): nothing graceful left; delete now unless held.
                graceful = false;
            } else if (requested != null && requested < recorded) {
                // Only a shorter grace period may be given: the deadline moves earlier by the difference.
                Instant deadline = BeforeDelete.plusGoSeconds(
                        BeforeDelete.plusGoSeconds(Rfc3339.parse(meta.getDeletionTimestamp()), -recorded), requested);
                meta.setDeletionTimestamp(MetaTimes.format(deadline));
                meta.setDeletionGracePeriodSeconds(requested);
                graceful = true;
                grace = requested;
            } else {
                // Graceful deletion is pending with an earlier or equal deadline: nothing to write, and the
                // finalizers cannot be changed by DeleteOptions once deletion has started.
                return;
            }
        } else {
            grace = PodStrategy.gracePeriod(pod, requested);
            meta.setDeletionTimestamp(MetaTimes.format(BeforeDelete.plusGoSeconds(out.causeTime(), grace)));
            meta.setDeletionGracePeriodSeconds(grace);
            graceful = true;
        }
        meta.setFinalizers(deletionFinalizers(meta.getFinalizers(), options));
        boolean pendingFinalizers = !meta.getFinalizers().isEmpty();
        if (!graceful && pendingFinalizers) {
            markAsDeleting(meta, out.causeTime());
        }
        boolean remove = !pendingFinalizers && (!graceful || grace == 0);
        // IMPORTANT: a graceful delete is two writes, as in store.go: updateForGracefulDeletionAndFinalizers first
        // stores the object with its (new or shortened) deletionTimestamp and deletionGracePeriodSeconds, a
        // GuaranteedUpdate that watchers see as MODIFIED; only then, if that grace is 0 and no finalizer is left,
        // Delete
        // removes it (DELETED). So the kubelet's final delete (grace 0) of a terminating pod, a force delete, and the
        // delete of an unscheduled or finished pod (CheckGracefulDelete of pkg/registry/core/pod/strategy.go gives
        // them grace 0) are each ObjectMarkedTerminating with grace 0, then ObjectRemoved, in this one step. A delete
        // that is not graceful (any other kind; a pod already at grace 0: rest.BeforeDelete returns graceful false)
        // writes only if finalizers hold the object (markAsDeleting), else it removes it at once (errDeleteNow).
        ObjectNode json = (ObjectNode) Json.tree(next);
        if (!Storage.same(state.tree(type, current), json) && (!remove || graceful)) {
            Storage.write(state, out, EventTypes.OBJECT_MARKED_TERMINATING, type, next, json);
        }
        if (remove) {
            // The state just written (grace 0) with the removal's resourceVersion, as etcd3's watcher sends a DELETED
            // object: the old value at the revision of its deletion (staging/.../storage/etcd3/watcher.go).
            ObjectNode last = json.deepCopy();
            Storage.setResourceVersion(last, Long.toString(state.nextResourceVersion()));
            state.remove(type, next);
            Storage.emit(out, EventTypes.OBJECT_REMOVED, type, next, last);
        }
    }

    /**
     * {@code deletionFinalizersForGarbageCollection} of store.go: the orphan and foreground finalizers follow the
     * options (Orphan adds {@code orphan}, Foreground adds {@code foregroundDeletion}, Background removes both), else
     * the finalizers already there; other finalizers are kept. The list is unchanged if the set is.
     */
    static List<String> deletionFinalizers(List<String> existing, DeleteOptions options) {
        String policy = options.getPropagationPolicy();
        Boolean orphanDependents = options.getOrphanDependents();
        String firstGc = existing.stream()
                .filter(f -> f.equals(FINALIZER_ORPHAN) || f.equals(FINALIZER_FOREGROUND))
                .findFirst()
                .orElse("");
        boolean orphan = orphanDependents != null
                ? orphanDependents
                : policy != null ? policy.equals("Orphan") : firstGc.equals(FINALIZER_ORPHAN);
        boolean foreground = orphanDependents == null
                && (policy != null ? policy.equals("Foreground") : firstGc.equals(FINALIZER_FOREGROUND));
        List<String> updated = new ArrayList<>(existing.stream()
                .filter(f -> !f.equals(FINALIZER_ORPHAN) && !f.equals(FINALIZER_FOREGROUND))
                .toList());
        if (orphan) {
            updated.add(FINALIZER_ORPHAN);
        }
        if (foreground) {
            updated.add(FINALIZER_FOREGROUND);
        }
        return new HashSet<>(updated).equals(new HashSet<>(existing)) ? new ArrayList<>(existing) : updated;
    }

    /** store.go {@code markAsDeleting}: grace 0, and the deletionTimestamp now unless it is already earlier. */
    private static void markAsDeleting(ObjectMeta meta, Instant now) {
        if (meta.getDeletionTimestamp() == null
                || Rfc3339.parse(meta.getDeletionTimestamp()).isAfter(now)) {
            meta.setDeletionTimestamp(MetaTimes.format(now));
        }
        meta.setDeletionGracePeriodSeconds(0L);
    }

    private static ResourceType resourceType(String plural) {
        try {
            return ResourceType.byPlural(plural);
        } catch (IllegalArgumentException e) {
            throw StatusError.pathNotFound();
        }
    }
}
