package io.podfall.replay;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.traffic.RequestCounts;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** A replay as text: what was re-injected, then the divergences flow by flow, step by step, and the verdict. */
public final class ReplayReport {
    private ReplayReport() {}

    public static String text(Replay replay) {
        StringBuilder out = new StringBuilder(inputs(replay));
        Map<String, Event> byId = new LinkedHashMap<>();
        replay.replayed().forEach(e -> byId.putIfAbsent(e.id(), e));
        replay.recorded().forEach(e -> byId.put(e.id(), e));
        byFlow(replay).forEach((flow, found) -> {
            Event root = byId.get(flow);
            Instant start = root == null ? found.get(0).event().time() : root.time();
            out.append("flow ").append(flow);
            if (root != null) {
                out.append(": ")
                        .append(root.type())
                        .append(' ')
                        .append(root.subject())
                        .append(" at ")
                        .append(root.time());
            }
            out.append('\n');
            found.forEach(d -> out.append("  ").append(line(d, start)).append('\n'));
        });
        return out.append(verdict(replay)).toString();
    }

    /** What was re-injected, and the notes of the reading (what it could not use, the settings a what-if changed). */
    public static String inputs(Replay replay) {
        StringBuilder out = new StringBuilder();
        Recording r = replay.recording();
        long requests =
                r.inputs().stream().filter(i -> i instanceof Input.Request).count();
        out.append("inputs: ").append(requests).append(" client request").append(requests == 1 ? "" : "s");
        r.inputs().stream()
                .filter(i -> !(i instanceof Input.Request))
                .forEach(i -> out.append(", ").append(serviceInput(r, i)));
        out.append('\n');
        r.notes().forEach(n -> out.append("note: ").append(n).append('\n'));
        return out.toString();
    }

    /**
     * {@code reproduced: …} or {@code diverged: …}, with the window and what made it so, then the replayed log's
     * digest, as the last lines; before them, when the recording counted the clients' requests, the requests that
     * failed ({@link #requests}). The flows counted are the recording's and those only the replay has (an EXTRA
     * event's): a replayed flow that matches a recorded one under another id (a heartbeat due at another instant) is
     * that one.
     */
    public static String verdict(Replay replay) {
        long flows = Stream.concat(
                        replay.recorded().stream().map(Event::correlationId),
                        replay.divergences().stream().map(Divergences.Divergence::flow))
                .distinct()
                .count();
        String window = " from " + replay.since() + " to " + replay.until();
        long timing = replay.divergences().stream().filter(d -> !d.counts()).count();
        String late = timing == 0
                ? ""
                : " (" + timing + " TIMING beyond the tolerance, each in its recorded place "
                        + "among its flow's events: reported, not a divergence)";
        String head = replay.reproduces()
                ? "reproduced: no divergence in " + flows + " flows" + window + late
                : "diverged: " + counted(replay) + " in " + byFlow(replay).size() + " of " + flows + " flows" + window
                        + late;
        return requests(replay) + head + "\ndigest: " + replay.digest() + " of the "
                + replay.replayed().size() + " replayed events\n";
    }

    /**
     * {@code requests failed: recorded 42 (30 refused, 12 reset), replayed 0}: the clients' failed requests, summed
     * over the Services' counts ({@code traffic.RequestsCounted}) of the recorded window and of the replay, so a
     * what-if reads as the requests it saves or breaks; "" when the recording counted no request.
     */
    static String requests(Replay replay) {
        if (replay.recorded().stream().noneMatch(e -> e.is(EventTypes.REQUESTS_COUNTED))) {
            return "";
        }
        return "requests failed: recorded " + failed(replay.recorded()) + ", replayed " + failed(replay.replayed())
                + "\n";
    }

    /** {@code 42 (30 refused, 12 reset)}, or {@code 0}. */
    private static String failed(List<Event> log) {
        Map<String, Long> byReason = new TreeMap<>();
        log.stream()
                .filter(e -> e.is(EventTypes.REQUESTS_COUNTED))
                .map(e -> e.data(RequestCounts.class))
                .forEach(c -> c.failed().forEach((reason, n) -> byReason.merge(reason, n, Long::sum)));
        long total = byReason.values().stream().mapToLong(Long::longValue).sum();
        return total == 0
                ? "0"
                : total + " ("
                        + byReason.entrySet().stream()
                                .map(r -> r.getValue() + " " + r.getKey())
                                .collect(Collectors.joining(", "))
                        + ")";
    }

    /** {@code 3 MISSING, 1 TIMING that changed an order}: what made a replay diverge, by kind. */
    private static String counted(Replay replay) {
        Map<String, Long> byKind = replay.divergences().stream()
                .filter(Divergences.Divergence::counts)
                .collect(Collectors.groupingBy(
                        d -> d.kind() == Divergences.Kind.TIMING
                                ? "TIMING that changed an order"
                                : d.kind().name(),
                        LinkedHashMap::new,
                        Collectors.counting()));
        return byKind.entrySet().stream()
                .map(e -> e.getValue() + " " + e.getKey())
                .collect(Collectors.joining(", "));
    }

    private static Map<String, List<Divergences.Divergence>> byFlow(Replay replay) {
        return replay.divergences().stream()
                .collect(Collectors.groupingBy(Divergences.Divergence::flow, LinkedHashMap::new, Collectors.toList()));
    }

    /** A service's start or stop, as the report names it. */
    private static String serviceInput(Recording r, Input i) {
        if (i instanceof Input.KubeletStop k) {
            return "kubelet " + String.join(",", r.kubelets().get(k.kubelet()).nodes()) + " stopped at " + k.at();
        }
        return i instanceof Input.KubeletStart k
                ? "kubelet " + String.join(",", r.kubelets().get(k.kubelet()).nodes())
                        + Recording.describe(r.kubelets().get(k.kubelet()).compat()) + " started at " + k.at()
                : "API server started at " + i.at();
    }

    /** {@code +5.002s MISSING runtime.ContainerSignalled namespaces/… from /runtime/node-1, after …; detail}. */
    static String line(Divergences.Divergence d, Instant flowStart) {
        Event e = d.event();
        StringBuilder out = new StringBuilder(String.format(
                        Locale.ROOT,
                        "%10s %-9s ",
                        "+" + Divergences.seconds(Duration.between(flowStart, e.time())),
                        d.kind()))
                .append(e.type())
                .append(' ')
                .append(e.subject())
                .append(" from ")
                .append(e.source());
        if (d.cause() != null) {
            out.append(", after ").append(d.cause().type());
        }
        if (!d.detail().isEmpty()) {
            out.append("; ").append(d.detail());
        }
        if (d.changedOrder()) {
            out.append("; out of its recorded place among its flow's events");
        }
        return out.toString();
    }
}
