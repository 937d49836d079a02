package io.podfall.replay;

import io.podfall.model.event.Event;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A recorded log run again: the state before {@code since} rebuilt from the recording (as the services held it),
 * the recording's inputs from {@code since} to {@code until} re-injected into the engine, and the replayed events
 * compared with those recorded in that window.
 *
 * @param recorded the recorded events of the window, in log order
 * @param replayed the engine's log: what it appended from {@code since} on
 */
public record Replay(Recording recording, Instant since, Instant until, List<Event> recorded, List<Event> replayed,
                     List<Divergences.Divergence> divergences) {

    /** Replays all of {@code log}. */
    public static Replay of(List<Event> log, Duration tolerance) {
        return of(log, start(log), end(log), tolerance);
    }

    /**
     * Replays the window of {@code log} from the first event at or after {@code since} (what comes before is folded
     * into the cores' state) to {@code until}; a timing difference counts when it exceeds {@code tolerance}.
     */
    public static Replay of(List<Event> log, Instant since, Instant until, Duration tolerance) {
        int from = 0;
        while (from < log.size() && log.get(from).time().isBefore(since)) {
            from++;
        }
        Recording recording = Recording.of(log, from);
        Engine engine = new Engine(recording.kubelets());
        log.subList(0, from).forEach(engine::fold);
        engine.foldUntil(since.minusNanos(1));
        engine.goLive();
        engine.schedule(recording.inputs());
        engine.runUntil(until);
        List<Event> recorded = log.subList(from, log.size()).stream().filter(e -> !e.time().isAfter(until)).toList();
        return new Replay(recording, since, until, recorded, engine.log(), Divergences.between(recorded, engine.log(), tolerance));
    }

    /** The time of the first event of a log. */
    public static Instant start(List<Event> log) {
        return log.isEmpty() ? Instant.EPOCH : log.get(0).time();
    }

    /** The time of the last event of a log: where a replay of all of it stops. */
    public static Instant end(List<Event> log) {
        return log.stream().map(Event::time).max(Instant::compareTo).orElse(Instant.EPOCH);
    }

    public boolean reproduces() {
        return divergences.isEmpty();
    }
}
