package io.podfall.model.core;

import io.podfall.model.event.Event;
import java.time.Instant;
import java.util.List;

/**
 * A service's core made of {@link Part}s, as upstream runs many loops in one process (kube-controller-manager's
 * controllers, the kubelet's managers): each part keeps a state of its own and sees every event it
 * {@linkplain Core#reads reads} and every timer; they share nothing but the log.
 *
 * <p>Invariants: the parts run in the order they were given, so the effects of one event are always in the same order;
 * all effects of one event (or timer) come from one {@link Effects.Builder}, so their ids are distinct even when two
 * parts emit with the same source.
 */
public abstract class CompositeCore implements Core<CompositeState> {
    private final List<Part<?>> parts;

    protected CompositeCore(List<? extends Part<?>> parts) {
        this.parts = List.copyOf(parts);
    }

    @Override
    public final CompositeState newState() {
        return new CompositeState(parts);
    }

    @Override
    public final Effects handle(CompositeState state, Event event, Instant now) {
        Effects.Builder effects = Effects.of(event, now);
        handle(state, event, effects);
        return effects.build();
    }

    /**
     * Hands {@code event} to every part that reads it. A core that holds some events back from its parts for a while (a
     * kubelet whose node is stopped) overrides this, and calls it for what it lets through.
     */
    protected void handle(CompositeState state, Event event, Effects.Builder effects) {
        state.handle(event, effects);
    }

    /** What any part reads; a service narrows it to what its process hears. */
    @Override
    public boolean reads(String type) {
        return parts.stream().anyMatch(p -> p.reads(type));
    }

    @Override
    public final Effects fire(CompositeState state, Timer timer, Instant now) {
        Effects.Builder effects = Effects.of(timer, now);
        fire(state, timer, effects);
        return effects.build();
    }

    /** Offers {@code timer} to every part; a core that holds some timers back overrides it, as {@link #handle}. */
    protected void fire(CompositeState state, Timer timer, Effects.Builder effects) {
        state.fire(timer, effects);
    }
}
