package io.podfall.replay;

import io.podfall.model.event.Event;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Where a replayed log departs from the recorded one, flow by flow, along the causal chains.
 *
 * <p>The two logs are compared as trees: an event's children are the events that name it as their cause, the roots are
 * the inputs. Two events correspond when their causes correspond and they have the same source, type and subject; among
 * the children of one cause from one source (what one component decided about it, in the order it decided) the order
 * must be the same. Across sources it need not: live, two services react to the same event independently and their
 * answers reach the log in either order, where the engine delivers to its cores in a fixed order; neither order is a
 * divergence. Ids are not compared: an event decided by a timer has an id derived from the timer's due time, which live
 * is a few milliseconds later.
 *
 * <p>Timing is compared hop by hop: the delay from an event's cause to the event, recorded against replayed (a
 * difference shows at the hop where it arises, not again at every later step). A delay off by more than
 * {@code tolerance} is reported; it {@link Divergence#counts counts} against the replay only where it changed an order:
 * where the event, among the events of its flow found in both logs, is not where it was in the recording: one recorded
 * before it was replayed after it, or one recorded after it before. An incident is a race; a step that came later but
 * still in its place among the others did not change its outcome.
 */
public final class Divergences {
    /** What went differently. */
    public enum Kind {
        /** Recorded, not replayed (nor anything it caused). */
        MISSING,
        /** Replayed, not recorded. */
        EXTRA,
        /** Both, but in another order among what one component decided about one cause. */
        REORDERED,
        /** Both, at delays from their causes that differ by more than the tolerance. */
        TIMING
    }

    /**
     * One divergence.
     *
     * @param recorded the recorded event, null when {@link Kind#EXTRA}
     * @param replayed the replayed event, null when {@link Kind#MISSING}
     * @param cause the event it reacts to (the recorded one, when there is one), null for an input
     * @param detail {@link Kind#MISSING}, {@link Kind#EXTRA}: how many events it caused in turn; {@link Kind#TIMING}:
     *     the two delays
     * @param changedOrder {@link Kind#TIMING}: whether the event left its recorded place among its flow's events
     */
    public record Divergence(
            Kind kind, Event recorded, Event replayed, Event cause, String detail, boolean changedOrder) {
        /** Whether it makes the replay one that did not reproduce its recording: all but a TIMING in its place. */
        public boolean counts() {
            return kind != Kind.TIMING || changedOrder;
        }

        /** The event the divergence is about: the recorded one, or the replayed one if it is extra. */
        public Event event() {
            return recorded != null ? recorded : replayed;
        }

        public String flow() {
            return event().correlationId();
        }
    }

    /** Above this many cells the alignment of two long sibling lists falls back to a greedy one. */
    private static final long MAX_ALIGNMENT_CELLS = 4_000_000;

    private Divergences() {}

    /** The divergences, in the order of the times of the events they are about. */
    public static List<Divergence> between(List<Event> recorded, List<Event> replayed, Duration tolerance) {
        CausalTree rec = new CausalTree(recorded);
        CausalTree rep = new CausalTree(replayed);
        List<Divergence> found = new ArrayList<>();
        Map<String, Event> replayedAs = new HashMap<>();
        Deque<Event[]> pairs = new ArrayDeque<>();
        pairs.push(new Event[] {null, null});
        while (!pairs.isEmpty()) {
            Event[] pair = pairs.pop();
            Event cause = pair[0];
            if (cause != null) {
                replayedAs.put(cause.id(), pair[1]);
            }
            Map<String, List<List<Event>>> bySource =
                    bySource(rec.children(pair[0]), rep.children(pair[1]), cause == null);
            for (List<List<Event>> siblings : bySource.values()) {
                List<Event> r = siblings.get(0);
                List<Event> p = siblings.get(1);
                boolean[] rMatched = new boolean[r.size()];
                boolean[] pMatched = new boolean[p.size()];
                for (int[] m : align(r, p, Divergences::key)) {
                    rMatched[m[0]] = pMatched[m[1]] = true;
                    matched(Kind.TIMING, r.get(m[0]), p.get(m[1]), pair, tolerance, found, pairs);
                }
                for (int i = 0; i < r.size(); i++) {
                    if (rMatched[i]) {
                        continue;
                    }
                    int j = firstUnmatched(p, pMatched, key(r.get(i)));
                    if (j >= 0) {
                        pMatched[j] = true;
                        matched(Kind.REORDERED, r.get(i), p.get(j), pair, tolerance, found, pairs);
                    } else {
                        found.add(new Divergence(Kind.MISSING, r.get(i), null, cause, caused(rec, r.get(i)), false));
                    }
                }
                for (int j = 0; j < p.size(); j++) {
                    if (!pMatched[j]) {
                        found.add(new Divergence(Kind.EXTRA, null, p.get(j), cause, caused(rep, p.get(j)), false));
                    }
                }
            }
        }
        found.sort(Comparator.comparing(d -> d.event().time()));
        return outOfPlace(found, replayedAs, recorded, replayed);
    }

    /**
     * The divergences with each TIMING marked where it changed an order: per flow, among the events found in both logs,
     * an event keeps its place when everything recorded before it was replayed before it, and everything after, after.
     */
    private static List<Divergence> outOfPlace(
            List<Divergence> found, Map<String, Event> replayedAs, List<Event> recorded, List<Event> replayed) {
        if (found.stream().noneMatch(d -> d.kind() == Kind.TIMING)) {
            return found;
        }
        Map<String, Integer> replayedAt = positions(replayed);
        Map<String, List<Event>> flows = new HashMap<>();
        for (Event r : recorded) {
            if (replayedAs.containsKey(r.id())) {
                flows.computeIfAbsent(r.correlationId(), k -> new ArrayList<>()).add(r);
            }
        }
        Set<String> kept = new HashSet<>();
        for (List<Event> flow : flows.values()) {
            int n = flow.size();
            int[] at = flow.stream()
                    .mapToInt(r -> replayedAt.get(replayedAs.get(r.id()).id()))
                    .toArray();
            int[] laterBefore = new int[n];
            int[] earlierAfter = new int[n];
            for (int i = 0, max = -1; i < n; max = Math.max(max, at[i]), i++) {
                laterBefore[i] = max;
            }
            for (int i = n - 1, min = Integer.MAX_VALUE; i >= 0; min = Math.min(min, at[i]), i--) {
                earlierAfter[i] = min;
            }
            for (int i = 0; i < n; i++) {
                if (laterBefore[i] < at[i] && at[i] < earlierAfter[i]) {
                    kept.add(flow.get(i).id());
                }
            }
        }
        List<Divergence> out = new ArrayList<>(found.size());
        for (Divergence d : found) {
            out.add(
                    d.kind() == Kind.TIMING && !kept.contains(d.recorded().id())
                            ? new Divergence(d.kind(), d.recorded(), d.replayed(), d.cause(), d.detail(), true)
                            : d);
        }
        return out;
    }

    /**
     * Two corresponding events: a reordering is one divergence, a delay beyond the tolerance another; either way their
     * children are compared next.
     */
    private static void matched(
            Kind kind,
            Event r,
            Event p,
            Event[] causes,
            Duration tolerance,
            List<Divergence> found,
            Deque<Event[]> pairs) {
        if (kind == Kind.REORDERED) {
            found.add(new Divergence(Kind.REORDERED, r, p, causes[0], "", false));
        }
        Duration recordedDelay = causes[0] == null ? Duration.ZERO : Duration.between(causes[0].time(), r.time());
        Duration replayedDelay =
                causes[1] == null ? Duration.between(r.time(), p.time()) : Duration.between(causes[1].time(), p.time());
        if (recordedDelay.minus(replayedDelay).abs().compareTo(tolerance) > 0) {
            found.add(new Divergence(
                    Kind.TIMING,
                    r,
                    p,
                    causes[0],
                    causes[0] == null
                            ? "recorded at " + r.time() + ", replayed at " + p.time()
                            : "recorded " + seconds(recordedDelay) + " after " + causes[0].type() + ", replayed "
                                    + seconds(replayedDelay),
                    false));
        }
        pairs.push(new Event[] {r, p});
    }

    /** Each event's first position in a log, by id. */
    private static Map<String, Integer> positions(List<Event> log) {
        Map<String, Integer> at = new HashMap<>();
        for (int i = 0; i < log.size(); i++) {
            at.putIfAbsent(log.get(i).id(), i);
        }
        return at;
    }

    private static String caused(CausalTree tree, Event e) {
        int n = tree.descendants(e);
        return n == 0 ? "" : "and " + n + " event" + (n == 1 ? "" : "s") + " it caused";
    }

    /**
     * {@code 5.002s}: how the reports write a simulated duration, to the millisecond, half up. Exact decimals, not
     * {@code String.format}: a replay at a tolerance under the live hops' writes one per TIMING divergence, and there
     * are hundreds of thousands.
     */
    public static String seconds(Duration d) {
        return BigDecimal.valueOf(d.toNanos(), 9)
                        .setScale(3, RoundingMode.HALF_UP)
                        .toPlainString() + "s";
    }

    /**
     * The children of both causes, split by source, each side in log order. The roots are split by the cause they name
     * off the log too: an answer to a request made before the window, carried over into it, was decided about that
     * request, not in any order with the window's client requests (live it came after the first of them, by the API
     * server's latency; the engine appends it as the window opens).
     */
    private static Map<String, List<List<Event>>> bySource(List<Event> recorded, List<Event> replayed, boolean roots) {
        Map<String, List<List<Event>>> out = new LinkedHashMap<>();
        for (Event e : recorded) {
            out.computeIfAbsent(group(e, roots), s -> List.of(new ArrayList<>(), new ArrayList<>()))
                    .get(0)
                    .add(e);
        }
        for (Event e : replayed) {
            out.computeIfAbsent(group(e, roots), s -> List.of(new ArrayList<>(), new ArrayList<>()))
                    .get(1)
                    .add(e);
        }
        return out;
    }

    private static String group(Event e, boolean root) {
        return root ? e.source() + " " + e.causationId() : e.source();
    }

    private static String key(Event e) {
        return e.type() + " " + e.subject();
    }

    private static int firstUnmatched(List<Event> events, boolean[] matched, String key) {
        for (int j = 0; j < events.size(); j++) {
            if (!matched[j] && key(events.get(j)).equals(key)) {
                return j;
            }
        }
        return -1;
    }

    /**
     * A longest common subsequence of two lists by {@code key}, as index pairs: the common prefix and suffix first (all
     * of it when nothing diverges), then the middle by dynamic programming, or greedily when the middle is too long for
     * that. Here the events one component decided about one cause, by type and subject; also the rows of two timelines
     * set side by side.
     */
    public static <T> List<int[]> align(List<T> a, List<T> b, Function<T, String> key) {
        List<String> ka = a.stream().map(key).toList();
        List<String> kb = b.stream().map(key).toList();
        List<int[]> out = new ArrayList<>();
        int start = 0;
        while (start < ka.size() && start < kb.size() && ka.get(start).equals(kb.get(start))) {
            out.add(new int[] {start, start});
            start++;
        }
        int endA = ka.size();
        int endB = kb.size();
        List<int[]> suffix = new ArrayList<>();
        while (endA > start && endB > start && ka.get(endA - 1).equals(kb.get(endB - 1))) {
            endA--;
            endB--;
            suffix.add(0, new int[] {endA, endB});
        }
        int n = endA - start;
        int m = endB - start;
        if ((long) n * m > MAX_ALIGNMENT_CELLS) {
            int j = start;
            for (int i = start; i < endA && j < endB; i++) {
                for (int k = j; k < endB; k++) {
                    if (ka.get(i).equals(kb.get(k))) {
                        out.add(new int[] {i, k});
                        j = k + 1;
                        break;
                    }
                }
            }
        } else if (n > 0 && m > 0) {
            int[][] len = new int[n + 1][m + 1];
            for (int i = n - 1; i >= 0; i--) {
                for (int j = m - 1; j >= 0; j--) {
                    len[i][j] = ka.get(start + i).equals(kb.get(start + j))
                            ? len[i + 1][j + 1] + 1
                            : Math.max(len[i + 1][j], len[i][j + 1]);
                }
            }
            for (int i = 0, j = 0; i < n && j < m; ) {
                if (ka.get(start + i).equals(kb.get(start + j))) {
                    out.add(new int[] {start + i++, start + j++});
                } else if (len[i + 1][j] >= len[i][j + 1]) {
                    i++;
                } else {
                    j++;
                }
            }
        }
        out.addAll(suffix);
        return out;
    }

    /** A log as a forest: each event under the event it names as its cause, or a root when that is not on the log. */
    private static final class CausalTree {
        private final Map<String, List<Event>> children = new HashMap<>();
        private final List<Event> roots = new ArrayList<>();

        CausalTree(List<Event> log) {
            Set<String> ids = new HashSet<>();
            List<Event> distinct = new ArrayList<>();
            for (Event e : log) {
                if (ids.add(e.id())) {
                    distinct.add(e);
                }
            }
            for (Event e : distinct) {
                if (e.causationId() != null && ids.contains(e.causationId())) {
                    children.computeIfAbsent(e.causationId(), k -> new ArrayList<>())
                            .add(e);
                } else {
                    roots.add(e);
                }
            }
        }

        /** The events {@code cause} caused, in log order; the roots for null. */
        List<Event> children(Event cause) {
            return cause == null ? roots : children.getOrDefault(cause.id(), List.of());
        }

        int descendants(Event e) {
            int n = 0;
            Deque<Event> todo = new ArrayDeque<>(children(e));
            while (!todo.isEmpty()) {
                n++;
                todo.addAll(children(todo.pop()));
            }
            return n;
        }
    }
}
