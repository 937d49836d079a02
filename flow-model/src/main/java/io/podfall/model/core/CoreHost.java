package io.podfall.model.core;

import io.podfall.model.event.Event;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Runs one core over a log, the one way both the Kafka adapter (flow-adapter's LogProcessor) and the replay engine
 * (flow-replay's Engine) run it: the core's state and timers, time that never goes back, due timers fired before the
 * next event, only the types the core {@link Core#reads reads} handed to it, and what it decides held back while its
 * state is rebuilt from a log that holds those decisions already. No framework type: what the caller does with a
 * decision (append it to Kafka, to an in-memory log) and with a failure (the dead-letter topic, a note) is its own.
 *
 * <p><b>Rebuilding.</b> Until {@link #goLive}, time is what the caller says the log said (an event's time) and timers
 * fire at their due time, so the core decides as it did live; what it decides is held back, by id. An event that then
 * shows up on the log had been appended before and is dropped from what is held back; what is left at {@link #goLive}
 * had been decided but never appended (a crash between the two), and the caller appends it then. Ids are derived from
 * causes, so "the same event" is exact.
 *
 * <p><b>Live.</b> Timers due by {@code now} fire at {@code now}: a timer rings when its alarm does or when the next
 * event is read, whichever is first, and decides at that moment.
 *
 * <p>Not thread-safe: one caller at a time, as a core is.
 *
 * @param <S> the core's state
 */
public final class CoreHost<S> {
    /** Where a decision goes: {@code input} null for a timer's; {@code heldBack} while rebuilding. */
    @FunctionalInterface
    public interface Decisions {
        void decided(Event input, Effects effects, boolean heldBack);
    }

    private final Core<S> core;
    private final S state;
    private final TimerQueue timers = new TimerQueue();
    /** Decided while rebuilding, not yet seen on the log, by event id, in decision order. */
    private final Map<String, Event> heldBack = new LinkedHashMap<>();

    private Instant lastNow = Instant.EPOCH;
    /** Read by callers on other threads (a poll decoded ahead of the lock); once true, true for good. */
    private volatile boolean live;

    public CoreHost(Core<S> core, boolean live) {
        this.core = core;
        this.state = core.newState();
        this.live = live;
    }

    public Core<S> core() {
        return core;
    }

    public S state() {
        return state;
    }

    public boolean isLive() {
        return live;
    }

    public boolean reads(String type) {
        return core.reads(type);
    }

    /** When the earliest timer falls due, if one is set. */
    public Optional<Instant> nextTimer() {
        return timers.next().map(Timer::at);
    }

    /**
     * One event of the log at {@code now}: the timers due by then fire first (while rebuilding this very event may be
     * one of their effects, as appended before, and must find it held back to drop it), then the core handles the event
     * if it reads its type.
     *
     * @throws RuntimeException what the core threw: the caller sends the event to its dead letters and goes on
     */
    public void handle(Event event, Instant now, Decisions out) {
        Instant at = advanceTo(now, out);
        heldBack.remove(event.id());
        if (core.reads(event.type())) {
            dispatch(event, core.handle(state, event, at), out);
        }
    }

    /** Moves time forward to {@code t} (never back), firing every timer due by then, in due order; the time now. */
    public Instant advanceTo(Instant t, Decisions out) {
        Instant now = t.isAfter(lastNow) ? t : lastNow;
        for (var due = timers.pollDue(now); due.isPresent(); due = timers.pollDue(now)) {
            Timer timer = due.get();
            Instant at = live ? now : timer.at();
            lastNow = at.isAfter(lastNow) ? at : lastNow;
            dispatch(null, core.fire(state, timer, lastNow), out);
        }
        lastNow = now;
        return now;
    }

    /**
     * Ends rebuilding: what was decided while rebuilding and never seen on the log, in decision order, for the caller
     * to append now. From here on decisions go out as they are made.
     */
    public List<Event> goLive() {
        List<Event> unseen = List.copyOf(heldBack.values());
        heldBack.clear();
        live = true;
        return unseen;
    }

    private void dispatch(Event input, Effects effects, Decisions out) {
        timers.apply(effects);
        if (!live) {
            effects.events().forEach(e -> heldBack.put(e.id(), e));
        }
        out.decided(input, effects, !live);
    }
}
