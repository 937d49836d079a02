package io.podfall.bench;

import io.podfall.broker.KafkaBroker;
import java.nio.file.Path;
import java.time.Duration;

/** The Kafka ceiling's figures as a report, whether measured after P2 or on a broker of its own. */
final class CeilingReport {
    private CeilingReport() {}

    static Report of(Machine machine, String how, Ceiling.Result c) {
        Report report = new Report(
                "Ceiling: raw Kafka produce → consume",
                "One producer and one consumer with the "
                        + "services' settings (acks=all, idempotence, linger.ms=0; fetch.min.bytes=1, max.poll.records=1000), "
                        + how + ".",
                machine);
        double mean = (double) c.bytes() / c.records();
        report.table("throughput", "records", "mean record", "records/s", "MB/s", "latency under load p50", "p99")
                .row(
                        String.format("%,d", c.records()),
                        Report.num(mean) + " B",
                        Report.num(c.recordsPerSecond()),
                        Report.num(c.megabytesPerSecond()),
                        Report.ms(c.loadedMillis().p50()),
                        Report.ms(c.loadedMillis().p99()));
        report.table("one record at a time (send → received)", "n", "p50", "p90", "p99", "max")
                .row(
                        c.idleMicros().n(),
                        Report.ms(c.idleMicros().p50() / 1e3),
                        Report.ms(c.idleMicros().p90() / 1e3),
                        Report.ms(c.idleMicros().p99() / 1e3),
                        Report.ms(c.idleMicros().max() / 1e3));
        report.figures()
                .put("records", c.records())
                .put("meanRecordBytes", mean)
                .put("recordsPerSecond", c.recordsPerSecond())
                .put("megabytesPerSecond", c.megabytesPerSecond())
                .put("loadedP50Ms", c.loadedMillis().p50())
                .put("loadedP99Ms", c.loadedMillis().p99())
                .put("idleP50Ms", c.idleMicros().p50() / 1e3)
                .put("idleP99Ms", c.idleMicros().p99() / 1e3);
        return report;
    }

    /** The ceiling on a broker of its own, records of {@code size} bytes of value. */
    static Report standalone(RunOptions run, long records, int size, int pings) {
        Machine machine = Machine.now();
        Path dir = run.workDir.resolve("ceiling").toAbsolutePath();
        BenchSuite.deleteRecursively(dir);
        ProgressLines.say("ceiling: starting a broker in %s", dir);
        try (KafkaBroker broker = KafkaBroker.at(dir.resolve("kafka"), 0).start(Duration.ofSeconds(120))) {
            ProgressLines.say("ceiling: %,d records", records);
            return of(
                    machine,
                    "a broker of its own (as podfall up starts it), records of a pod's ObjectRemoved shape with " + size
                            + " bytes of value",
                    Ceiling.run(broker.bootstrapServers(), 1, Ceiling.synthetic(size), records, pings));
        }
    }
}
