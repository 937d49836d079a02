package io.podfall.model.core;

import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The timers a core has set, by key, in the order they fall due (time, then the key's text: a total order, so two
 * timers due at the same instant always fire in the same order). Used by the Kafka adapter while it catches up with the
 * log and by anything that runs a core on a virtual clock.
 */
public final class TimerQueue {
    private static final Comparator<Timer> DUE_ORDER =
            Comparator.comparing(Timer::at).thenComparing(t -> t.key().id());

    private final Map<TimerKey, Timer> byKey = new HashMap<>();
    private final TreeSet<Timer> due = new TreeSet<>(DUE_ORDER);

    /** Applies the timer part of a step's effects: cancellations first, then new timers (replacing by key). */
    public void apply(Effects effects) {
        effects.cancelledTimers().forEach(this::cancel);
        effects.timers().forEach(this::set);
    }

    public void set(Timer timer) {
        cancel(timer.key());
        byKey.put(timer.key(), timer);
        due.add(timer);
    }

    public void cancel(TimerKey key) {
        Timer old = byKey.remove(key);
        if (old != null) {
            due.remove(old);
        }
    }

    /** Removes and returns the earliest timer due at or before {@code now}. */
    public Optional<Timer> pollDue(Instant now) {
        if (due.isEmpty() || due.first().at().isAfter(now)) {
            return Optional.empty();
        }
        Timer t = due.pollFirst();
        byKey.remove(t.key());
        return Optional.of(t);
    }

    public Optional<Timer> next() {
        return due.isEmpty() ? Optional.empty() : Optional.of(due.first());
    }

    /** Whether this very timer (not a later one with the same key) is still set. */
    public boolean isCurrent(Timer timer) {
        return timer.equals(byKey.get(timer.key()));
    }

    public int size() {
        return byKey.size();
    }
}
