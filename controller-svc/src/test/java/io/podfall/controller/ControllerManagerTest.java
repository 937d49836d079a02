package io.podfall.controller;

import static io.podfall.controller.testing.ApiServerFacts.T0;
import static io.podfall.controller.testing.Nodes.aNode;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.controller.scheduler.Scheduler;
import io.podfall.controller.scheduler.SchedulerState;
import io.podfall.controller.testing.ApiServerFacts;
import io.podfall.model.core.CompositeState;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Part;
import io.podfall.model.core.Timer;
import io.podfall.model.core.TimerKey;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ControllerManagerTest {

    /** A controller that echoes every pod creation with the scheduler's own source, and asks for a timer. */
    private record EchoTimer(String event) implements TimerKey {
        @Override
        public String id() {
            return "echo/" + event;
        }
    }

    static final class Echo implements Part<Echo.Seen> {
        static final class Seen {
            final List<String> ids = new ArrayList<>();
        }

        @Override
        public Seen newState() {
            return new Seen();
        }

        @Override
        public void handle(Seen state, Event event, Effects.Builder effects) {
            if (event.is(EventTypes.OBJECT_CREATED) && event.subject().contains("/pods/")) {
                state.ids.add(event.id());
                effects.emit(Scheduler.SOURCE, "test.Echoed", event.subject(), Map.of("of", event.id()))
                        .timer(new EchoTimer(event.id()), T0.plusSeconds(1));
            }
        }

        @Override
        public void fire(Seen state, Timer timer, Effects.Builder effects) {
            if (timer.key() instanceof EchoTimer) {
                effects.emit(
                        Scheduler.SOURCE,
                        "test.Woken",
                        "nodes/none",
                        Map.of("key", timer.key().id()));
            }
        }
    }

    private final ControllerManager manager = new ControllerManager(List.of(new Scheduler(), new Echo()));
    private final CompositeState state = manager.newState();
    private final ApiServerFacts api = new ApiServerFacts();

    @Test
    void everyControllerHandlesTheEventInOrderAndTheirEventsGetDistinctIds() {
        manager.handle(state, api.created(aNode("node-1").build()), T0);

        Effects effects = manager.handle(state, api.created(aPod("web-1").build()), T0);

        assertEquals(
                List.of(EventTypes.BINDING_REQUESTED, "test.Echoed"),
                effects.events().stream().map(Event::type).toList());
        assertEquals(2, effects.events().stream().map(Event::id).distinct().count());
        assertEquals(1, effects.timers().size());
    }

    @Test
    void eachControllerKeepsItsOwnState() {
        manager.handle(state, api.created(aNode("node-1").build()), T0);
        Event created = api.created(aPod("web-1").build());

        manager.handle(state, created, T0);

        assertEquals(Optional.of("node-1"), state.of(SchedulerState.class).assumedNode("uid-web-1"));
        assertEquals(List.of(created.id()), state.of(Echo.Seen.class).ids);
    }

    @Test
    void aTimerReachesTheControllerThatSetIt() {
        Timer timer = manager.handle(state, api.created(aPod("web-1").build()), T0)
                .timers()
                .get(0);

        Effects effects = manager.fire(state, timer, timer.at());

        assertEquals(
                List.of("test.Woken"),
                effects.events().stream().map(Event::type).toList());
    }

    @Test
    void anEventNoControllerCaresAboutHasNoEffects() {
        assertTrue(
                manager.handle(state, api.created(aNode("node-1").build()), T0).isEmpty());
    }
}
