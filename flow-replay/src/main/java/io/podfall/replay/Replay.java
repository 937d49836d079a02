package io.podfall.replay;

import io.podfall.model.event.Event;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A recorded log run again: the state before {@code since} rebuilt from the recording (as the services held it), the
 * recording's inputs from {@code since} to {@code until} re-injected into the engine, and the replayed events compared
 * with those recorded in that window.
 *
 * @param recorded the recorded events of the window, in log order
 * @param replayed the engine's log: what it appended from {@code since} on
 */
public record Replay(
        Recording recording,
        Instant since,
        Instant until,
        List<Event> recorded,
        List<Event> replayed,
        List<Divergences.Divergence> divergences) {
    /**
     * How far past the end of its recording a what-if runs at most, to let what the changed settings delayed happen.
     */
    public static final Duration WHAT_IF_HORIZON = Duration.ofHours(1);

    /** Replays all of {@code log}. */
    public static Replay of(List<Event> log, Duration tolerance) {
        return of(log, start(log), end(log), tolerance);
    }

    /**
     * Replays the window of {@code log} from the first event at or after {@code since} (what comes before is folded
     * into the cores' state) to {@code until}; a timing difference counts when it exceeds {@code tolerance}.
     */
    public static Replay of(List<Event> log, Instant since, Instant until, Duration tolerance) {
        return of(log, since, until, tolerance, Settings.NONE);
    }

    /**
     * A what-if: the window replayed with {@code settings} changed for every kubelet, from the start of the window on:
     * the state before it is rebuilt under them too, as a kubelet restarted with them would rebuild it. With no
     * {@code until} (null) it runs to the end of the recording and, when settings change, on past it for as long as the
     * flows begun by then go on, within {@link #WHAT_IF_HORIZON}: changed settings can put a step later than anything
     * recorded (a kill at 60 s where the recording's was at 5 s).
     */
    public static Replay of(List<Event> log, Instant since, Instant until, Duration tolerance, Settings settings) {
        return of(log, since, until, tolerance, settings, Latency.RECORDED);
    }

    /**
     * {@link #of(List, Instant, Instant, Duration, Settings)} with the events' delays to the log and to each service as
     * {@code latency} says ({@link Latencies}).
     */
    public static Replay of(
            List<Event> log, Instant since, Instant until, Duration tolerance, Settings settings, Latency latency) {
        return of(log, since, until, tolerance, settings, latency, e -> true);
    }

    /**
     * The replay of {@link #of(List, Instant, Instant, Duration, Settings, Latency)}, comparing only the replayed
     * events {@code compared} keeps.
     */
    private static Replay of(
            List<Event> log,
            Instant since,
            Instant until,
            Duration tolerance,
            Settings settings,
            Latency latency,
            Predicate<Event> compared) {
        int from = 0;
        while (from < log.size() && log.get(from).time().isBefore(since)) {
            from++;
        }
        Recording recording = Recording.of(log, from).with(settings);
        Engine engine = new Engine(recording.kubelets(), recording.controllerManager(), Latencies.of(log, latency));
        log.subList(0, from).forEach(engine::fold);
        engine.foldUntil(since.minusNanos(1));
        engine.goLive();
        engine.schedule(recording.inputs());
        if (until != null || settings.isEmpty()) {
            Instant to = until != null ? until : end(log);
            engine.runUntil(to);
            return of(
                    recording.noting(engine.skipped()),
                    since,
                    to,
                    log.subList(from, log.size()),
                    engine.log().stream().filter(compared).toList(),
                    tolerance);
        }
        engine.runUntil(end(log).plus(WHAT_IF_HORIZON));
        return of(
                recording.noting(engine.skipped()),
                since,
                end(log),
                log.subList(from, log.size()),
                pastTheEnd(engine.log(), end(log)).stream().filter(compared).toList(),
                tolerance);
    }

    /**
     * Replays a log as {@code podfall export} wrote it: all of a log, exactly as {@link #of(List, Instant, Instant,
     * Duration, Settings, Latency)}; or a slice of one, which begins with its {@link Snapshot}. A slice is folded from
     * its snapshot on and replayed from {@code since} or its first event, whichever is later; and only the replayed
     * events its selection would hold are compared, since the recording holds no others: the periodic work of its nodes
     * (Lease renewals, node status) and the flows of the namespaces it left out go on in the replay too.
     */
    public static Replay ofExport(
            List<Event> log, Instant since, Instant until, Duration tolerance, Settings settings, Latency latency) {
        int listed = Snapshot.length(log);
        Optional<Snapshot.Selection> selection = Snapshot.selection(log);
        if (listed == 0 || selection.isEmpty()) {
            return of(log, since, until, tolerance, settings, latency);
        }
        Instant from = listed < log.size() ? later(since, log.get(listed).time()) : since;
        return of(log, from, until, tolerance, settings, latency, selection.get());
    }

    /**
     * What a what-if appended up to the end of the recording, and after it only what continues the flows begun by then:
     * the periodic work that starts flows of its own (a kubelet renewing its node's Lease every 10 s) never ends, and
     * past the recording there is nothing to compare it with.
     */
    private static List<Event> pastTheEnd(List<Event> replayed, Instant end) {
        Set<String> flows = new HashSet<>();
        List<Event> kept = new ArrayList<>();
        for (Event e : replayed) {
            if (!e.time().isAfter(end)) {
                flows.add(e.correlationId());
                kept.add(e);
            } else if (flows.contains(e.correlationId())) {
                kept.add(e);
            }
        }
        return kept;
    }

    /** The replay of the recorded events of a window, which ends at {@code until} or at the last event replayed. */
    private static Replay of(
            Recording recording,
            Instant since,
            Instant until,
            List<Event> window,
            List<Event> replayed,
            Duration tolerance) {
        Instant to = later(until, end(replayed));
        List<Event> recorded =
                window.stream().filter(e -> !e.time().isAfter(to)).toList();
        return new Replay(recording, since, to, recorded, replayed, Divergences.between(recorded, replayed, tolerance));
    }

    /**
     * The earliest time of a log: where a replay of all of it starts. Not always its first event's: a service's event
     * can reach the log after another's decided later (a kubelet's registration of its nodes, say, after the API
     * server's first requests), and a replay from the first event's time would start that service late.
     */
    public static Instant start(List<Event> log) {
        return log.stream().map(Event::time).min(Instant::compareTo).orElse(Instant.EPOCH);
    }

    /** The time of the last event of a log: where a replay of all of it stops. */
    public static Instant end(List<Event> log) {
        return log.stream().map(Event::time).max(Instant::compareTo).orElse(Instant.EPOCH);
    }

    private static Instant later(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    /**
     * {@code sha256:<hex>} of the replayed log: every attribute and the data of each event, in log order. The engine is
     * deterministic (cores, ids, latencies from the recording), so the same file and options give the same digest on
     * any machine: two runs, or a run before and after a change that should change nothing, compare by it.
     */
    public String digest() {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
        for (Event e : replayed) {
            for (String attribute : new String[] {
                e.id(),
                e.source(),
                e.type(),
                e.subject(),
                e.time().toString(),
                e.correlationId(),
                String.valueOf(e.causationId()),
                e.traceparent()
            }) {
                sha.update(attribute.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
            }
            sha.update(e.dataJson());
            sha.update((byte) '\n');
        }
        return "sha256:" + HexFormat.of().formatHex(sha.digest());
    }

    /** Nothing MISSING, EXTRA or REORDERED, and no TIMING that changed an order ({@link Divergences}). */
    public boolean reproduces() {
        return divergences.stream().noneMatch(Divergences.Divergence::counts);
    }
}
