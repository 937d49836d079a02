package io.podfall.bench;

import io.podfall.broker.KafkaBroker;
import io.podfall.cli.launch.Suite;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Startup: the local suite as {@code podfall up} starts it, a broker and then the four services, to all healthy (each
 * service ready: it has read the log and caught up), several times, each in a fresh directory. The broker is started
 * first and given to the suite, so that its share and the services' can be told apart; {@code podfall up} does the same
 * in one call.
 */
final class StartupBench {
    private StartupBench() {}

    static Report run(RunOptions run, int runs) {
        Machine machine = Machine.now();
        Report report = new Report(
                "Startup",
                String.format(
                        Locale.ROOT,
                        "The local suite (a Kafka broker, then the four services, each a JVM of its own) to all healthy, %d times, "
                                + "each in a fresh directory; the harness's JVM is warm.",
                        runs),
                machine);
        Report.Table t = report.table("runs", "run", "broker ready", "services ready", "all healthy");
        List<Long> totals = new ArrayList<>();
        var json = report.figures().putArray("runs");
        for (int i = 1; i <= runs; i++) {
            Path dir = run.workDir.resolve("startup").toAbsolutePath();
            BenchSuite.deleteRecursively(dir);
            ProgressLines.say("startup: run %d of %d", i, runs);
            long t0 = System.nanoTime();
            try (KafkaBroker broker = KafkaBroker.at(dir.resolve("kafka"), 0).start(Duration.ofSeconds(120))) {
                long t1 = System.nanoTime();
                try (Suite ignored = Suite.start(
                        new Suite.Options(
                                run.project.toAbsolutePath(),
                                dir,
                                broker.bootstrapServers(),
                                0,
                                0,
                                0,
                                BenchSuite.TOPIC,
                                1,
                                Duration.ofSeconds(300)),
                        new Suite.Tuning(Map.of(), run.serviceJvmOptions))) {
                    long t2 = System.nanoTime();
                    totals.add((t2 - t0) / 1_000_000);
                    t.row(i, seconds(t1 - t0), seconds(t2 - t1), seconds(t2 - t0));
                    json.addObject()
                            .put("brokerSeconds", (t1 - t0) / 1e9)
                            .put("servicesSeconds", (t2 - t1) / 1e9)
                            .put("totalSeconds", (t2 - t0) / 1e9);
                }
            }
        }
        long median = totals.stream().sorted().toList().get((totals.size() - 1) / 2);
        report.figures().put("medianSeconds", median / 1e3);
        report.target("local start ≤ 15 s", seconds(median * 1_000_000) + " (median)", median <= 15_000);
        return report;
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }
}
