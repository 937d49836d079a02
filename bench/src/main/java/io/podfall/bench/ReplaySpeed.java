package io.podfall.bench;

import io.podfall.cli.log.EventFile;
import io.podfall.model.event.Event;
import io.podfall.replay.Divergences;
import io.podfall.replay.Replay;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * P3, replay speed: a recorded log (P2's, by default) replayed in process by flow-replay's engine, as {@code podfall
 * replay} does (the recording's inputs re-injected, then compared with it), several times in one JVM (the first runs
 * warm it up): events replayed per second of wall time, and simulated time per wall time.
 */
final class ReplaySpeed {
    private ReplaySpeed() {}

    /** What a replay's speed is judged by (issue #31): events a second over P2's log, real time over an incident's. */
    enum Goal {
        EVENTS_PER_SECOND,
        REAL_TIME
    }

    static Report run(Path log, int runs, Duration tolerance, Goal goal) {
        Machine machine = Machine.now();
        if (!Files.isRegularFile(log)) {
            throw new IllegalStateException(
                    log + " is missing: run p2 first (it records its log there), or give --log");
        }
        ProgressLines.say("p3: reading %s", log);
        EventFile.Contents contents = EventFile.read(log);
        List<Event> recorded = contents.events();
        Report report = new Report(
                goal == Goal.REAL_TIME ? "P3 (b) replay of an incident" : "P3 (a) replay",
                String.format(
                        Locale.ROOT,
                        "%s (%,d events) replayed in process %d times in one JVM, compared with the recording at a tolerance of "
                                + "%s ms; events/s of wall time, and of the replaying thread's CPU time (which other load on the "
                                + "machine disturbs less).",
                        log,
                        recorded.size(),
                        runs,
                        tolerance.toMillis()),
                machine);
        Report.Table t = report.table(
                "runs (the first warm the JVM up)",
                "run",
                "events replayed",
                "wall",
                "events/s",
                "simulated / wall",
                "CPU",
                "events/CPU s",
                "divergences");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double best = 0;
        double fastest = 0;
        // the last run's divergences by kind: a run's Replay holds the whole log replayed, and two at once (P2's log
        // of 560,000 events, with its warm-up) outgrew a 10 GB heap
        Map<Divergences.Kind, Long> kinds = new TreeMap<>();
        long timingInPlace = 0;
        var runsJson = report.figures().putArray("runs");
        for (int run = 1; run <= runs; run++) {
            ProgressLines.say("p3: run %d of %d", run, runs);
            long cpu = threads.getCurrentThreadCpuTime();
            long start = System.nanoTime();
            Replay replay = Replay.of(recorded, tolerance);
            double wall = (System.nanoTime() - start) / 1e9;
            double cpuSeconds = (threads.getCurrentThreadCpuTime() - cpu) / 1e9;
            double simulated =
                    Duration.between(Replay.start(recorded), replay.until()).toNanos() / 1e9;
            double perSecond = replay.replayed().size() / wall;
            best = Math.max(best, perSecond);
            fastest = Math.max(fastest, simulated / wall);
            t.row(
                    run,
                    String.format("%,d", replay.replayed().size()),
                    String.format(Locale.ROOT, "%.2f s", wall),
                    Report.num(perSecond),
                    Report.num(simulated / wall) + "x",
                    String.format(Locale.ROOT, "%.2f s", cpuSeconds),
                    Report.num(replay.replayed().size() / cpuSeconds),
                    String.format("%,d", replay.divergences().size()));
            runsJson.addObject()
                    .put("replayed", replay.replayed().size())
                    .put("wallSeconds", wall)
                    .put("eventsPerSecond", perSecond)
                    .put("simulatedPerWall", simulated / wall)
                    .put("cpuSeconds", cpuSeconds)
                    .put("eventsPerCpuSecond", replay.replayed().size() / cpuSeconds)
                    .put("divergences", replay.divergences().size());
            kinds.clear();
            replay.divergences().stream()
                    .filter(Divergences.Divergence::counts)
                    .forEach(d -> kinds.merge(d.kind(), 1L, Long::sum));
            timingInPlace =
                    replay.divergences().stream().filter(d -> !d.counts()).count();
        }
        if (!kinds.isEmpty()) {
            Report.Table k = report.table("divergences of the last run from the recording, by kind", "kind", "count");
            kinds.forEach((kind, n) -> k.row(kind, String.format("%,d", n)));
        }
        report.figures()
                .put("events", recorded.size())
                .put("bestEventsPerSecond", best)
                .put("bestSimulatedPerWall", fastest)
                .put("timingInPlace", timingInPlace);
        if (goal == Goal.REAL_TIME) {
            report.target("≥ 1,000x real time (issue #31)", Report.num(fastest) + "x (best run)", fastest >= 1000);
        } else {
            report.target(
                    "≥ 250,000 events/s (issue #31; on the way to 1,000,000)",
                    Report.num(best) + " (best run)",
                    best >= 250_000);
        }
        report.check(
                "reproduced at the recorded latencies",
                kinds.isEmpty(),
                kinds.isEmpty()
                        ? "0 MISSING, 0 EXTRA, 0 REORDERED; " + String.format("%,d", timingInPlace)
                                + " TIMING beyond the " + "tolerance, each in its recorded place"
                        : "divergences, by kind, in the table above");
        report.check(
                "the log read whole",
                contents.unreadable() == 0,
                contents.unreadable() == 0
                        ? "every line an event"
                        : contents.unreadable() + " unreadable lines: " + contents.firstProblem());
        return report;
    }
}
