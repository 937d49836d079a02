package io.podfall.replay;

import io.podfall.model.event.Event;
import io.podfall.model.event.Ids;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * When, in a replay, each event reaches the log and each service reads it: what makes the replay's races resolve as the
 * recording's did ({@link Latency}).
 *
 * <p><b>What a recording says.</b> An event's time is when its service decided it; the log's order is when the broker
 * appended it. A service read an event when it decided its reaction to it: the time of the first event it emitted while
 * handling it (the one numbered 0 among the effects of that step: {@link Ids#derived}, seq 0; what a timer set by that
 * step emitted later is numbered from the timer's key instead, so it is not taken for a reaction). So an event was on
 * the log no earlier than the latest time of any event before it on the log, and no later than the first reaction to it
 * or to any event after it: its <i>append time</i> here is the earliest the bounds allow.
 *
 * <p><b>The rule.</b> A replayed event that the recording holds reaches the replayed log at its recorded delay from its
 * time to its append time, and ties go in the recording's order, so the replayed log keeps the recorded order. A
 * service reads it at the recorded delay from its append time to that service's reaction; where the service did not
 * react in the recording, or the recording lacks the event (a what-if, a divergence), at the model's delay: the median
 * of that service's recorded delays for events of that type, or for any type, or none. So a replay of an unchanged
 * recording decides every step at its recorded time (timers aside, which fire at their due time where live they rang a
 * moment later: what they decide carries the recorded time) and resolves every race as it went.
 *
 * <p><b>Which replayed event is which recorded one.</b> The one with its id (ids derive from causes), else the first
 * not yet matched among the recorded children of its cause's match with its source, type and subject (a timer's
 * effects: live it rang a little after its due time, which their ids are derived from).
 *
 * <p>Deterministic: no random source; the same recording and mode give the same delays.
 */
public final class Latencies {
    /** No delay anywhere: {@link Latency#ZERO}, and replays of inputs alone. */
    public static final Latencies ZERO = new Latencies(Latency.ZERO, List.of());

    /**
     * How many delays of a type the model needs before it takes their median for that type rather than the service's
     * over all types.
     */
    private static final int MIN_SAMPLES = 5;

    private final Latency mode;
    private final List<Event> recorded;
    private final Map<String, Integer> byId = new HashMap<>();
    /** Per recorded event, in epoch nanoseconds: when it reached the log (its append time, above). */
    private final long[] appendedAt;
    /** The recorded children of an event, by its id, in log order: for matching by structure. */
    private final Map<String, List<Integer>> children = new HashMap<>();
    /** Per recorded event (by position), the first event of each step in which a service handled it. */
    private final Map<Integer, List<Integer>> reactions = new HashMap<>();
    /** The model's samples: delays from append to reaction, by service kind and type, and by kind alone. */
    private final Map<String, List<Long>> byType = new HashMap<>();

    private final Map<String, List<Long>> byKind = new HashMap<>();

    private final BitSet matched = new BitSet();
    private final Map<String, Integer> matchOf = new HashMap<>();

    private Latencies(Latency mode, List<Event> recording) {
        this.mode = mode;
        this.recorded = recording;
        this.appendedAt = new long[recording.size()];
        for (int i = 0; i < recording.size(); i++) {
            byId.putIfAbsent(recording.get(i).id(), i);
        }
        long[] firstRead = new long[recording.size()];
        Arrays.fill(firstRead, Long.MAX_VALUE);
        for (int i = 0; i < recording.size(); i++) {
            Event e = recording.get(i);
            Integer cause = e.causationId() == null ? null : byId.get(e.causationId());
            if (cause != null) {
                children.computeIfAbsent(e.causationId(), k -> new ArrayList<>())
                        .add(i);
                if (e.id().equals(Ids.derived(e.causationId(), e.source(), 0))) {
                    reactions.computeIfAbsent(cause, k -> new ArrayList<>(1)).add(i);
                    firstRead[cause] = Math.min(firstRead[cause], nanos(e.time()));
                }
            }
        }
        // On the log after everything before it was decided, and before anything after it was read; within those
        // bounds, as early as can be. They cross only where services' clocks disagree: then its own time.
        long[] readAfter = new long[recording.size()];
        long earliest = Long.MAX_VALUE;
        for (int i = recording.size() - 1; i >= 0; i--) {
            earliest = Math.min(earliest, firstRead[i]);
            readAfter[i] = earliest;
        }
        long latest = Long.MIN_VALUE;
        for (int i = 0; i < recording.size(); i++) {
            long time = nanos(recording.get(i).time());
            latest = Math.max(latest, time);
            appendedAt[i] = Math.max(time, Math.min(latest, readAfter[i]));
        }
        reactions.forEach((cause, firsts) -> {
            for (int r : firsts) {
                long delay = Math.max(0, nanos(recording.get(r).time()) - appendedAt[cause]);
                String kind = kind(recording.get(r).source());
                byType.computeIfAbsent(kind + " " + recording.get(cause).type(), k -> new ArrayList<>())
                        .add(delay);
                byKind.computeIfAbsent(kind, k -> new ArrayList<>()).add(delay);
            }
        });
        byType.values().forEach(Collections::sort);
        byKind.values().forEach(Collections::sort);
    }

    /** The delays of a replay of {@code recording} in {@code mode}. Stateful: one per replay. */
    public static Latencies of(List<Event> recording, Latency mode) {
        return mode == Latency.ZERO ? ZERO : new Latencies(mode, recording);
    }

    /** A replayed event as it goes to the log, and when it gets there. */
    record Appended(Event event, Instant at) {}

    /**
     * A replayed event was decided ({@code byTimer}: by a timer that fell due): it is matched with the recorded one it
     * is, if any, and sent to the log at its recorded delay after its time.
     *
     * <p>A timer fires at its due time, where live it rang a moment later (under load, a good part of a second): what
     * it decided then carries the time it rang, and so do the deadlines others take from it (the runtime takes a
     * process's exit deadline from its StopContainerRequested's time, and the ids below the exit from that). So what
     * the very timer recorded decides (same id: ids name their timer's due time) carries the recorded time, when that
     * is later. A what-if's timer at another time keeps its own.
     */
    Appended decided(Event e, boolean byTimer) {
        Integer i = mode == Latency.ZERO ? null : match(e);
        if (i == null) {
            return new Appended(e, e.time());
        }
        matched.set(i);
        matchOf.put(e.id(), i);
        if (mode != Latency.RECORDED) {
            return new Appended(e, e.time());
        }
        Event r = recorded.get(i);
        Event stamped = byTimer && e.id().equals(r.id()) && r.time().isAfter(e.time()) ? e.at(r.time()) : e;
        return new Appended(stamped, stamped.time().plusNanos(appendedAt[i] - nanos(r.time())));
    }

    /** Whether events reach the log in the recording's order whatever the order they are decided in. */
    boolean keepsRecordedOrder() {
        return mode == Latency.RECORDED;
    }

    /**
     * Where a replayed event goes among those that reach the log at the same instant: its recorded position, or after
     * every recorded one.
     */
    int position(Event e) {
        Integer i = mode == Latency.RECORDED ? matchOf.get(e.id()) : null;
        return i == null ? Integer.MAX_VALUE : i;
    }

    /**
     * How one service reads the log: {@code kind} is the service's ({@link #kind}), {@code owns} says which sources are
     * its.
     */
    Reader reader(String kind, Predicate<String> owns) {
        return new Reader(kind, owns);
    }

    /** When one service reads each replayed event, after it reached the log. */
    final class Reader {
        private final String kind;
        private final Predicate<String> owns;
        /**
         * Per recorded event, in epoch nanoseconds: the service's first reaction to it or to any event after it on the
         * log. It read the event by then, since it reads the log in order.
         */
        private final long[] readBy;

        private Reader(String kind, Predicate<String> owns) {
            this.kind = kind;
            this.owns = owns;
            this.readBy = new long[mode == Latency.RECORDED ? recorded.size() : 0];
            long earliest = Long.MAX_VALUE;
            for (int i = readBy.length - 1; i >= 0; i--) {
                earliest = Math.min(earliest, reaction(i));
                readBy[i] = earliest;
            }
        }

        /**
         * The delay: as recorded where the service reacted to the event; else the model's, but no later than the
         * service's next recorded reaction (a service that hardly ever reacts to a type, such as the kubelet to a
         * Node's creation while it starts, gives the model one slow sample).
         */
        Duration read(Event e) {
            if (mode == Latency.ZERO) {
                return Duration.ZERO;
            }
            Integer i = mode == Latency.RECORDED ? matchOf.get(e.id()) : null;
            long model = model(e.type());
            if (i == null) {
                return Duration.ofNanos(model);
            }
            long reacted = reaction(i);
            long delay =
                    reacted != Long.MAX_VALUE ? reacted - appendedAt[i] : Math.min(model, readBy[i] - appendedAt[i]);
            return Duration.ofNanos(Math.max(0, delay));
        }

        /** When the service reacted to the recorded event at {@code i}, or {@link Long#MAX_VALUE}. */
        private long reaction(int i) {
            for (int r : reactions.getOrDefault(i, List.of())) {
                if (owns.test(recorded.get(r).source())) {
                    return nanos(recorded.get(r).time());
                }
            }
            return Long.MAX_VALUE;
        }

        /** The median of the service's recorded delays for the type, when the recording holds enough of them. */
        private long model(String type) {
            List<Long> ofType = byType.get(kind + " " + type);
            List<Long> any = byKind.getOrDefault(kind, List.of());
            return ofType != null && ofType.size() >= MIN_SAMPLES ? median(ofType) : any.isEmpty() ? 0 : median(any);
        }
    }

    /** The recorded event a replayed one is: by id, else by its place among its cause's children. */
    private Integer match(Event e) {
        Integer i = byId.get(e.id());
        if (i != null && !matched.get(i) && same(recorded.get(i), e)) {
            return i;
        }
        Integer cause = e.causationId() == null ? null : matchOf.get(e.causationId());
        if (cause == null) {
            return null;
        }
        for (int c : children.getOrDefault(recorded.get(cause).id(), List.of())) {
            if (!matched.get(c) && same(recorded.get(c), e)) {
                return c;
            }
        }
        return null;
    }

    /** The same step: an id says who decided it about what; a what-if may decide something else there. */
    private static boolean same(Event recorded, Event replayed) {
        return recorded.source().equals(replayed.source())
                && recorded.type().equals(replayed.type())
                && recorded.subject().equals(replayed.subject());
    }

    /**
     * The service a source belongs to: {@code apiserver}, {@code controller}, {@code kubelet} or {@code runtime}; or
     * {@code host}, a node's machine, which is no service (its facts are inputs, {@link Recording}).
     */
    static String kind(String source) {
        int end = source.indexOf('/', 1);
        String first = end < 0 ? source.substring(1) : source.substring(1, end);
        return switch (first) {
            case "apiserver", "controller", "kubelet", "host" -> first;
            default -> "runtime"; // the runtime service runs each node's CRI runtime, CNI and CSI plugins
        };
    }

    /** The median of sorted delays. */
    private static long median(List<Long> sorted) {
        return sorted.get((sorted.size() - 1) / 2);
    }

    private static long nanos(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }
}
