package io.podfall.model.core;

import io.podfall.model.event.Event;
import java.util.List;

/** The state of a {@link CompositeCore}: each part beside its own state, in the order they run. */
public final class CompositeState {
    private final List<Running<?>> running;

    CompositeState(List<Part<?>> parts) {
        this.running = parts.stream().<Running<?>>map(Running::start).toList();
    }

    /** The state of the part whose state has this type (to read it, e.g. under {@code LogProcessor.read}). */
    public <S> S of(Class<S> stateType) {
        return running.stream()
                .map(Running::state)
                .filter(stateType::isInstance)
                .map(stateType::cast)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no part keeps a " + stateType));
    }

    /** Each part's state, in the order they run (what a memory footprint walks). */
    public List<Object> states() {
        return running.stream().<Object>map(Running::state).toList();
    }

    void handle(Event event, Effects.Builder effects) {
        for (Running<?> r : running) {
            if (r.part().reads(event.type())) {
                r.handle(event, effects);
            }
        }
    }

    void fire(Timer timer, Effects.Builder effects) {
        running.forEach(r -> r.fire(timer, effects));
    }

    /** A part with its state; the type parameter ties the two together. */
    private record Running<S>(Part<S> part, S state) {
        static <S> Running<S> start(Part<S> part) {
            return new Running<>(part, part.newState());
        }

        void handle(Event event, Effects.Builder effects) {
            part.handle(state, event, effects);
        }

        void fire(Timer timer, Effects.Builder effects) {
            part.fire(state, timer, effects);
        }
    }
}
