package io.podfall.apiserver.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CollectionDeletionRequest;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.RequestRejection;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The answer to a request, read from what the {@link Registry} did with it: the Status of its rejection, else (a
 * deletecollection) the list of what it deleted, else the object of the last fact it caused (for a write to
 * {@code /scale}, the Scale it shows), else (a delete that found deletion pending with an earlier deadline, or a status
 * write, update or patch that changed nothing) the object as stored. Pure: the HTTP layer calls it with the effects of
 * the request, under the log processor's lock, so "as stored" is the state right after it.
 *
 * @param code the HTTP status code
 * @param body the object, or a Kubernetes Status
 */
public record Outcome(int code, JsonNode body) {

    public static Optional<Outcome> of(RegistryState state, Event request, Effects effects) {
        if (!Registry.isRequest(request)) {
            return Optional.empty();
        }
        List<Event> facts = effects.events();
        for (int i = facts.size() - 1; i >= 0; i--) {
            Event fact = facts.get(i);
            if (fact.is(EventTypes.REQUEST_REJECTED)) {
                Status status = fact.data(RequestRejection.class).status();
                return Optional.of(new Outcome(status.getCode(), Json.tree(status)));
            }
        }
        if (request.is(EventTypes.EVICTION_REQUESTED)) {
            // EvictionREST.Create answers a Status Success; the create handler gives it its code, 201.
            Status evicted = new StatusBuilder()
                    .withNewMetadata()
                    .endMetadata()
                    .withStatus("Success")
                    .withCode(201)
                    .build();
            return Optional.of(new Outcome(201, Json.tree(evicted)));
        }
        if (request.is(EventTypes.COLLECTION_DELETION_REQUESTED)) {
            return Optional.of(
                    new Outcome(200, deletedCollection(state, request.data(CollectionDeletionRequest.class), facts)));
        }
        boolean scale = Kinds.SCALE.equals(request.data().path("subresource").asText(""));
        if (!facts.isEmpty()) {
            Event last = facts.get(facts.size() - 1);
            ObjectChange change = ObjectChange.of(last);
            if (request.is(EventTypes.CREATION_REQUESTED)) {
                return Optional.of(new Outcome(201, change.object()));
            }
            if (request.is(EventTypes.DELETION_REQUESTED)
                    && last.is(EventTypes.OBJECT_REMOVED)
                    && !Kinds.returnsDeletedObject(change.resourceType())) {
                return Optional.of(new Outcome(200, Json.tree(removedStatus(change))));
            }
            return Optional.of(new Outcome(200, scale ? WorkloadStrategy.scale(change.object()) : change.object()));
        }
        Outcome stored = stored(state, request);
        return Optional.of(
                scale && stored.code() == 200 ? new Outcome(200, WorkloadStrategy.scale(stored.body())) : stored);
    }

    /**
     * Store.finalizeDelete for kinds that do not return the deleted object ({@link Kinds#returnsDeletedObject}): a
     * Status Success whose details carry the uid, which kubectl waits on.
     */
    private static Status removedStatus(ObjectChange change) {
        HasMetadata object = change.object(change.resourceType().javaType());
        return new StatusBuilder()
                .withNewMetadata()
                .endMetadata()
                .withStatus("Success")
                .withNewDetails()
                .withName(object.getMetadata().getName())
                .withGroup(change.resourceType().group())
                .withKind(change.resourceType().plural())
                .withUid(object.getMetadata().getUid())
                .endDetails()
                .build();
    }

    /**
     * The answer of a deletecollection: a {@code <Kind>List} of every object it matched, in key order, each as the
     * request left it: terminating, in its last state if it was removed, or as stored if it was already being deleted
     * with an earlier deadline. (Upstream lists the same objects as they were before the deletes.)
     */
    private static ObjectNode deletedCollection(RegistryState state, CollectionDeletionRequest req, List<Event> facts) {
        ResourceType type = ResourceType.byPlural(req.resource());
        Selectors selectors = Selectors.parse(type, req.fieldSelector(), req.labelSelector());
        Map<String, JsonNode> byName = new TreeMap<>();
        state.trees(type, req.namespace()).stream()
                .filter(selectors::matches)
                .forEach(o -> byName.put(o.path("metadata").path("name").asText(), o));
        for (Event fact : facts) {
            JsonNode object = ObjectChange.of(fact).object();
            byName.put(object.path("metadata").path("name").asText(), object);
        }
        return Kinds.list(type, Long.toString(state.resourceVersion()), List.copyOf(byName.values()));
    }

    private static Outcome stored(RegistryState state, Event request) {
        ResourceType type;
        String namespace;
        String name;
        if (request.is(EventTypes.DELETION_REQUESTED)) {
            DeletionRequest r = request.data(DeletionRequest.class);
            type = ResourceType.byPlural(r.resource());
            namespace = r.namespace();
            name = r.name();
        } else if (request.is(EventTypes.CREATION_REQUESTED)) {
            CreationRequest r = request.data(CreationRequest.class);
            type = ResourceType.byPlural(r.resource());
            namespace = r.namespace();
            name = r.object().path("metadata").path("name").asText();
        } else {
            // Binding and status requests are about pods; updates and patches name their resource.
            JsonNode data = request.data();
            type = data.hasNonNull("resource")
                    ? ResourceType.byPlural(data.path("resource").asText())
                    : ResourceType.PODS;
            namespace = data.path("namespace").asText();
            name = data.path("name").asText();
        }
        return state.tree(type, namespace, name).map(o -> new Outcome(200, o)).orElseGet(() -> {
            Status status = StatusError.notFound(type, name).status();
            return new Outcome(status.getCode(), Json.tree(status));
        });
    }
}
