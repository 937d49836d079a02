package io.podfall.model.core;

import io.podfall.model.event.Event;
import java.time.Instant;

/**
 * A component's logic as a deterministic state machine: {@code (state, event, now) -> (state', events, timers)}.
 *
 * <p>A core imports no Kafka, HTTP or CDI, never reads the clock (time is the {@code now} it is given) and never draws
 * random numbers (ids are derived from the input, see {@link io.podfall.model.event.Ids}). The state belongs to the
 * core: only {@code handle} and {@code fire} change it, on one thread. So the same events and times always give the
 * same state and the same effects: live over Kafka, after a restart that re-reads the log, and in a replay.
 *
 * @param <S> the core's state: a fold over the events it has handled
 */
public interface Core<S> {

    /** The state before any event. */
    S newState();

    /** Handles one event from the log. Events the core has no interest in return {@link Effects#NONE}. */
    Effects handle(S state, Event event, Instant now);

    /**
     * Whether events of {@code type} can change the state or call for effects. A service's adapter neither decodes the
     * data of any other event nor hands it to {@link #handle}: every service reads the whole log, most of it other
     * components' conversations, and a runtime, say, hears only the CRI and CSI calls made to it, as a real one does.
     * Replay hands a core the same. {@link #handle} still returns {@link Effects#NONE} for a type read as false, so a
     * caller that hands it everything gets the same decisions. Default: every type.
     */
    default boolean reads(String type) {
        return true;
    }

    /** A timer the core set is due ({@code now} is at or after {@code timer.at()}). */
    Effects fire(S state, Timer timer, Instant now);
}
