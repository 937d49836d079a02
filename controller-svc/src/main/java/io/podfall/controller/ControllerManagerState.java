package io.podfall.controller;

import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;

import java.util.List;

/** The state of the controller manager: each controller beside its own state, in the manager's order. */
public final class ControllerManagerState {
    /** One entry per controller, in the order they run. */
    private final List<Running<?>> running;

    ControllerManagerState(List<Controller<?>> controllers) {
        this.running = controllers.stream().<Running<?>>map(Running::start).toList();
    }

    /** The state of the controller whose state has this type (to read it, e.g. under {@code LogProcessor.read}). */
    public <S> S of(Class<S> stateType) {
        return running.stream().map(Running::state).filter(stateType::isInstance).map(stateType::cast)
                .findFirst().orElseThrow(() -> new IllegalArgumentException("no controller keeps a " + stateType));
    }

    /** Each controller's state, in the order they run (what a memory footprint walks). */
    public List<Object> states() {
        return running.stream().<Object>map(Running::state).toList();
    }

    List<Running<?>> running() {
        return running;
    }

    /** A controller with its state; the type parameter ties the two together. */
    record Running<S>(Controller<S> controller, S state) {
        static <S> Running<S> start(Controller<S> controller) {
            return new Running<>(controller, controller.newState());
        }

        void handle(Event event, Effects.Builder effects) {
            controller.handle(state, event, effects);
        }

        void fire(Timer timer, Effects.Builder effects) {
            controller.fire(state, timer, effects);
        }
    }
}
