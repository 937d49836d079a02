package io.podfall.controller;

import io.podfall.model.core.Core;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;

import java.time.Instant;

/**
 * One controller of the controller manager (upstream {@code cmd/kube-controller-manager}: many controllers in one
 * process, each watching the same API): a pure core that adds its effects to a builder instead of building them
 * itself. The {@link ControllerManager} hands every controller the same builder for one event; the builder numbers
 * events by position, so effects of different controllers for the same cause never share an id.
 *
 * <p>Run on its own (in a unit test, say), a controller is an ordinary {@link Core}: the default methods give it a
 * builder of its own.
 *
 * <p>Each controller keys its timers by records of its own ({@link io.podfall.model.core.TimerKey}): the manager
 * offers every timer to every controller, and each one acts only on its own key types.
 *
 * @param <S> the controller's state, owned by it alone
 */
public interface Controller<S> extends Core<S> {

    /** Handles one event from the log, adding whatever the controller decides to {@code effects}. */
    void handle(S state, Event event, Effects.Builder effects);

    /** A timer is due; a controller that sets none ignores it, as it must ignore the keys of the others. */
    default void fire(S state, Timer timer, Effects.Builder effects) {
    }

    @Override
    default Effects handle(S state, Event event, Instant now) {
        Effects.Builder effects = Effects.of(event, now);
        handle(state, event, effects);
        return effects.build();
    }

    @Override
    default Effects fire(S state, Timer timer, Instant now) {
        Effects.Builder effects = Effects.of(timer, now);
        fire(state, timer, effects);
        return effects.build();
    }
}
