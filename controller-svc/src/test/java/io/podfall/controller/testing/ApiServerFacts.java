package io.podfall.controller.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.podfall.model.Json;
import io.podfall.model.apiserver.BindingRequest;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.apiserver.RequestRejection;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * The facts an API server appends, for tests of watchers: each stored object gets the next resourceVersion (and an
 * object without a uid gets {@code uid-<name>}), each fact the next id and the time set by {@link #at} (T0 unless
 * told). A fact is a request of its own (its own flow) unless it answers a request ({@link #answer}); a refusal is
 * caused by the request it refuses, as the API server's are.
 */
public final class ApiServerFacts {
    public static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");

    private long resourceVersion;
    private int facts;
    private int generated;
    private Instant time = T0;

    /** The facts from now on happen at {@code time}. */
    public ApiServerFacts at(Instant time) {
        this.time = time;
        return this;
    }

    public Event created(Pod pod) {
        return fact(EventTypes.OBJECT_CREATED, ResourceType.PODS, stored(pod));
    }

    public Event created(Node node) {
        return fact(EventTypes.OBJECT_CREATED, ResourceType.NODES, stored(node));
    }

    public Event bound(Pod pod, String nodeName) {
        return fact(
                EventTypes.POD_BOUND,
                ResourceType.PODS,
                stored(new PodBuilder(pod)
                        .editSpec()
                        .withNodeName(nodeName)
                        .endSpec()
                        .build()));
    }

    public Event statusUpdated(Pod pod) {
        return fact(EventTypes.POD_STATUS_UPDATED, ResourceType.PODS, stored(pod));
    }

    public Event markedTerminating(Pod pod) {
        return fact(EventTypes.OBJECT_MARKED_TERMINATING, ResourceType.PODS, stored(pod));
    }

    public Event removed(Pod pod) {
        return fact(EventTypes.OBJECT_REMOVED, ResourceType.PODS, stored(pod));
    }

    public Event removed(Node node) {
        return fact(EventTypes.OBJECT_REMOVED, ResourceType.NODES, stored(node));
    }

    /** Any object stored for the first time, of the given resource (deployments, replicasets, services, ...). */
    public Event created(ResourceType resource, HasMetadata object) {
        return fact(EventTypes.OBJECT_CREATED, resource, stored(object));
    }

    /** An update or patch of any object, spec, metadata or status, as the API server stored it. */
    public Event updated(ResourceType resource, HasMetadata object) {
        return fact(EventTypes.OBJECT_UPDATED, resource, stored(object));
    }

    /** Any object given a deletionTimestamp (graceful deletion, or held by finalizers). */
    public Event markedTerminating(ResourceType resource, HasMetadata object) {
        return fact(EventTypes.OBJECT_MARKED_TERMINATING, resource, stored(object));
    }

    /** Any object gone from storage; the data holds its last state. */
    public Event removed(ResourceType resource, HasMetadata object) {
        return fact(EventTypes.OBJECT_REMOVED, resource, stored(object));
    }

    /**
     * The object a {@code CreationRequested} asks for, stored as the API server stores it (a name from
     * {@code generateName} and a counter if it has none, the request's namespace, creationTimestamp the facts' time),
     * as the fact that answers the request.
     */
    public Event createdFrom(Event creationRequested) {
        CreationRequest request = creationRequested.data(CreationRequest.class);
        ResourceType resource = ResourceType.byPlural(request.resource());
        HasMetadata object = Json.convert(request.object(), resource.javaType());
        ObjectMeta meta = object.getMetadata();
        if (meta.getName() == null || meta.getName().isEmpty()) {
            meta.setName(meta.getGenerateName() + ++generated);
        }
        meta.setNamespace(request.namespace());
        if (meta.getCreationTimestamp() == null) {
            meta.setCreationTimestamp(time.toString());
        }
        return answer(creationRequested, EventTypes.OBJECT_CREATED, resource, object);
    }

    /**
     * A {@code PatchRequested} with a JSON merge patch (RFC 7386) applied to {@code current}, stored, as the fact that
     * answers it. The subresource is not checked: the test gives a patch that touches what it may.
     */
    public Event patchedFrom(Event patchRequested, HasMetadata current) {
        PatchRequest request = patchRequested.data(PatchRequest.class);
        ResourceType resource = ResourceType.byPlural(request.resource());
        JsonNode patched = mergePatch(Json.tree(current), request.patch());
        return answer(patchRequested, EventTypes.OBJECT_UPDATED, resource, Json.convert(patched, resource.javaType()));
    }

    /**
     * A {@code PatchRequested} of {@code pods/status} (a strategic merge patch) applied to {@code current} as the API
     * server applies it, stored, as the fact that answers it: the status fields it gives replace the stored ones, and a
     * condition it gives is merged into the stored condition of its type (or added). Its {@code metadata} is a
     * precondition, not checked here.
     */
    public Event podStatusPatchedFrom(Event patchRequested, Pod current) {
        JsonNode status = patchRequested.data(PatchRequest.class).patch().path("status");
        ObjectNode pod = (ObjectNode) Json.tree(current);
        ObjectNode stored = pod.has("status") ? (ObjectNode) pod.get("status") : pod.putObject("status");
        status.fields().forEachRemaining(f -> {
            if (!f.getKey().equals("conditions")) {
                stored.set(f.getKey(), f.getValue());
            }
        });
        ArrayNode conditions =
                stored.has("conditions") ? (ArrayNode) stored.get("conditions") : stored.putArray("conditions");
        for (JsonNode given : status.path("conditions")) {
            ObjectNode same = null;
            for (JsonNode c : conditions) {
                if (c.path("type").equals(given.path("type"))) {
                    same = (ObjectNode) c;
                }
            }
            if (same == null) {
                conditions.add(given);
            } else {
                same.setAll((ObjectNode) given);
            }
        }
        return answer(patchRequested, EventTypes.OBJECT_UPDATED, ResourceType.PODS, Json.convert(pod, Pod.class));
    }

    /** RFC 7386, by JSON-P's implementation (Parsson, on the classpath through Quarkus). */
    private static JsonNode mergePatch(JsonNode target, JsonNode patch) {
        JsonValue merged = jakarta.json.Json.createMergePatch(jsonp(patch)).apply(jsonp(target));
        return Json.read(merged.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static JsonValue jsonp(JsonNode node) {
        try (JsonReader reader = jakarta.json.Json.createReader(new StringReader(Json.string(node)))) {
            return reader.readValue();
        }
    }

    /** The API server's refusal of a binding, as it answers the request: caused by it. */
    public Event rejected(Event bindingRequested) {
        BindingRequest binding = bindingRequested.data(BindingRequest.class);
        return rejected(
                bindingRequested,
                409,
                "Conflict",
                "Operation cannot be fulfilled on pods/binding \"" + binding.name() + "\"");
    }

    /**
     * The API server's refusal of any request, with the Status code and reason it answers (404 NotFound, 409 Conflict).
     */
    public Event rejected(Event request, int code, String reason) {
        return rejected(request, code, reason, reason + ": " + request.subject());
    }

    /** The API server's refusal of any request, with the Status code, reason and message: caused by it. */
    public Event rejected(Event request, int code, String reason, String message) {
        return Event.causedBy(
                request.asCause(),
                request.id(),
                0,
                "/apiserver",
                EventTypes.REQUEST_REJECTED,
                request.subject(),
                time,
                new RequestRejection(new StatusBuilder()
                        .withStatus("Failure")
                        .withReason(reason)
                        .withCode(code)
                        .withMessage(message)
                        .build()));
    }

    /**
     * What the API server stored in answer to a request (a creation, a deletion, a patch): the fact is caused by the
     * request, and so in its flow. A later fact of the same flow (a pod's removal after the kubelet's final delete) may
     * be given as another answer to the same request.
     */
    public Event answer(Event request, String type, ResourceType resource, HasMetadata object) {
        return Event.causedBy(
                request.asCause(),
                request.id(),
                ++facts,
                "/apiserver",
                type,
                subject(resource, object),
                time,
                ObjectChange.of(resource, stored(object)));
    }

    private <T extends HasMetadata> T stored(T object) {
        object.getMetadata().setResourceVersion(Long.toString(++resourceVersion));
        if (object.getMetadata().getUid() == null) {
            object.getMetadata().setUid("uid-" + object.getMetadata().getName());
        }
        return object;
    }

    private Event fact(String type, ResourceType resource, HasMetadata object) {
        return Event.request(
                "fact-" + ++facts,
                "/apiserver",
                type,
                subject(resource, object),
                time,
                null,
                ObjectChange.of(resource, object));
    }

    private static String subject(ResourceType resource, HasMetadata object) {
        return Subjects.of(
                object.getMetadata().getNamespace(),
                resource.plural(),
                object.getMetadata().getName());
    }
}
