package io.podfall.apiserver.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Status;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.RequestRejection;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.List;

/**
 * A registry and its state, fed requests the way the log carries them: what every registry test class shares. The state
 * starts as a cluster's does, with its system namespaces ({@link SystemNamespaces}), so a test counts its own writes
 * and objects from there ({@link #rv}, {@link #writes}, {@link #objects}). Each request gets the next id
 * ({@code request-1}, {@code request-2}, …); the last one is kept for assertions on what it caused.
 */
abstract class RegistryFixture {
    static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");

    final Registry registry = new Registry();
    final RegistryState state = registry.newState();
    /** The resourceVersion after the system namespaces were created, before anything of the test. */
    final long base;

    Event lastRequest;
    private int requests;

    RegistryFixture() {
        SystemNamespaces.missing(state, T0).forEach(this::handle);
        base = state.resourceVersion();
    }

    /** The resourceVersion of the test's {@code n}th write. */
    String rv(long n) {
        return Long.toString(base + n);
    }

    /** How many writes the test made. */
    long writes() {
        return state.resourceVersion() - base;
    }

    /** How many objects the test stored, besides the system namespaces. */
    int objects() {
        return state.size() - SystemNamespaces.NAMES.size();
    }

    /** Creates a namespace (one write), for a test that stores objects outside {@code default}. */
    void createNamespace(String name) {
        Effects created = create(
                "namespaces",
                "",
                new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .build());
        assertEquals(List.of(EventTypes.OBJECT_CREATED), types(created));
    }

    Event request(String source, String type, String subject, Object data) {
        lastRequest = Event.request("request-" + ++requests, source, type, subject, T0, null, data);
        return lastRequest;
    }

    /** The request as the API server received it at {@code now} (its time on the log), read back at once. */
    Effects handle(Event event, Instant now) {
        Event received = new Event(
                event.id(),
                event.source(),
                event.type(),
                event.subject(),
                now,
                event.correlationId(),
                event.causationId(),
                event.traceparent(),
                event.data());
        return registry.handle(state, received, now);
    }

    Effects handle(Event event) {
        return handle(event, T0);
    }

    /**
     * Creates {@code object} (a fabric8 object or a JSON tree) as a {@code resource} in {@code namespace} ("" if
     * cluster-scoped).
     */
    Effects create(String resource, String namespace, Object object) {
        JsonNode tree = Json.tree(object);
        return handle(request(
                Registry.SOURCE,
                EventTypes.CREATION_REQUESTED,
                Subjects.of(
                        namespace, resource, tree.path("metadata").path("name").asText()),
                new CreationRequest(resource, namespace, tree)));
    }

    Effects delete(String resource, String namespace, String name, DeleteOptions options) {
        return handle(request(
                Registry.SOURCE,
                EventTypes.DELETION_REQUESTED,
                Subjects.of(namespace, resource, name),
                new DeletionRequest(resource, namespace, name, options)));
    }

    Pod stored(String name) {
        return (Pod) state.get(ResourceType.PODS, "default", name).orElseThrow();
    }

    static List<String> types(Effects effects) {
        return effects.events().stream().map(Event::type).toList();
    }

    static Status rejection(Effects effects) {
        assertEquals(List.of(EventTypes.REQUEST_REJECTED), types(effects));
        return effects.events().get(0).data(RequestRejection.class).status();
    }

    static JsonNode json(String text) {
        try {
            return Json.MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
