package io.podfall.apiserver.registry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Status;
import io.podfall.model.Json;
import io.podfall.model.apiserver.RequestRejection;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;

import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A registry and its state, fed requests the way the log carries them: what every registry test class shares.
 * Each request gets the next id ({@code request-1}, {@code request-2}, …); the last one is kept for assertions
 * on what it caused.
 */
abstract class RegistryFixture {
    static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");

    final Registry registry = new Registry();
    final RegistryState state = registry.newState();
    Event lastRequest;
    private int requests;

    Event request(String source, String type, String subject, Object data) {
        lastRequest = Event.request("request-" + ++requests, source, type, subject, T0, null, data);
        return lastRequest;
    }

    Effects handle(Event event, Instant now) {
        return registry.handle(state, event, now);
    }

    Effects handle(Event event) {
        return handle(event, T0);
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
