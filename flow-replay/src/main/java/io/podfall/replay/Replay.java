package io.podfall.replay;

import io.podfall.model.event.Event;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A recorded log run again: its inputs re-injected into a fresh {@link Engine} up to {@code until}, and the
 * replayed log compared with what was recorded up to then.
 *
 * @param recorded the recorded events up to {@code until}, in log order
 * @param replayed the engine's log
 */
public record Replay(Recording recording, Instant until, List<Event> recorded, List<Event> replayed,
                     List<Divergences.Divergence> divergences) {

    /** Replays {@code log} up to {@code until}; a timing difference counts when it exceeds {@code tolerance}. */
    public static Replay of(List<Event> log, Instant until, Duration tolerance) {
        Recording recording = Recording.of(log);
        Engine engine = recording.engine();
        engine.runUntil(until);
        List<Event> recorded = log.stream().filter(e -> !e.time().isAfter(until)).toList();
        return new Replay(recording, until, recorded, engine.log(), Divergences.between(recorded, engine.log(), tolerance));
    }

    /** The time of the last event of a log: where a replay of all of it stops. */
    public static Instant end(List<Event> log) {
        return log.stream().map(Event::time).max(Instant::compareTo).orElse(Instant.EPOCH);
    }

    public boolean reproduces() {
        return divergences.isEmpty();
    }
}
