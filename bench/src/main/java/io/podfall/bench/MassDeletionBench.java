package io.podfall.bench;

import io.podfall.cli.launch.ServiceProcess;
import io.podfall.cli.log.EventFile;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.kubelet.nodestatus.InitialNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * P2 (mass deletion) and P4 (memory), one run: a Deployment of R replicas over N simulated nodes, each pod's process
 * exiting at once on SIGTERM; once every replica is ready, the memory of each process (held); then {@code kubectl
 * delete deployment --cascade=foreground}, timed from the request to the Deployment's DELETED watch event, with the
 * events and bytes the deletion appended; then the memory again (after). The whole log is recorded (for P3's replay)
 * and checked: the API lists no pod and no ReplicaSet, every replica's ObjectRemoved is in the deletion's flow, the
 * runtime holds no sandbox and no IP, and {@code podfall check} finds no error. The log is read by a
 * {@link DeletionTracker}, the figures reported by {@link MassDeletionReport}.
 */
final class MassDeletionBench {
    static final String NAME = "bench";
    /** The pods a node takes (the kubelet's --max-pods): the scheduler leaves any more Pending. */
    static final int PODS_PER_NODE = InitialNode.MAX_PODS;

    private final RunOptions run;
    private final String workload;
    private final int replicas;
    private final int nodes;
    private final double timeScale;
    private final long checkLogUpTo;
    private final long ceilingRecords;
    private final int pings;
    private final int warmup;

    /**
     * @param checkLogUpTo the largest log (events) {@code podfall check} reads back; it holds the whole log in memory
     * @param ceilingRecords records for the Kafka ceiling after the deletion, on the same broker (0: none; -1: as many
     *     as the deletion appended)
     * @param warmup replicas of the Deployment {@link #warmUp} creates and deletes first (0: none; -1: as many as
     *     {@code replicas})
     */
    MassDeletionBench(
            RunOptions run,
            String workload,
            int replicas,
            int nodes,
            double timeScale,
            long checkLogUpTo,
            long ceilingRecords,
            int pings,
            int warmup) {
        if ((replicas + nodes - 1) / nodes > PODS_PER_NODE) {
            throw new IllegalArgumentException(replicas + " replicas over " + nodes + " nodes is more than the "
                    + PODS_PER_NODE + " pods a node takes (the kubelet's --max-pods): give at least "
                    + (replicas + PODS_PER_NODE - 1) / PODS_PER_NODE + " nodes");
        }
        this.run = run;
        this.workload = workload;
        this.replicas = replicas;
        this.nodes = nodes;
        this.timeScale = timeScale;
        this.checkLogUpTo = checkLogUpTo;
        this.ceilingRecords = ceilingRecords;
        this.pings = pings;
        this.warmup = warmup < 0 ? replicas : warmup;
    }

    /**
     * The services' heap cap for {@code replicas} pods: the suite's 256 MB, and 40 KB a pod on top, about twice the
     * largest live heap a pod was seen to take in a service (the API server's, 20 KB a pod with 2,000 held).
     */
    static long heapMb(int replicas) {
        return ServiceProcess.HEAP_MB + replicas * 40L / 1024;
    }

    /** The recorded log of a run of this workload, for P3. */
    static Path logFile(RunOptions run, String workload) {
        return run.workDir.resolve(workload).resolve("events.jsonl");
    }

    List<Report> run() {
        Machine machine = Machine.now();
        Path log = logFile(run, workload);
        try (BenchSuite suite = BenchSuite.start(run, workload, nodes, timeScale, heapMb(replicas))) {
            Files.createDirectories(log.getParent());
            try (Writer file = Files.newBufferedWriter(log)) {
                DeletionTracker tracker = new DeletionTracker(file);
                try (TopicTap tap = new TopicTap(suite.bootstrap(), BenchSuite.TOPIC, tracker::accept)) {
                    return measure(machine, suite, tap, tracker, log);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<Report> measure(Machine machine, BenchSuite suite, TopicTap tap, DeletionTracker tracker, Path log) {
        WarmUp warm = warmup == 0 ? null : warmUp(suite);
        long created = System.nanoTime();
        create(suite, NAME, replicas);
        double creationSeconds = (System.nanoTime() - created) / 1e9;
        ProgressLines.say("%s: %,d replicas ready in %.1f s", workload, replicas, creationSeconds);
        Map<String, BenchSuite.Memory> held = suite.memory();
        long logBefore = BrokerLog.bytes(suite.bootstrap(), BenchSuite.TOPIC);

        AtomicReference<Map<String, Duration>> cpuBefore = new AtomicReference<>();
        Timed timed;
        Map<String, Responsiveness.Answers> answers;
        try (Responsiveness probes = new Responsiveness(suite.probeTargets())) {
            timed = delete(
                    suite,
                    NAME,
                    replicas,
                    () -> {
                        cpuBefore.set(suite.cpu());
                        tracker.windowStartMillis = Clock.micros() / 1000;
                    },
                    () -> String.format("%,d of %,d pods removed", tracker.podsRemoved(), replicas));
            answers = probes.stop();
        }
        Map<String, Duration> cpuAfter = suite.cpu();
        double seconds = timed.seconds();
        ProgressLines.say("%s: the Deployment is gone %.1f s after its DELETE", workload, seconds);
        // housekeeping removes the sandboxes just after the pods, and the reader writes the whole log: both may lag
        long[] runtimeHeld = suite.awaitRuntimeEmpty(Duration.ofSeconds(60).plusMillis(2L * replicas));
        tap.awaitCaughtUp(Duration.ofSeconds(120).plusMillis(5L * replicas));
        long logAfter = BrokerLog.bytes(suite.bootstrap(), BenchSuite.TOPIC);
        Map<String, BenchSuite.Memory> after = suite.memory();
        MassDeletionReport.Measured measured = new MassDeletionReport.Measured(
                machine,
                warm,
                suite.startSeconds,
                creationSeconds,
                held,
                cpuBefore.get(),
                cpuAfter,
                answers,
                seconds,
                tracker.windowUpTo(timed.watchedMicros() / 1000),
                logAfter - logBefore,
                after,
                log);
        Report report = new MassDeletionReport(workload, replicas, nodes, timeScale).of(measured, tracker);
        checks(report, suite.api(), tracker, runtimeHeld, log);
        tap.check(report);

        List<Report> reports = new ArrayList<>(List.of(report));
        if (ceilingRecords != 0) {
            reports.add(ceiling(suite, tracker, measured, report));
        }
        return reports;
    }

    private void checks(Report report, ApiClient api, DeletionTracker tracker, long[] runtimeHeld, Path log) {
        // the whole namespace: the warm-up's Deployment too
        int podsLeft = api.get("/api/v1/namespaces/" + Deployments.NAMESPACE + "/pods")
                .body()
                .path("items")
                .size();
        int setsLeft = api.get("/apis/apps/v1/namespaces/" + Deployments.NAMESPACE + "/replicasets")
                .body()
                .path("items")
                .size();
        int deployment = api.get(Deployments.PATH + "/" + NAME).code();
        report.check(
                "every pod gone",
                podsLeft == 0 && setsLeft == 0 && deployment == 404,
                podsLeft + " pods and " + setsLeft + " ReplicaSets listed, the Deployment answers " + deployment);
        long removed;
        long created;
        long events;
        synchronized (tracker) {
            removed = tracker.podsRemoved;
            created = tracker.podsCreated;
            events = tracker.events;
        }
        report.check(
                "every replica removed by the deletion",
                removed == replicas,
                removed + " pod ObjectRemoved in the DELETE's flow, of " + replicas);
        // replica_set.go syncReplicaSet: a ReplicaSet being deleted is not managed, so nothing replaces its pods
        report.check("no replacement created", created == 0, created + " pods created in the DELETE's flow");
        report.check(
                "no sandbox or pod IP left on the runtime",
                runtimeHeld[0] == 0 && runtimeHeld[1] == 0,
                "podfall_runtime_sandboxes " + runtimeHeld[0] + ", podfall_runtime_pod_ips " + runtimeHeld[1]);
        if (events <= checkLogUpTo) {
            LogCheck.add(report, EventFile.read(log).events());
        } else {
            ProgressLines.say(
                    "%s: the log's %,d events are more than --check-log-up-to %,d: podfall check skipped",
                    workload, events, checkLogUpTo);
        }
    }

    private Report ceiling(BenchSuite suite, DeletionTracker tracker, MassDeletionReport.Measured m, Report p2) {
        List<ProducerRecord<String, byte[]>> shapes;
        synchronized (tracker) {
            shapes = List.copyOf(tracker.sample);
        }
        long records = ceilingRecords > 0 ? ceilingRecords : Math.max(m.window()[0], 10_000);
        ProgressLines.say("ceiling: %,d records of the deletion's shapes through the same broker", records);
        Ceiling.Result c = Ceiling.run(
                suite.bootstrap(), BrokerLog.partitions(suite.bootstrap(), BenchSuite.TOPIC), shapes, records, pings);
        Report report = CeilingReport.of(
                m.machine(),
                "the same broker as P2, just after it, the services idle; records " + "sampled from P2's deletion",
                c);
        double eventsPerSecond = m.eventsPerSecond();
        double fraction = eventsPerSecond / c.recordsPerSecond();
        report.table("P2 against the ceiling", "P2 events/s", "ceiling records/s", "fraction")
                .row(Report.num(eventsPerSecond), Report.num(c.recordsPerSecond()), Report.pct(fraction));
        report.figures().put("p2EventsPerSecond", eventsPerSecond).put("fraction", fraction);
        p2.figures().put("ceilingFraction", fraction);
        p2.target("≥ 30 % of the Kafka ceiling", Report.pct(fraction), fraction >= 0.3);
        return report;
    }

    /** A Deployment's DELETE sent and its DELETED watch event, in µs of {@link Clock}. */
    private record Timed(long sentMicros, long watchedMicros) {
        double seconds() {
            return (watchedMicros - sentMicros) / 1e6;
        }
    }

    /** The warm-up Deployment's creation and deletion. */
    record WarmUp(int replicas, double creationSeconds, double deletionSeconds) {}

    /**
     * Creates and deletes another Deployment the same way first, and waits for the runtime to be empty again: over a
     * fresh suite's first deletion of 10,000 pods the services' JIT compilers took 40 to 50 % of their CPU (JFR's
     * ThreadCPULoad), and still 33 to 43 % after a warm-up of 2,000, a cost each process pays once, not what a deletion
     * costs a running cluster.
     */
    private WarmUp warmUp(BenchSuite suite) {
        String name = NAME + "-warmup";
        long created = System.nanoTime();
        create(suite, name, warmup);
        double creationSeconds = (System.nanoTime() - created) / 1e9;
        Timed timed = delete(suite, name, warmup, () -> {}, () -> "warm-up: waiting for " + name + " to be gone");
        suite.awaitRuntimeEmpty(Duration.ofSeconds(60).plusMillis(2L * warmup));
        ProgressLines.say(
                "%s: warm-up: %,d replicas created and ready in %.1f s, deleted in %.1f s",
                workload, warmup, creationSeconds, timed.seconds());
        return new WarmUp(warmup, creationSeconds, timed.seconds());
    }

    /** Creates the Deployment {@code name} of {@code count} replicas and waits until all are ready. */
    private void create(BenchSuite suite, String name, int count) {
        Deployments.create(suite, workload, Deployments.of(name, count));
    }

    /**
     * {@code kubectl delete deployment NAME --cascade=foreground}, timed from the request to the Deployment's DELETED
     * watch event; {@code justBefore} runs just before the request is sent.
     */
    private Timed delete(BenchSuite suite, String name, int count, Runnable justBefore, Supplier<String> progress) {
        String rv = suite.api()
                .get(Deployments.PATH + "/" + name)
                .body()
                .path("metadata")
                .path("resourceVersion")
                .asText();
        CompletableFuture<Long> gone = new CompletableFuture<>();
        try (WatchClient watch = new WatchClient(
                suite.http(),
                suite.server(),
                Deployments.PATH + "?fieldSelector=metadata.name%3D" + name + "&resourceVersion=" + rv,
                c -> {
                    if ("DELETED".equals(c.type())) {
                        gone.complete(c.receivedMicros());
                    }
                })) {
            justBefore.run();
            long sent = Clock.micros();
            Deployments.deleteForeground(suite.api(), name);
            Instant deadline = Instant.now().plus(Duration.ofSeconds(120).plusMillis(100L * count));
            while (true) {
                try {
                    return new Timed(sent, gone.get(1, TimeUnit.SECONDS));
                } catch (TimeoutException e) {
                    watch.check();
                    suite.checkAlive();
                    if (Instant.now().isAfter(deadline)) {
                        throw new IllegalStateException(
                                "the Deployment " + name + " was not gone by " + deadline + ": " + progress.get());
                    }
                    ProgressLines.line("%s: %s", workload, progress.get());
                } catch (ExecutionException e) {
                    throw new IllegalStateException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
    }
}
