package io.podfall.model.core;

import io.podfall.model.event.Event;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** What a core decided in one step: events to append to the log, in order, and timers to set or cancel. */
public record Effects(List<Event> events, List<Timer> timers, List<TimerKey> cancelledTimers) {
    public static final Effects NONE = new Effects(List.of(), List.of(), List.of());

    public boolean isEmpty() {
        return events.isEmpty() && timers.isEmpty() && cancelledTimers.isEmpty();
    }

    /** Effects of handling {@code cause}. */
    public static Builder of(Event cause, Instant now) {
        return new Builder(cause.asCause(), cause.id(), now, cause.time());
    }

    /** Effects of a timer that fired: they continue the flow of the event that set it. */
    public static Builder of(Timer timer, Instant now) {
        return new Builder(
                timer.cause(), timer.cause().id() + "/timer/" + timer.key().id() + "@" + timer.at(), now, timer.at());
    }

    /**
     * Collects effects. Events get ids derived from the cause and their position, so handling the same input again
     * yields the same ids.
     */
    public static final class Builder {
        private final Event.Cause cause;
        private final String idSeed;
        private final Instant now;
        private final Instant causeTime;
        private final List<Event> events = new ArrayList<>();
        private final List<Timer> timers = new ArrayList<>();
        private final List<TimerKey> cancelled = new ArrayList<>();

        private Builder(Event.Cause cause, String idSeed, Instant now, Instant causeTime) {
            this.cause = cause;
            this.idSeed = idSeed;
            this.now = now;
            this.causeTime = causeTime;
        }

        public Builder emit(String source, String type, String subject, Object data) {
            events.add(Event.causedBy(cause, idSeed, events.size(), source, type, subject, now, data));
            return this;
        }

        /** {@link #emit} of data already written as JSON, which the event takes as it is. */
        public Builder emitJson(String source, String type, String subject, byte[] data) {
            events.add(Event.causedByJson(cause, idSeed, events.size(), source, type, subject, now, data));
            return this;
        }

        /**
         * A request that starts a flow of its own rather than continuing the cause's: a heartbeat a timer made due is
         * no consequence of the fact that set the timer. Its id must be derived from what makes it due (the node and
         * the due time, say), so that a rebuild recognises it.
         */
        public Builder request(String id, String source, String type, String subject, Object data) {
            events.add(Event.request(id, source, type, subject, now, null, data));
            return this;
        }

        /** Wake up at {@code at}, in the flow of this builder's cause. */
        public Builder timer(TimerKey key, Instant at) {
            timers.add(new Timer(key, at, cause));
            return this;
        }

        public Builder cancelTimer(TimerKey key) {
            cancelled.add(key);
            return this;
        }

        public Instant now() {
            return now;
        }

        /**
         * When what is being handled happened: the event's time on the log, or the timer's due time. Unlike
         * {@link #now()} (the time it is handled: later when read live, the same when the log is replayed), it is the
         * same live and in a rebuild, so a decision that stores a time should take this one.
         */
        public Instant causeTime() {
            return causeTime;
        }

        /**
         * The id of the event emitted last, to recognise the answer to it later (its causationId). A builder may be
         * shared by several controllers, so this is the only reliable way to learn it.
         */
        public String lastEventId() {
            if (events.isEmpty()) {
                throw new IllegalStateException("nothing emitted yet");
            }
            return events.get(events.size() - 1).id();
        }

        public Effects build() {
            return events.isEmpty() && timers.isEmpty() && cancelled.isEmpty()
                    ? NONE
                    : new Effects(List.copyOf(events), List.copyOf(timers), List.copyOf(cancelled));
        }
    }
}
