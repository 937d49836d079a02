package io.podfall.cli.analysis;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Every pod deletion of a log, measured: how long the whole deletion and each of its phases took, how often a
 * container had to be killed, and how much of the requested grace period the containers got. Percentiles are
 * nearest-rank: the value at rank ceil(p/100 * n) of the sorted values, so every figure is one that occurred.
 */
public record Stats(int flows, int completed, int rejected, int killed, Map<String, Summary> durations) {

    /** Row names, in the order of the table. */
    public static final String TOTAL = "total (request -> removed)";
    public static final String TO_TERMINATING = "request -> terminating";
    public static final String TO_SIGTERM = "terminating -> SIGTERM";
    public static final String TO_EXIT = "SIGTERM -> exit";
    public static final String TO_SANDBOX_STOPPED = "exit -> sandbox stopped";
    public static final String TO_REMOVED = "sandbox stopped -> removed";
    public static final String GRACE_REQUESTED = "grace requested";
    public static final String GRACE_HONOURED = "grace honoured (SIGTERM -> exit/kill)";

    /** n values, in milliseconds. */
    public record Summary(int n, long p50, long p90, long p99, long max) {
        static Summary of(List<Long> values) {
            List<Long> sorted = values.stream().sorted().toList();
            return new Summary(sorted.size(), rank(sorted, 50), rank(sorted, 90), rank(sorted, 99),
                    sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1));
        }

