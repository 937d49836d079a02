package io.podfall.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * P2's and P4's report of what a run measured: the deletion's figures and its flow by type, where the CPU went, the
 * services' answers, the memory held and after, the setup and the warm-up, and the target of the workload. The
 * correctness checks are the run's own ({@link MassDeletionBench}).
 */
final class MassDeletionReport {
    /**
     * What a run measured, for its report.
     *
     * @param warm the warm-up Deployment's creation and deletion (null: none, the deletion ran on a fresh suite)
     * @param held each process's memory with every replica ready
     * @param cpuBefore each process's CPU just before the DELETE
     * @param seconds from the DELETE to the Deployment's DELETED watch event
     * @param window what was appended from the DELETE until then: {events, record bytes}
     * @param brokerBytes the bytes the broker's log grew by over the deletion
     * @param after each process's memory after the deletion
     * @param log the recorded log's file
     */
    record Measured(
            Machine machine,
            MassDeletionBench.WarmUp warm,
            double suiteStartSeconds,
            double creationSeconds,
            Map<String, BenchSuite.Memory> held,
            Map<String, Duration> cpuBefore,
            Map<String, Duration> cpuAfter,
            Map<String, Responsiveness.Answers> answers,
            double seconds,
            long[] window,
            long brokerBytes,
            Map<String, BenchSuite.Memory> after,
            Path log) {
        double eventsPerSecond() {
            return window[0] / seconds;
        }
    }

    private final String workload;
    private final int replicas;
    private final int nodes;
    private final double timeScale;

    MassDeletionReport(String workload, int replicas, int nodes, double timeScale) {
        this.workload = workload;
        this.replicas = replicas;
        this.nodes = nodes;
        this.timeScale = timeScale;
    }

    Report of(Measured m, DeletionTracker tracker) {
        MassDeletionBench.WarmUp warm = m.warm();
        Report report = new Report(
                workload.equals("p4") ? "P4 memory" : "P2 mass deletion",
                String.format(
                        "A Deployment of %,d replicas over %,d nodes, deleted with --cascade=foreground and the default grace "
                                + "period (30 s; each process exits at once on SIGTERM); time-scale %s; %s.",
                        replicas,
                        nodes,
                        Report.num(timeScale),
                        warm == null
                                ? "on a fresh suite"
                                : String.format(
                                        "after a warm-up Deployment of %,d replicas created and deleted alike on the same suite",
                                        warm.replicas())),
                m.machine());
        deletion(report, m, tracker);
        cpu(report, m);
        Responsiveness.report(report, "during the deletion", m.answers());
        memory(report, m.held(), m.after());
        setup(report, m.suiteStartSeconds(), m.creationSeconds(), m.log());
        if (warm != null) {
            warmUp(report, warm);
        }
        target(report, m);
        return report;
    }

    /** The deletion's figures, and its flow by type. */
    private void deletion(Report report, Measured m, DeletionTracker tracker) {
        double seconds = m.seconds();
        double podsPerSecond = replicas / seconds;
        double eventsPerSecond = m.eventsPerSecond();
        synchronized (tracker) {
            report.table(
                            "mass deletion",
                            "replicas",
                            "nodes",
                            "request → Deployment gone",
                            "pods removed/s",
                            "events/pod",
                            "record bytes/pod",
                            "broker bytes/pod",
                            "events/s")
                    .row(
                            String.format("%,d", replicas),
                            String.format("%,d", nodes),
                            String.format("%.2f s", seconds),
                            Report.num(podsPerSecond),
                            Report.num((double) tracker.flowEvents / replicas),
                            Report.num((double) tracker.flowBytes / replicas),
                            Report.num((double) m.brokerBytes() / replicas),
                            Report.num(eventsPerSecond));
            Report.Table types = report.table(
                    "the deletion's events by type (its flow: every event correlated with the DELETE)",
                    "type",
                    "events",
                    "per pod");
            tracker.flowTypes.forEach(
                    (type, n) -> types.row(type, String.format("%,d", n), Report.num((double) n / replicas)));
            report.figures()
                    .put("replicas", replicas)
                    .put("nodes", nodes)
                    .put("timeScale", timeScale)
                    .put("deletionSeconds", seconds)
                    .put("podsPerSecond", podsPerSecond)
                    .put("flowEvents", tracker.flowEvents)
                    .put("eventsPerPod", (double) tracker.flowEvents / replicas)
                    .put("recordBytesPerPod", (double) tracker.flowBytes / replicas)
                    .put("brokerBytesPerPod", (double) m.brokerBytes() / replicas)
                    .put("windowEvents", m.window()[0])
                    .put("eventsPerSecond", eventsPerSecond)
                    .put("creationSeconds", m.creationSeconds())
                    .put("suiteStartSeconds", m.suiteStartSeconds())
                    .put("log", m.log().toString());
        }
    }

