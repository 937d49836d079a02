package io.podfall.controller.garbagecollector;

import static io.podfall.controller.testing.ApiServerFacts.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.controller.testing.ApiServerFacts;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.util.ArrayList;
import java.util.List;

/**
 * A garbage collector and its state, fed facts the way the log carries them: what every collector test class shares.
 * Every event handed to it is kept, in order, so a test can replay them into a new collector.
 */
abstract class GarbageCollectorFixture {
    final GarbageCollector gc = new GarbageCollector();
    final GarbageCollectorState state = gc.newState();
    final ApiServerFacts api = new ApiServerFacts();
    /** The log as the collector read it. */
    final List<Event> log = new ArrayList<>();

    Effects handle(Event event) {
        log.add(event);
        return gc.handle(state, event, T0);
    }

    /** Handles each event, ignoring what they cause: the state a test starts from. */
    void given(Event... events) {
        for (Event event : events) {
            handle(event);
        }
    }

    static Event only(Effects effects) {
        assertEquals(1, effects.events().size(), () -> "one event expected: " + requests(effects));
        return effects.events().get(0);
    }

    /**
     * Each request in a line: {@code delete replicasets/web-1 Background}, {@code remove owners [uid-web] from
     * replicasets/web-1} (the strategic patch), {@code set finalizers [] of deployments/web} (the merge patch).
     */
    static List<String> requests(Effects effects) {
        return effects.events().stream().map(GarbageCollectorFixture::request).toList();
    }

    private static String request(Event event) {
        return switch (event.type()) {
            case EventTypes.DELETION_REQUESTED -> {
                DeletionRequest delete = event.data(DeletionRequest.class);
                yield "delete " + delete.resource() + "/" + delete.name() + " "
                        + delete.options().getPropagationPolicy();
            }
            case EventTypes.PATCH_REQUESTED -> {
                PatchRequest patch = event.data(PatchRequest.class);
                JsonNode metadata = patch.patch().path("metadata");
                String target = patch.resource() + "/" + patch.name();
                yield PatchRequest.STRATEGIC.equals(patch.patchType())
                        ? "remove owners " + metadata.path("ownerReferences").findValuesAsText("uid") + " from "
                                + target
                        : "set finalizers " + metadata.path("finalizers") + " of " + target;
            }
            default -> event.type();
        };
    }
}
