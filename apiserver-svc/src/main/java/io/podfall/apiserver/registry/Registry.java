package io.podfall.apiserver.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.podfall.apiserver.registry.StatusError.FieldError;
import io.podfall.model.Json;
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
import io.podfall.model.event.Ids;
import io.podfall.model.event.Rfc3339;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.MetaTimes;
import io.podfall.model.k8s.ResourceType;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The API server's registry and etcd: the only writer of object state. Requests reach it as events on the log
 * ({@code apiserver.CreationRequested}, {@code BindingRequested}, {@code StatusUpdateRequested},
 * {@code UpdateRequested}, {@code PatchRequested}, {@code DeletionRequested}, {@code CollectionDeletionRequested}),
 * whoever sent them (source {@code /apiserver} for HTTP calls, {@code /kubelet/<node>},
 * {@code /controller/scheduler}); every other event is ignored. Each request is either applied, and every write
 * it makes is one fact with the full object after the change (what a watch shows), or refused with one
 * {@code apiserver.RequestRejected} carrying the Kubernetes Status, and then nothing is stored.
 *
 * <p>The life of an object in storage:
 * <ul>
 *   <li><b>created</b> ({@code ObjectCreated}): uid, resourceVersion, creationTimestamp and defaults assigned.
 *       A pod starts {@code Pending} and unbound; {@code PodBound} sets {@code spec.nodeName} once, only while it
 *       is not being deleted; {@code PodStatusUpdated} replaces its status. A client's update or patch
 *       ({@code UpdateRequested}, {@code PatchRequested}, the patch applied here to the object as stored) is
 *       {@code ObjectUpdated}: on a pod it may change labels, annotations and finalizers, and through the status
 *       subresource the status; a stale resourceVersion in it is a 409 Conflict.</li>
 *   <li><b>terminating</b> ({@code ObjectMarkedTerminating}): {@code deletionTimestamp} and
 *       {@code deletionGracePeriodSeconds} set. Only pods are deleted gracefully ({@code CheckGracefulDelete}):
 *       grace = the request's, else {@code spec.terminationGracePeriodSeconds}; 0 for an unscheduled or
 *       finished pod. From here a delete may only shorten the grace period (the deadline moves earlier by the
 *       difference); a longer or equal one writes nothing ({@code rest.BeforeDelete}).</li>
 *   <li><b>removed</b> ({@code ObjectRemoved}, the last state): when a delete finds grace 0 (or the kind has no
 *       graceful deletion) and no finalizers. The kubelet's final delete (grace 0, uid precondition) does this
 *       for a pod whose containers have stopped. An object held by finalizers at grace 0 is removed by the
 *       update that takes its last finalizer away.</li>
 * </ul>
 * A deletecollection deletes every object its selectors match, each exactly as a single delete
 * ({@link #deleteCollection}). A namespace terminates its own way: see {@link NamespaceStrategy}; and nothing is
 * created in a namespace that does not exist or is terminating ({@link NamespaceLifecycle}).
 *
 * <p>Per kind ({@link Kinds}): pods follow {@link PodStrategy}; Deployments and ReplicaSets
 * {@link WorkloadStrategy} (defaults, generation 1 on create and +1 on every spec change, a {@code /scale} that
 * writes {@code spec.replicas}); namespaces their own defaults; services {@link ServiceStrategy} (defaults and a
 * cluster IP); Endpoints {@link EndpointsStrategy} (defaults and validation); Leases {@link LeaseStrategy}
 * (validation); events are stored as given. Every
 * kind with a {@code /status} subresource keeps its status out of writes of the main resource and its spec out of
 * writes of {@code /status}. ownerReferences are stored as given; the garbage collector acts on them.
 *
 * <p>Invariants: an object with finalizers is never removed, it stays terminating; the deletionTimestamp of a
 * terminating object never moves later and its grace period never grows; every write takes the next value of
 * one global resourceVersion counter (the removal too, as an etcd delete is a revision); a stored object is
 * never changed in place; a request id seen before changes nothing (a duplicate on the log).
 *
 * <p>The times it stores (creationTimestamp, deletionTimestamp, a condition's lastTransitionTime) are the
 * request's time on the log, when the API server received it, not the time the request is read back: so a
 * registry rebuilt from the log stores the very same objects (its facts still carry the time they were written).
 *
 * <p>The HTTP layer answers a request from the effects of handling it, see {@link Outcome}.
 */
public final class Registry implements Core<RegistryState> {
    public static final String SOURCE = "/apiserver";
    static final String FINALIZER_ORPHAN = "orphan";
    static final String FINALIZER_FOREGROUND = "foregroundDeletion";
    private static final String EVICTION_KIND = "Eviction";
    private static final List<String> EVICTION_VERSIONS = List.of("policy/v1", "policy/v1beta1");
    private static final List<String> PROPAGATION_POLICIES = List.of("Foreground", "Background", "Orphan", "nil");
    private static final Set<String> REQUESTS = Set.of(EventTypes.CREATION_REQUESTED, EventTypes.BINDING_REQUESTED,
            EventTypes.STATUS_UPDATE_REQUESTED, EventTypes.DELETION_REQUESTED, EventTypes.COLLECTION_DELETION_REQUESTED,
            EventTypes.UPDATE_REQUESTED, EventTypes.PATCH_REQUESTED, EventTypes.EVICTION_REQUESTED);
    private static final String STATUS = Kinds.STATUS;
    /** {@code maxNameGenerationCreateAttempts} of store.go. */
    static final int GENERATE_NAME_ATTEMPTS = 8;
    private static final Comparator<JsonNode> SAME_VALUE = (a, b) -> a.isNumber() && b.isNumber()
            ? a.decimalValue().compareTo(b.decimalValue()) : a.equals(b) ? 0 : 1;
    /** What podfall lets a pod update change; upstream's list also has a few spec fields podfall does not run. */
    private static final String POD_UPDATABLE_FIELDS = "`metadata.labels`,`metadata.annotations`,`metadata.finalizers`,"
            + "`metadata.ownerReferences` (and `status` through pods/status)";

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
                case EventTypes.CREATION_REQUESTED -> create(state, event, payload(event, CreationRequest.class), out);
                case EventTypes.BINDING_REQUESTED -> bind(state, payload(event, BindingRequest.class), out);
                case EventTypes.STATUS_UPDATE_REQUESTED -> updateStatus(state, payload(event, StatusUpdateRequest.class), out);
                case EventTypes.UPDATE_REQUESTED -> update(state, payload(event, UpdateRequest.class), out);
                case EventTypes.PATCH_REQUESTED -> patch(state, payload(event, PatchRequest.class), out);
                case EventTypes.COLLECTION_DELETION_REQUESTED -> deleteCollection(state, event, payload(event, CollectionDeletionRequest.class), out);
                case EventTypes.EVICTION_REQUESTED -> evict(state, payload(event, EvictionRequest.class), out);
                default -> delete(state, payload(event, DeletionRequest.class), out);
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
     * Requests, and the objects listed at the start of a slice of the log: the registry's other facts are its
     * effects, and it hears nothing of the nodes.
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

    // --- create: staging/src/k8s.io/apiserver/pkg/registry/rest/create.go BeforeCreate, then the store's Create ---

    private void create(RegistryState state, Event event, CreationRequest req, Effects.Builder out) {
        ResourceType type = resourceType(req.resource());
        HasMetadata object = decode(type, req.object());
        ObjectMeta meta = object.getMetadata() == null ? new ObjectMeta() : object.getMetadata();
        object.setMetadata(meta);
        String namespace = req.namespace() == null ? "" : req.namespace();
        if (type.namespaced()) {
            if (meta.getNamespace() != null && !meta.getNamespace().isEmpty() && !meta.getNamespace().equals(namespace)) {
                throw StatusError.badRequest("the namespace of the provided object does not match the namespace sent on the request");
            }
            meta.setNamespace(namespace);
        } else {
            meta.setNamespace(null);
        }
        boolean generated = (meta.getName() == null || meta.getName().isEmpty()) && meta.getGenerateName() != null
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
        }
        if (!errors.isEmpty()) {
            throw StatusError.invalid(type, meta.getName() == null ? "" : meta.getName(), errors);
        }
        // RetryGenerateName (KEP-4420, GA in 1.32; the create of staging/src/k8s.io/apiserver/pkg/registry/generic/
        // registry/store.go): a generated name already taken is generated again, up to 8 attempts in all. Five
        // characters of 27 collide: some 350 times among 100,000 pods of one ReplicaSet.
        for (int attempt = 1; generated && attempt < GENERATE_NAME_ATTEMPTS && state.contains(type, meta.getNamespace(), meta.getName()); attempt++) {
            meta.setName(Names.generate(meta.getGenerateName(), event.id(), attempt));
        }
        if (state.contains(type, meta.getNamespace(), meta.getName())) {
            throw StatusError.alreadyExists(type, meta.getName());
        }
        write(state, out, EventTypes.OBJECT_CREATED, type, object);
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
            throw StatusError.badRequest("the kind in the data (" + kind + ") does not match the expected kind (" + type.kind() + ")");
        }
        try {
            // fabric8's Pod and Node carry their kind and apiVersion from construction: a body without them gets them.
            return Json.convert(withoutNulls(json), type.javaType());
        } catch (IllegalArgumentException e) {
            throw StatusError.badRequest(type.kind() + " in version \"" + type.version() + "\" cannot be handled as a "
                    + type.kind() + ": " + e.getMessage());
        }
    }

    /**
     * A JSON null decodes to the zero value in Go: an absent field, a nil list or map. fabric8 would keep a null
     * list where the rules expect an empty one, so a null field is dropped and a null element of a list is an
     * empty object (Go's zero struct).
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

    // --- binding: pkg/registry/core/pod/storage/storage.go BindingREST, setPodNodeAndMetadata ---

    private void bind(RegistryState state, BindingRequest req, Effects.Builder out) {
        Pod pod = existingPod(state, req.namespace(), req.name());
        NamespaceLifecycle.admitCreate(state, ResourceType.PODS, req.namespace(), req.name());
        if (req.nodeName() == null || req.nodeName().isEmpty()) {
            throw StatusError.invalid("Binding", "Binding", "", req.name(), List.of(FieldError.required("target.name", "")));
        }
        checkUid(ResourceType.PODS, pod, req.uid());
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            throw StatusError.conflict("pods/binding", req.name(), "pod " + req.name() + " is being deleted, cannot be assigned to a host");
        }
        if (pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().isEmpty()) {
            throw StatusError.conflict("pods/binding", req.name(), "pod " + req.name() + " is already assigned to node "
                    + StatusError.quote(pod.getSpec().getNodeName()));
        }
        Pod bound = state.copy(ResourceType.PODS, pod);
        bound.getSpec().setNodeName(req.nodeName());
        PodStatus status = bound.getStatus() == null ? new PodStatus() : bound.getStatus();
        bound.setStatus(status);
        List<PodCondition> conditions = new ArrayList<>(status.getConditions());
        conditions.removeIf(c -> "PodScheduled".equals(c.getType()));
        conditions.add(new PodConditionBuilder().withType("PodScheduled").withStatus("True")
                .withLastTransitionTime(MetaTimes.format(out.causeTime())).build());
        status.setConditions(conditions);
        write(state, out, EventTypes.POD_BOUND, ResourceType.PODS, bound);
    }

    // --- status: the pods/status subresource, podStatusStrategy (status replaced, the rest kept) ---

    private void updateStatus(RegistryState state, StatusUpdateRequest req, Effects.Builder out) {
        Pod pod = existingPod(state, req.namespace(), req.name());
        checkUid(ResourceType.PODS, pod, req.uid());
        Pod updated = state.copy(ResourceType.PODS, pod);
        updated.setStatus(req.status());
        writeIfChanged(state, out, EventTypes.POD_STATUS_UPDATED, ResourceType.PODS, pod, updated);
    }

    // --- update and patch: store.go Update with staging/.../registry/rest/update.go BeforeUpdate; a patch is
    //     applied first to the object as stored (staging/.../endpoints/handlers/patch.go), then updated alike ---

    private void update(RegistryState state, UpdateRequest req, Effects.Builder out) {
        ResourceType type = resourceType(req.resource());
        String subresource = subresource(type, req.subresource());
        if (!Kinds.updatable(subresource)) {
            throw StatusError.methodNotAllowed();
        }
        HasMetadata current = existing(state, type, req.namespace(), req.name());
        if (Kinds.SCALE.equals(subresource)) {
            store(state, type, current, WorkloadStrategy.scaled(type, current, req.object(), req.name()), req.namespace(), req.name(), null, out);
            return;
        }
        store(state, type, current, decode(type, withStoredParts(state, type, current, req.object(), subresource)), req.namespace(), req.name(),
                subresource, out);
    }

    /** A patch of {@code /scale} is applied to the Scale the workload shows ({@code scaleUpdatedObjectInfo}). */
    private void patch(RegistryState state, PatchRequest req, Effects.Builder out) {
        ResourceType type = resourceType(req.resource());
        String subresource = subresource(type, req.subresource());
        if (!Kinds.readable(subresource)) {
            // A patch reads the object through the subresource first; /finalize has no GET to read it through.
            throw StatusError.methodNotAllowed();
        }
        HasMetadata current = existing(state, type, req.namespace(), req.name());
        if (req.patch() == null) {
            throw StatusError.badRequest("the body of the request is empty");
        }
        String patchType = req.patchType() == null ? "" : req.patchType();
        if (Kinds.SCALE.equals(subresource)) {
            JsonNode scale = Patches.apply(patchType, Map.of(), WorkloadStrategy.scale(state.tree(type, current)), req.patch());
            store(state, type, current, WorkloadStrategy.scaled(type, current, scale, req.name()), req.namespace(), req.name(), null, out);
            return;
        }
        JsonNode patched = Patches.apply(patchType, type, state.tree(type, current), req.patch());
        store(state, type, current, decode(type, withStoredParts(state, type, current, patched, subresource)), req.namespace(), req.name(),
                subresource, out);
    }

    /** The subresource of a write, if the kind serves it: {@link Kinds#subresources}; any other is a path not served. */
    private static String subresource(ResourceType type, String subresource) {
        if (subresource == null || subresource.isEmpty()) {
            return null;
        }
        if (!Kinds.subresources(type).contains(subresource)) {
            throw StatusError.pathNotFound();
        }
        return subresource;
    }

    /**
     * The split of spec and status that every strategy with a status subresource makes in {@code PrepareForUpdate}:
     * a write of the main resource keeps the stored status, one of {@code /status} the stored spec. A namespace's
     * spec (its finalizers) is not written by an update either: only {@code /finalize} does that, and it keeps
     * the status ({@code namespaceFinalizeStrategy}).
     */
    private static JsonNode withStoredParts(RegistryState state, ResourceType type, HasMetadata current, JsonNode next, String subresource) {
        if (!(next instanceof ObjectNode body) || !Kinds.hasStatusSubresource(type)) {
            return next;
        }
        for (String part : List.of("spec", STATUS)) {
            JsonNode sent = body.get(part);
            // Decoded before the stored parts replace it, as upstream decodes the body whole: a string is no spec.
            if (sent != null && !sent.isNull() && !sent.isObject()) {
                throw StatusError.badRequest(type.kind() + " in version \"" + type.version() + "\" cannot be handled as a "
                        + type.kind() + ": json: cannot unmarshal " + sent.getNodeType().name().toLowerCase() + " into Go struct field "
                        + type.kind() + "." + part + " of type object");
            }
        }
        ObjectNode out = body.deepCopy();
        JsonNode stored = state.tree(type, current);
        List<String> kept = STATUS.equals(subresource) ? List.of("spec")
                : type == ResourceType.NAMESPACES && !Kinds.FINALIZE.equals(subresource) ? List.of("spec", STATUS) : List.of(STATUS);
        for (String field : kept) {
            if (stored.has(field)) {
                out.set(field, stored.get(field).deepCopy());
            } else {
                out.remove(field);
            }
        }
        return out;
    }

    /**
     * Stores {@code next} in place of {@code current}: the resourceVersion precondition, the fields an update
     * never changes, the strategy's {@code PrepareForUpdate} and validation, then one write
     * ({@code ObjectUpdated}), none if nothing changed, or the removal of an object whose last finalizer this
     * update took away while it waits at grace 0 (store.go {@code ShouldDeleteDuringUpdate}: no finalizers left,
     * being deleted, {@code deletionGracePeriodSeconds} 0 or unset; a pod still within its grace period stays,
     * and the kubelet's final delete removes it). A namespace also needs its {@code spec.finalizers} empty
     * ({@code ShouldDeleteNamespaceDuringUpdate}): the {@code /finalize} of the namespace controller removes it.
     */
    private static void store(RegistryState state, ResourceType type, HasMetadata current, HasMetadata next, String namespace,
                              String name, String subresource, Effects.Builder out) {
        ObjectMeta old = current.getMetadata();
        ObjectMeta meta = next.getMetadata() == null ? new ObjectMeta() : next.getMetadata();
        next.setMetadata(meta);
        // staging/.../endpoints/handlers/rest.go checkName and the namespace check of the update handler.
        if (meta.getName() != null && !meta.getName().equals(name)) {
            throw StatusError.badRequest("the name of the object (" + meta.getName() + ") does not match the name on the URL (" + name + ")");
        }
        meta.setName(name);
        if (type.namespaced()) {
            if (meta.getNamespace() != null && !meta.getNamespace().isEmpty() && !meta.getNamespace().equals(namespace)) {
                throw StatusError.badRequest("the namespace of the provided object does not match the namespace sent on the request");
            }
            meta.setNamespace(namespace);
        } else {
            meta.setNamespace(null);
        }
        // etcd3's GuaranteedUpdate with the object's resourceVersion as precondition; none given means unconditional.
        if (meta.getResourceVersion() != null && !meta.getResourceVersion().isEmpty() && !meta.getResourceVersion().equals(old.getResourceVersion())) {
            throw StatusError.conflict(type.qualifiedName(), name,
                    "the object has been modified; please apply your changes to the latest version and try again");
        }
        meta.setResourceVersion(old.getResourceVersion());
        // rest.BeforeUpdate: generation and creationTimestamp are the server's, a missing uid is the stored one, and an
        // update never removes or changes a deletionTimestamp, nor drops the grace period recorded with it.
        meta.setGeneration(old.getGeneration());
        meta.setCreationTimestamp(old.getCreationTimestamp());
        if (meta.getUid() == null || meta.getUid().isEmpty()) {
            meta.setUid(old.getUid());
        }
        if (old.getDeletionTimestamp() != null) {
            meta.setDeletionTimestamp(old.getDeletionTimestamp());
        }
        if (meta.getDeletionGracePeriodSeconds() == null) {
            meta.setDeletionGracePeriodSeconds(old.getDeletionGracePeriodSeconds());
        }
        List<FieldError> errors = new ArrayList<>(prepareForUpdate(type, current, next, subresource));
        // ValidateObjectMetaUpdate (staging/.../apimachinery/pkg/api/validation/objectmeta.go).
        if (!meta.getUid().equals(old.getUid())) {
            errors.add(FieldError.immutable("metadata.uid", meta.getUid()));
        }
        if (!Objects.equals(meta.getDeletionTimestamp(), old.getDeletionTimestamp())) {
            errors.add(FieldError.immutable("metadata.deletionTimestamp", meta.getDeletionTimestamp()));
        }
        if (!Objects.equals(meta.getDeletionGracePeriodSeconds(), old.getDeletionGracePeriodSeconds())) {
            errors.add(FieldError.immutable("metadata.deletionGracePeriodSeconds", meta.getDeletionGracePeriodSeconds()));
        }
        if (old.getDeletionTimestamp() != null) {
            List<String> added = meta.getFinalizers().stream().filter(f -> !old.getFinalizers().contains(f)).distinct().toList();
            if (!added.isEmpty()) {
                errors.add(FieldError.forbidden("metadata.finalizers", "no new finalizers can be added if the object is being deleted, "
                        + "found new finalizers []string{" + String.join(", ", added.stream().map(StatusError::quote).toList()) + "}"));
            }
        }
        if (next instanceof Pod) {
            errors.addAll(validatePodUpdate(state, (Pod) current, (Pod) next));
        }
        if (!errors.isEmpty()) {
            throw StatusError.invalid(type, name, errors);
        }

        Long grace = old.getDeletionGracePeriodSeconds();
        boolean finalized = !(next instanceof Namespace ns) || NamespaceStrategy.isFinalized(ns);
        if (meta.getFinalizers().isEmpty() && old.getDeletionTimestamp() != null && (grace == null || grace == 0) && finalized) {
            // The removal carries the object as this update left it (no finalizers), with the removal's resourceVersion.
            meta.setResourceVersion(Long.toString(state.nextResourceVersion()));
            state.remove(type, next);
            emit(out, EventTypes.OBJECT_REMOVED, type, next, Json.tree(next));
        } else {
            writeIfChanged(state, out, EventTypes.OBJECT_UPDATED, type, current, next);
        }
    }

    /**
     * The rest of the strategies' {@code PrepareForUpdate} and update validation, after
     * {@link #withStoredParts} split spec from status: a pod's status write also keeps its owner references
     * ({@code pkg/registry/core/pod/strategy.go}); every body gets its kind's defaults; a workload's spec change
     * is a new generation ({@link WorkloadStrategy#prepareForUpdate}).
     */
    private static List<FieldError> prepareForUpdate(ResourceType type, HasMetadata current, HasMetadata next, String subresource) {
        boolean status = STATUS.equals(subresource);
        if (next instanceof Pod pod) {
            if (status) {
                pod.getMetadata().setOwnerReferences(current.getMetadata().getOwnerReferences());
            }
            PodStrategy.applyDefaults(pod);
        } else if (WorkloadStrategy.isWorkload(type)) {
            if (status) {
                WorkloadStrategy.prepareForStatusUpdate(current, next);
                return List.of();
            }
            List<FieldError> errors = new ArrayList<>(WorkloadStrategy.prepareForUpdate(current, next));
            errors.addAll(WorkloadStrategy.validate(next));
            return errors;
        } else if (next instanceof Namespace namespace) {
            NamespaceStrategy.applyDefaults(namespace);
            return NamespaceStrategy.validate(namespace);
        } else if (next instanceof Service service && !status) {
            ServiceStrategy.applyDefaults(service);
            return ServiceStrategy.keepClusterIP((Service) current, service);
        } else if (next instanceof Endpoints endpoints) {
            EndpointsStrategy.applyDefaults(endpoints);
            return EndpointsStrategy.validate(endpoints);
        } else if (next instanceof Lease lease) {
            return LeaseStrategy.validate(lease);
        }
        return List.of();
    }

    /**
     * {@code ValidatePodUpdate} ({@code pkg/apis/core/validation/validation.go}), narrowed: podfall runs no
     * in-place change of a pod, so besides its status only labels, annotations, finalizers and ownerReferences may
     * change (upstream restricts only the spec: the garbage collector and the ReplicaSet controller patch a pod's
     * ownerReferences to orphan, release or adopt it).
     */
    private static List<FieldError> validatePodUpdate(RegistryState state, Pod current, Pod next) {
        Pod munged = copy(next);
        ObjectMeta meta = munged.getMetadata();
        meta.setLabels(current.getMetadata().getLabels());
        meta.setAnnotations(current.getMetadata().getAnnotations());
        meta.setFinalizers(current.getMetadata().getFinalizers());
        meta.setOwnerReferences(current.getMetadata().getOwnerReferences());
        // Checked on their own by the metadata rules above.
        meta.setUid(current.getMetadata().getUid());
        meta.setDeletionTimestamp(current.getMetadata().getDeletionTimestamp());
        meta.setDeletionGracePeriodSeconds(current.getMetadata().getDeletionGracePeriodSeconds());
        munged.setStatus(current.getStatus());
        if (same(state.tree(ResourceType.PODS, current), Json.tree(munged))) {
            return List.of();
        }
        String field = Objects.equals(Json.tree(current.getSpec()), Json.tree(munged.getSpec())) ? "metadata" : "spec";
        return List.of(FieldError.forbidden(field, "pod updates may not change fields other than " + POD_UPDATABLE_FIELDS));
    }

    // --- delete: staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go Delete and
    //     updateForGracefulDeletionAndFinalizers, with staging/.../registry/rest/delete.go BeforeDelete ---

    private void delete(RegistryState state, DeletionRequest req, Effects.Builder out) {
        ResourceType type = resourceType(req.resource());
        NamespaceLifecycle.admitDelete(type, req.name());
        DeleteOptions options = checkedOptions(req.options());
        HasMetadata current = existing(state, type, req.namespace(), req.name());
        if (current instanceof Namespace namespace) {
            deleteNamespace(state, namespace, options, out);
        } else {
            deleteObject(state, type, current, options, out);
        }
    }

    /**
     * {@code DeleteCollection} of store.go: the objects of the resource in the namespace that the selectors
     * match, listed once, each deleted exactly as a single delete with the same options would (a pod gracefully,
     * another kind at once or held by its finalizers), in key order. The handler refuses bad options and
     * selectors before anything is deleted. Not atomic, as upstream: the first refusal (a precondition that does
     * not hold for this object) ends it, the deletions before it stay, and the refusal is the answer.
     */
    private void deleteCollection(RegistryState state, Event request, CollectionDeletionRequest req, Effects.Builder out) {
        ResourceType type = resourceType(req.resource());
        String namespace = req.namespace() == null ? "" : req.namespace();
        if (!Kinds.collectionDeletable(type) || type.namespaced() == namespace.isEmpty()) {
            throw StatusError.methodNotAllowed();
        }
        DeleteOptions options = checkedOptions(req.options());
        Selectors selectors = Selectors.parse(type, req.fieldSelector(), req.labelSelector());
        List<HasMetadata> matched = state.trees(type, namespace).stream().filter(selectors::matches)
                .<HasMetadata>map(o -> Json.convert(o, type.javaType())).toList();
        for (HasMetadata object : matched) {
            try {
                deleteObject(state, type, object, options, out);
            } catch (StatusError refused) {
                out.emit(SOURCE, EventTypes.REQUEST_REJECTED, request.subject(), new RequestRejection(refused.status()));
                return;
            }
        }
    }

    // --- eviction: pkg/registry/core/pod/storage/eviction.go EvictionREST.Create and addConditionAndDeletePod ---

    /**
     * An eviction is a delete that a PodDisruptionBudget may refuse (429). podfall has no PodDisruptionBudgets, so
     * every eviction is allowed, as upstream's when no budget selects the pod: a pod already finished (or pending,
     * or terminating) skips the budgets there anyway. Upstream first writes the pod's status with the
     * {@code DisruptionTarget} condition (through the status store: {@code PodStatusUpdated}), then deletes it
     * with the Eviction's deleteOptions, exactly as a DELETE would: gracefully with their grace period, else the
     * spec's, or at once for a pod that is unscheduled or finished ({@link PodStrategy#gracePeriod}).
     */
    private void evict(RegistryState state, EvictionRequest req, Effects.Builder out) {
        DeleteOptions options = checkedOptions(evictionOptions(req));
        Pod pod = existingPod(state, req.namespace(), req.name());
        // getLatestPod: the preconditions are checked against the pod before the condition is written.
        checkPreconditions(ResourceType.PODS, pod, options);
        Pod evicted = state.copy(ResourceType.PODS, pod);
        PodStatus status = evicted.getStatus() == null ? new PodStatus() : evicted.getStatus();
        evicted.setStatus(status);
        status.setConditions(PodStrategy.withCondition(status.getConditions(), new PodConditionBuilder().withType(PodStrategy.DISRUPTION_TARGET)
                .withStatus("True").withReason("EvictionByEvictionAPI").withMessage("Eviction API: evicting")
                .withLastTransitionTime(MetaTimes.format(out.causeTime())).build()));
        if (writeIfChanged(state, out, EventTypes.POD_STATUS_UPDATED, ResourceType.PODS, pod, evicted)) {
            pod = evicted;
            if (options.getPreconditions() != null && options.getPreconditions().getResourceVersion() != null) {
                // The eviction made the write the precondition would now fail on: it moves to the new revision.
                options = Json.convert(Json.tree(options), DeleteOptions.class);
                options.getPreconditions().setResourceVersion(pod.getMetadata().getResourceVersion());
            }
        }
        deleteObject(state, ResourceType.PODS, pod, options, out);
    }

    /** The deleteOptions of an Eviction, after the checks of its decoding and of {@code EvictionREST.Create}. */
    private static DeleteOptions evictionOptions(EvictionRequest req) {
        JsonNode eviction = req.eviction();
        if (eviction == null || !eviction.isObject()) {
            throw StatusError.badRequest("the body of the request must be a JSON object (Eviction)");
        }
        // The handler decodes with policy/v1 Eviction as the default kind; AcceptsGroupVersion takes v1 and v1beta1.
        String apiVersion = eviction.path("apiVersion").asText(EVICTION_VERSIONS.get(0));
        String kind = eviction.path("kind").asText(EVICTION_KIND);
        if (!EVICTION_VERSIONS.contains(apiVersion) || !kind.equals(EVICTION_KIND)) {
            throw StatusError.badRequest("not a Eviction object: " + apiVersion + ", Kind=" + kind);
        }
        if (!req.name().equals(eviction.path("metadata").path("name").asText(""))) {
            throw StatusError.badRequest("name in URL does not match name in Eviction object");
        }
        JsonNode options = eviction.path("deleteOptions");
        if (options.isMissingNode() || options.isNull()) {
            return new DeleteOptions();
        }
        return DeleteOptionsReader.read(options, EVICTION_KIND + " in version \"" + apiVersion + "\" cannot be handled as a Eviction: ");
    }

    /** The options of a delete as its handler accepts them: no dry run, and valid ({@link #validateOptions}). */
    private static DeleteOptions checkedOptions(DeleteOptions requested) {
        DeleteOptions options = requested == null ? new DeleteOptions() : requested;
        if (options.getDryRun() != null && !options.getDryRun().isEmpty()) {
            // A dry run stores nothing and so has no fact to put on the log; podfall refuses it rather than fake one.
            throw StatusError.badRequest("dryRun is not supported by this API server");
        }
        validateOptions(options);
        return options;
    }

    /**
     * {@code REST.Delete} of {@code pkg/registry/core/namespace/storage/storage.go}: the first delete marks the
     * namespace {@code Terminating} ({@link NamespaceStrategy#markTerminating}); later ones change nothing while
     * {@code spec.finalizers} is not empty (the namespace controller is still emptying it), and once it is, go
     * the generic way (the namespace leaves unless {@code metadata.finalizers} hold it).
     */
    private void deleteNamespace(RegistryState state, Namespace current, DeleteOptions options, Effects.Builder out) {
        ObjectMeta meta = current.getMetadata();
        if (options.getPreconditions() != null) {
            checkUid(ResourceType.NAMESPACES, current, options.getPreconditions().getUid());
            String rv = options.getPreconditions().getResourceVersion();
            if (rv != null && !rv.equals(meta.getResourceVersion())) {
                throw StatusError.conflict(ResourceType.NAMESPACES.plural(), meta.getName(), "Precondition failed: ResourceVersion in precondition: "
                        + rv + ", ResourceVersion in object meta: " + meta.getResourceVersion());
            }
        }
        if (meta.getDeletionTimestamp() == null) {
            Namespace next = state.copy(ResourceType.NAMESPACES, current);
            NamespaceStrategy.markTerminating(next, options, MetaTimes.format(out.causeTime()));
            write(state, out, EventTypes.OBJECT_MARKED_TERMINATING, ResourceType.NAMESPACES, next);
        } else if (NamespaceStrategy.isFinalized(current)) {
            deleteObject(state, ResourceType.NAMESPACES, current, options, out);
        }
    }

    /** One object's delete: store.go {@code Delete} from {@code rest.BeforeDelete} on. Every check precedes the first write. */
    private static void deleteObject(RegistryState state, ResourceType type, HasMetadata current, DeleteOptions options, Effects.Builder out) {
        checkPreconditions(type, current, options);
        // delete.go: negative values are treated as 1s on the delete path.
        Long requested = options.getGracePeriodSeconds() != null && options.getGracePeriodSeconds() < 0 ? Long.valueOf(1) : options.getGracePeriodSeconds();

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
                // Already at grace 0 (e.g. held by finalizers): nothing graceful left, delete now if nothing holds it.
                graceful = false;
            } else if (requested != null && requested < recorded) {
                // Only a shorter grace period may be given: the deadline moves earlier by the difference.
                Instant deadline = plusGoSeconds(plusGoSeconds(Rfc3339.parse(meta.getDeletionTimestamp()), -recorded), requested);
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
            meta.setDeletionTimestamp(MetaTimes.format(plusGoSeconds(out.causeTime(), grace)));
            meta.setDeletionGracePeriodSeconds(grace);
            graceful = true;
        }
        meta.setFinalizers(deletionFinalizers(meta.getFinalizers(), options));
        boolean pendingFinalizers = !meta.getFinalizers().isEmpty();
        if (!graceful && pendingFinalizers) {
            markAsDeleting(meta, out.causeTime());
        }
        boolean remove = !pendingFinalizers && (!graceful || grace == 0);
        // Upstream writes the update before the removal only for a graceful delete; the podfall protocol folds a
        // terminating pod's last shortening (the kubelet's final delete with grace 0) into the removal, whose
        // data carries that last state, so watchers see one fact: the pod is gone.
        ObjectNode json = (ObjectNode) Json.tree(next);
        if (!same(state.tree(type, current), json) && (!remove || (graceful && !wasTerminating))) {
            write(state, out, EventTypes.OBJECT_MARKED_TERMINATING, type, next, json);
        }
        if (remove) {
            // The last state, with the removal's resourceVersion; the object written just now stays as stored.
            ObjectNode last = json.deepCopy();
            setResourceVersion(last, Long.toString(state.nextResourceVersion()));
            state.remove(type, next);
            emit(out, EventTypes.OBJECT_REMOVED, type, next, last);
        }
    }

    /** {@code ValidateDeleteOptions} ({@code staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go}). */
    private static void validateOptions(DeleteOptions options) {
        List<FieldError> errors = new ArrayList<>();
        String policy = options.getPropagationPolicy();
        if (options.getOrphanDependents() != null && policy != null) {
            errors.add(FieldError.invalid("propagationPolicy", policy, "orphanDependents and deletionPropagation cannot be both set"));
        }
        if (policy != null && !PROPAGATION_POLICIES.subList(0, 3).contains(policy)) {
            errors.add(FieldError.notSupported("propagationPolicy", policy, PROPAGATION_POLICIES));
        }
        if (!errors.isEmpty()) {
            throw StatusError.invalid("DeleteOptions.meta.k8s.io", "DeleteOptions", "meta.k8s.io", "", errors);
        }
    }

    /** The preconditions as {@code rest.BeforeDelete} checks them: the conflict names the kind ({@code Pod}). */
    private static void checkPreconditions(ResourceType type, HasMetadata current, DeleteOptions options) {
        if (options.getPreconditions() == null) {
            return;
        }
        ObjectMeta meta = current.getMetadata();
        String uid = options.getPreconditions().getUid();
        if (uid != null && !uid.equals(meta.getUid())) {
            throw StatusError.conflict(type.kind(), meta.getName(), "the UID in the precondition (" + uid
                    + ") does not match the UID in record (" + meta.getUid() + "). The object might have been deleted and then recreated");
        }
        String rv = options.getPreconditions().getResourceVersion();
        if (rv != null && !rv.equals(meta.getResourceVersion())) {
            throw StatusError.conflict(type.kind(), meta.getName(), "the ResourceVersion in the precondition (" + rv
                    + ") does not match the ResourceVersion in record (" + meta.getResourceVersion() + "). The object might have been modified");
        }
    }

    /**
     * {@code deletionFinalizersForGarbageCollection} of store.go: the orphan and foreground finalizers follow the
     * options (Orphan adds {@code orphan}, Foreground adds {@code foregroundDeletion}, Background removes both),
     * else the finalizers already there; other finalizers are kept. The list is unchanged if the set is.
     */
    static List<String> deletionFinalizers(List<String> existing, DeleteOptions options) {
        String policy = options.getPropagationPolicy();
        Boolean orphanDependents = options.getOrphanDependents();
        String firstGc = existing.stream().filter(f -> f.equals(FINALIZER_ORPHAN) || f.equals(FINALIZER_FOREGROUND)).findFirst().orElse("");
        boolean orphan = orphanDependents != null ? orphanDependents
                : policy != null ? policy.equals("Orphan") : firstGc.equals(FINALIZER_ORPHAN);
        boolean foreground = orphanDependents == null
                && (policy != null ? policy.equals("Foreground") : firstGc.equals(FINALIZER_FOREGROUND));
        List<String> updated = new ArrayList<>(existing.stream()
                .filter(f -> !f.equals(FINALIZER_ORPHAN) && !f.equals(FINALIZER_FOREGROUND)).toList());
        if (orphan) {
            updated.add(FINALIZER_ORPHAN);
        }
        if (foreground) {
            updated.add(FINALIZER_FOREGROUND);
        }
        return new HashSet<>(updated).equals(new HashSet<>(existing)) ? new ArrayList<>(existing) : updated;
    }

    /**
     * {@code t.Add(time.Second * time.Duration(seconds))} as rest/delete.go BeforeDelete computes a deadline: the
     * nanoseconds are an int64 that wraps, so an absurd grace period (Long.MAX_VALUE) gives some deadline, as
     * upstream, rather than an overflow that fails the request.
     */
    static Instant plusGoSeconds(Instant t, long seconds) {
        return t.plusNanos(seconds * 1_000_000_000L);
    }

    /** store.go {@code markAsDeleting}: grace 0, and the deletionTimestamp now unless it is already earlier. */
    private static void markAsDeleting(ObjectMeta meta, Instant now) {
        if (meta.getDeletionTimestamp() == null || Rfc3339.parse(meta.getDeletionTimestamp()).isAfter(now)) {
            meta.setDeletionTimestamp(MetaTimes.format(now));
        }
        meta.setDeletionGracePeriodSeconds(0L);
    }

    // --- storage ---

    private static void write(RegistryState state, Effects.Builder out, String type, ResourceType resource, HasMetadata object) {
        object.getMetadata().setResourceVersion(Long.toString(state.nextResourceVersion()));
        emitStored(out, type, resource, object, state.put(resource, object, Json.tree(object), out.now()));
    }

    /**
     * A write of an object whose JSON was made before (to compare it with the stored one): the new resourceVersion
     * is set in both, so the object is serialized once. {@code json} has the field already, as an update carries the
     * stored resourceVersion, so setting it there keeps the order of the object's serialization.
     */
    private static void write(RegistryState state, Effects.Builder out, String type, ResourceType resource, HasMetadata object,
                              ObjectNode json) {
        String version = Long.toString(state.nextResourceVersion());
        object.getMetadata().setResourceVersion(version);
        setResourceVersion(json, version);
        emitStored(out, type, resource, object, state.put(resource, object, json, out.now()));
    }

    /**
     * Writes {@code next} in place of {@code current} unless it changes nothing: etcd3's GuaranteedUpdate skips
     * such a write (no new revision, nothing to watch). Whether it wrote.
     */
    private static boolean writeIfChanged(RegistryState state, Effects.Builder out, String type, ResourceType resource,
                                          HasMetadata current, HasMetadata next) {
        ObjectNode json = (ObjectNode) Json.tree(next);
        if (same(state.tree(resource, current), json)) {
            return false;
        }
        write(state, out, type, resource, next, json);
        return true;
    }

    /**
     * Whether two objects' JSON is the same, as etcd compares an update with what it holds: numbers by value, since
     * JSON read back from the store holds a small number as an int where a fabric8 object's tree holds a long.
     */
    static boolean same(JsonNode stored, JsonNode next) {
        return stored.equals(SAME_VALUE, next);
    }

    private static void setResourceVersion(ObjectNode json, String version) {
        if (!json.path("metadata").has("resourceVersion")) {
            throw new IllegalStateException("an update of an object without its resourceVersion");
        }
        ((ObjectNode) json.get("metadata")).put("resourceVersion", version);
    }

    /** The fact of a removal: the data an {@link ObjectChange} of {@code json}, the object's last state. */
    private static void emit(Effects.Builder out, String type, ResourceType resource, HasMetadata object, JsonNode json) {
        out.emit(SOURCE, type, subject(resource, object), Json.MAPPER.createObjectNode().put("resource", resource.plural()).set("object", json));
    }

    /** The fact of a write: its data the {@link ObjectChange} the store keeps the object's JSON in, not written again. */
    private static void emitStored(Effects.Builder out, String type, ResourceType resource, HasMetadata object, byte[] change) {
        out.emitJson(SOURCE, type, subject(resource, object), change);
    }

    private static Pod existingPod(RegistryState state, String namespace, String name) {
        return (Pod) existing(state, ResourceType.PODS, namespace, name);
    }

    /** The object a request names, as stored; 404 NotFound if there is none. */
    private static HasMetadata existing(RegistryState state, ResourceType type, String namespace, String name) {
        return state.get(type, namespace, name).orElseThrow(() -> StatusError.notFound(type, name));
    }

    /** The uid precondition of the binding and status writes, and of a namespace's delete, as etcd3's storage reports it. */
    private static void checkUid(ResourceType type, HasMetadata current, String uid) {
        if (uid != null && !uid.isEmpty() && !uid.equals(current.getMetadata().getUid())) {
            throw StatusError.conflict(type.plural(), current.getMetadata().getName(), "Precondition failed: UID in precondition: "
                    + uid + ", UID in object meta: " + current.getMetadata().getUid());
        }
    }

    static String subject(ResourceType type, HasMetadata object) {
        return Subjects.of(type.namespaced() ? object.getMetadata().getNamespace() : "", type.plural(), object.getMetadata().getName());
    }

    private static ResourceType resourceType(String plural) {
        try {
            return ResourceType.byPlural(plural);
        } catch (IllegalArgumentException e) {
            throw StatusError.pathNotFound();
        }
    }

    private static <T> T payload(Event event, Class<T> type) {
        try {
            return event.data(type);
        } catch (IllegalArgumentException e) {
            throw StatusError.badRequest("the request could not be read: " + e.getMessage());
        }
    }

    @SuppressWarnings("unchecked")
    static <T extends HasMetadata> T copy(T object) {
        return (T) Json.convert(Json.tree(object), object.getClass());
    }
}
