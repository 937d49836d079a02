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

    public static Stats of(List<Event> log) {
        List<DeletionFlow> flows = DeletionFlow.all(log).stream().filter(f -> !f.rejected()).toList();
        int rejected = DeletionFlow.all(log).size() - flows.size();
        Map<String, Summary> d = new LinkedHashMap<>();
        d.put(TOTAL, measure(flows, f -> span(Optional.of(f.request()), f.removed())));
        d.put(TO_TERMINATING, measure(flows, f -> span(Optional.of(f.request()), f.first(EventTypes.OBJECT_MARKED_TERMINATING))));
        d.put(TO_SIGTERM, measure(flows, f -> span(f.first(EventTypes.OBJECT_MARKED_TERMINATING), f.signal("SIGTERM"))));
        d.put(TO_EXIT, measure(flows, f -> span(f.signal("SIGTERM"), f.last(EventTypes.CONTAINER_EXITED))));
        d.put(TO_SANDBOX_STOPPED, measure(flows, f -> span(f.last(EventTypes.CONTAINER_EXITED), f.first(EventTypes.SANDBOX_STOPPED))));
        d.put(TO_REMOVED, measure(flows, f -> span(f.first(EventTypes.SANDBOX_STOPPED), f.removed())));
        d.put(GRACE_REQUESTED, measure(flows, f -> f.requestedGraceSeconds().map(Duration::ofSeconds)));
        d.put(GRACE_HONOURED, measure(flows, DeletionFlow::honouredGrace));
        int completed = (int) flows.stream().filter(f -> f.removed().isPresent()).count();
        int killed = (int) flows.stream().filter(f -> f.signal("SIGKILL").isPresent()).count();
        return new Stats(flows.size(), completed, rejected, killed, d);
    }

    /** The share of deletions (not rejected) in which a container got SIGKILL; 0 without deletions. */
    public double sigkillRate() {
        return flows == 0 ? 0 : (double) killed / flows;
    }

    private static Summary measure(List<DeletionFlow> flows, Function<DeletionFlow, Optional<Duration>> phase) {
        List<Long> ms = new ArrayList<>();
        for (DeletionFlow f : flows) {
            phase.apply(f).ifPresent(x -> ms.add(x.toMillis()));
        }
        return Summary.of(ms);
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