    /**
     * Where the machine's CPU went while the deletion ran, process by process: the live suite is CPU-bound, so this
     * says which part to make cheaper, more steadily than the wall time does on a shared machine.
     */
    private static void cpu(Report report, Measured m) {
        Map<String, Duration> before = m.cpuBefore();
        double seconds = m.seconds();
        long events = m.window()[0];
        int cpus = m.machine().cpus();
        Report.Table t = report.table(
                "CPU from the request until the Deployment was gone (each process's user and " + "system time)",
                "process",
                "CPU",
                "of the machine",
                "per event of the window");
        var json = report.figures().putObject("cpuSeconds");
        double total = 0;
        for (var e : m.cpuAfter().entrySet()) {
            double used = (e.getValue().toNanos() - before.get(e.getKey()).toNanos()) / 1e9;
            total += used;
            t.row(
                    e.getKey(),
                    String.format("%.1f s", used),
                    Report.pct(used / (seconds * cpus)),
                    String.format("%.0f µs", used * 1e6 / Math.max(events, 1)));
            json.put(e.getKey(), used);
        }
        t.row(
                "whole suite",
                String.format("%.1f s", total),
                Report.pct(total / (seconds * cpus)),
                String.format("%.0f µs", total * 1e6 / Math.max(events, 1)));
    }

    private void memory(Report report, Map<String, BenchSuite.Memory> held, Map<String, BenchSuite.Memory> after) {
        Report.Table t = report.table(
                "memory (RSS from /proc/PID/status, PSS from /proc/PID/smaps_rollup; a "
                        + "service's live heap: after a full collection, from its /q/metrics)",
                "process",
                "RSS, " + String.format("%,d pods held", replicas),
                "PSS",
                "live heap",
                "RSS after the deletion",
                "live heap",
                "peak RSS");
        var json = report.figures().putObject("memory");
        long[] sum = new long[4];
        held.forEach((name, h) -> {
            BenchSuite.Memory a = after.get(name);
            t.row(
                    name,
                    Report.mb(h.rss()),
                    Report.mb(h.pss()),
                    heap(h),
                    Report.mb(a.rss()),
                    heap(a),
                    Report.mb(a.peakRss()));
            json.putObject(name)
                    .put("heldRssBytes", h.rss())
                    .put("heldPssBytes", h.pss())
                    .put("heldLiveHeapBytes", h.liveHeap())
                    .put("afterRssBytes", a.rss())
                    .put("afterLiveHeapBytes", a.liveHeap())
                    .put("peakRssBytes", a.peakRss());
            sum[0] += h.rss();
            sum[1] += a.rss();
            sum[2] += a.peakRss();
            sum[3] += h.pss();
        });
        t.row(
                "whole suite",
                Report.mb(sum[0]),
                Report.mb(sum[3]),
                "",
                Report.mb(sum[1]),
                "",
                Report.mb(sum[2]) + " (sum of peaks)");
        report.figures()
                .put("suiteHeldRssBytes", sum[0])
                .put("suiteHeldPssBytes", sum[3])
                .put("suiteAfterRssBytes", sum[1]);
    }

    private static String heap(BenchSuite.Memory m) {
        return m.liveHeap() < 0 ? "" : Report.mb(m.liveHeap());
    }

    /** What came before the deletion, not timed as part of it. */
    private static void setup(Report report, double suiteStartSeconds, double creationSeconds, Path log) {
        report.table(
                        "setup (not timed as part of the deletion)",
                        "suite start",
                        "replicas created and ready",
                        "log recorded")
                .row(String.format("%.1f s", suiteStartSeconds), String.format("%.1f s", creationSeconds), log);
    }

    /** The warm-up Deployment's creation and deletion, reported apart. */
    private static void warmUp(Report report, MassDeletionBench.WarmUp warm) {
        report.table(
                        "warm-up (the JIT compilers at work; not measured)",
                        "replicas",
                        "created and ready",
                        "request → Deployment gone",
                        "pods removed/s")
                .row(
                        String.format("%,d", warm.replicas()),
                        String.format("%.1f s", warm.creationSeconds()),
                        String.format("%.2f s", warm.deletionSeconds()),
                        Report.num(warm.replicas() / warm.deletionSeconds()));
        report.figures()
                .putObject("warmup")
                .put("replicas", warm.replicas())
                .put("creationSeconds", warm.creationSeconds())
                .put("deletionSeconds", warm.deletionSeconds());
    }

    /** P4's memory target, P2's pods removed a second. */
    private void target(Report report, Measured m) {
        if (workload.equals("p4")) {
            // Judged both ways: RSS summed as the issue words it, and PSS summed, the suite's own pages once each.
            long rssHeld =
                    m.held().values().stream().mapToLong(BenchSuite.Memory::rss).sum();
            long pssHeld =
                    m.held().values().stream().mapToLong(BenchSuite.Memory::pss).sum();
            String target = "whole suite ≤ 2 GB at " + String.format("%,d", replicas) + " pods, ";
            report.target(target + "RSS summed", Report.mb(rssHeld), rssHeld <= 2L << 30);
            report.target(target + "PSS summed (each shared page once)", Report.mb(pssHeld), pssHeld <= 2L << 30);
        } else {
            double podsPerSecond = replicas / m.seconds();
            report.target(
                    "≥ 2,000 pods/s on 2 cores (this machine: " + m.machine().cpus() + ")",
                    Report.num(podsPerSecond),
                    podsPerSecond >= 2000);
        }
    }
}
