package io.podfall.model.core;

import io.podfall.model.event.Event;
import java.time.Instant;

/**
 * One part of a service's core: a controller of the controller manager, a manager of the kubelet, the container runtime
 * beside the CSI plugin. A part is a pure core that adds its effects to the builder of the step instead of building
 * them itself: the {@link CompositeCore} hands all its parts the same builder for one event, and the builder numbers
 * events by position, so the effects of two parts for one cause never share an id.
 *
 * <p>Each part keys its timers by records of its own ({@link TimerKey}): every timer is offered to every part, and each
 * one acts only on its own key types. Run on its own (in a unit test, say), a part is an ordinary {@link Core}: the
 * default methods give it a builder of its own.
 *
 * @param <S> the part's state, owned by it alone
 */
public interface Part<S> extends Core<S> {

    /** Handles one event from the log, adding whatever the part decides to {@code effects}. */
    void handle(S state, Event event, Effects.Builder effects);

    /** A timer is due; a part that sets none ignores it, as it must ignore the key types of the others. */
    default void fire(S state, Timer timer, Effects.Builder effects) {}

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