        private static long rank(List<Long> sorted, int p) {
            return sorted.isEmpty() ? 0 : sorted.get((int) Math.ceil(p / 100.0 * sorted.size()) - 1);
        }
    }

    /** The phases, by row: what each measures of a deletion that was not rejected (empty: not measured). */
    private static final Map<String, Function<DeletionFlow, Optional<Duration>>> PHASES = new LinkedHashMap<>();

    static {
        PHASES.put(TOTAL, f -> span(Optional.of(f.request()), f.removed()));
        PHASES.put(TO_TERMINATING, f -> span(Optional.of(f.request()), f.first(EventTypes.OBJECT_MARKED_TERMINATING)));
        PHASES.put(TO_SIGTERM, f -> span(f.first(EventTypes.OBJECT_MARKED_TERMINATING), f.signal("SIGTERM")));
        PHASES.put(TO_EXIT, f -> span(f.signal("SIGTERM"), f.last(EventTypes.CONTAINER_EXITED)));
        PHASES.put(TO_SANDBOX_STOPPED, f -> span(f.last(EventTypes.CONTAINER_EXITED), f.first(EventTypes.SANDBOX_STOPPED)));
        PHASES.put(TO_REMOVED, f -> span(f.first(EventTypes.SANDBOX_STOPPED), f.removed()));
        PHASES.put(GRACE_REQUESTED, f -> f.requestedGraceSeconds().map(Duration::ofSeconds));
        PHASES.put(GRACE_HONOURED, DeletionFlow::honouredGrace);
    }

    /** The events the phases and counts read; a flow being collected keeps only these. */
    static final Set<String> MEASURED = Set.of(EventTypes.OBJECT_MARKED_TERMINATING, EventTypes.CONTAINER_SIGNALLED,
            EventTypes.CONTAINER_EXITED, EventTypes.SANDBOX_STOPPED, EventTypes.OBJECT_REMOVED,
            EventTypes.REQUEST_REJECTED);

    public static Stats of(List<Event> log) {
        Collector c = new Collector();
        log.forEach(c);
        return c.result();
    }

    /**
     * Stats of a log read one event at a time, in log order, without keeping the log: each deletion is folded
     * into a small accumulator (its request and the {@link #MEASURED} events of its correlation), measured and
     * dropped as soon as nothing can change its figures: once its request is rejected, or once the pod is gone
     * from the store (ObjectRemoved) and from its node (SandboxRemoved: no container or sandbox is left to
     * signal, exit or stop). What is kept for the end is one number per phase and deletion, for the percentiles.
     */
    public static final class Collector implements Consumer<Event> {
        private final Map<String, Open> open = new LinkedHashMap<>();
        private final Map<String, List<Long>> millis = new LinkedHashMap<>();
        private int flows;
        private int completed;
        private int rejected;
        private int killed;

        public Collector() {
            PHASES.keySet().forEach(row -> millis.put(row, new ArrayList<>()));
        }

        /** A deletion being collected: its request and measured events so far, and whether its sandbox is gone. */
        private static final class Open {
            final DeletionFlow flow;
            boolean sandboxRemoved;

            Open(Event request) {
                flow = new DeletionFlow(request, new ArrayList<>());
            }

            boolean done() {
                return flow.rejected() || sandboxRemoved && flow.removed().isPresent();
            }
        }

        @Override
        public void accept(Event e) {
            if (DeletionFlow.isRequest(e)) {
                open.put(e.id(), new Open(e));
                return;
            }
            Open o = open.get(e.correlationId());
            if (o == null) {
                return;
            }
            if (MEASURED.contains(e.type())) {
                o.flow.events().add(e);
            }
            o.sandboxRemoved |= e.is(EventTypes.SANDBOX_REMOVED);
            if (o.done()) {
                measure(o.flow);
                open.remove(e.correlationId());
            }
        }

        /** Deletions read but not yet measured: the memory a collector holds besides one number per phase. */
        public int open() {
            return open.size();
        }

        /** The figures of everything read so far; the deletions still open are measured as they stand. */
        public Stats result() {
            open.values().forEach(o -> measure(o.flow));
            open.clear();
            Map<String, Summary> d = new LinkedHashMap<>();
            millis.forEach((row, values) -> d.put(row, Summary.of(values)));
            return new Stats(flows, completed, rejected, killed, d);
        }

        private void measure(DeletionFlow f) {
            if (f.rejected()) {
                rejected++;
                return;
            }
            flows++;
            PHASES.forEach((row, phase) -> phase.apply(f).ifPresent(x -> millis.get(row).add(x.toMillis())));
            completed += f.removed().isPresent() ? 1 : 0;
            killed += f.signal("SIGKILL").isPresent() ? 1 : 0;
        }
    }

    /** The share of deletions (not rejected) in which a container got SIGKILL; 0 without deletions. */
    public double sigkillRate() {
        return flows == 0 ? 0 : (double) killed / flows;
    }

    private static Optional<Duration> span(Optional<Event> from, Optional<Event> to) {
        return from.isPresent() && to.isPresent() ? Optional.of(DeletionFlow.between(from.get(), to.get())) : Optional.empty();
    }

    public String render() {
        StringBuilder out = new StringBuilder();
        out.append(String.format("deletion flows: %d (completed %d, incomplete %d; rejected requests %d)%n",
                flows, completed, flows - completed, rejected));
        out.append(String.format("SIGKILL rate: %d/%d (%.1f%%)%n%n", killed, flows, 100 * sigkillRate()));
        int label = durations.keySet().stream().mapToInt(String::length).max().orElse(0);
        String row = "%-" + label + "s %5s %10s %10s %10s %10s%n";
        out.append(String.format(row, "in ms", "n", "p50", "p90", "p99", "max"));
        durations.forEach((name, s) -> out.append(String.format(row, name, s.n(),
                s.n() == 0 ? "-" : s.p50(), s.n() == 0 ? "-" : s.p90(), s.n() == 0 ? "-" : s.p99(),
                s.n() == 0 ? "-" : s.max())));
        return out.toString();
    }

    public ObjectNode json() {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("flows", flows);
        o.put("completed", completed);
        o.put("rejected", rejected);
        o.put("killed", killed);
        o.put("sigkillRate", sigkillRate());
        ObjectNode ms = o.putObject("millis");
        durations.forEach((name, s) -> ms.set(key(name), Json.tree(s)));
        return o;
    }

    /** JSON keys: the row names in camel case ("request -> terminating" is "requestToTerminating"). */
    static String key(String row) {
        String[] words = row.replaceAll("\\(.*\\)", "").replace("->", "to").trim().split("[^A-Za-z0-9]+");
        StringBuilder k = new StringBuilder(words[0].toLowerCase());
        for (int i = 1; i < words.length; i++) {
            k.append(Character.toUpperCase(words[i].charAt(0))).append(words[i].substring(1));
        }
        return k.toString();
    }
}
