package io.podfall.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.podfall.cli.launch.ServiceProcess;
import io.podfall.cli.log.EventFile;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.kubelet.nodestatus.InitialNode;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
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
import java.util.Random;
import java.util.TreeMap;
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
 * runtime holds no sandbox and no IP, and {@code podfall check} finds no error.
 */
final class MassDeletionBench {
    static final String NAME = "bench";
    /** The pods a node takes (the kubelet's --max-pods): the scheduler leaves any more Pending. */
    static final int PODS_PER_NODE = InitialNode.MAX_PODS;

    private static final String NAMESPACE = "default";
    static final String DEPLOYMENTS = "/apis/apps/v1/namespaces/" + NAMESPACE + "/deployments";

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

    /**
     * Reads the log as it is appended, on the reader's thread: writes it to the file and sums up the deletion's flow
     * (every event whose correlation is the Deployment's DELETE) and everything appended from the DELETE on.
     */
    private static final class Tracker {
        private final Writer file;
        private final String deploymentSubject = Subjects.of(NAMESPACE, "deployments", NAME);
        private final Random sampling = new Random(1);
        volatile long windowStartMillis = Long.MAX_VALUE;
        String root;
        long events;
        long flowEvents;
        long flowBytes;
        long podsRemoved;
        long podsCreated;
        final Map<String, Long> flowTypes = new TreeMap<>();
        /** Per millisecond of CreateTime from the DELETE on: {events, bytes}. */
        final TreeMap<Long, long[]> window = new TreeMap<>();
        /** A uniform sample of the flow's records, the shapes the ceiling sends. */
        final List<ProducerRecord<String, byte[]>> sample = new ArrayList<>();

        Tracker(Writer file) {
            this.file = file;
        }

        synchronized void accept(TopicTap.Tapped t) {
            Event e = t.event();
            events++;
            try {
                EventFile.write(file, e);
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
            if (t.createTimeMillis() >= windowStartMillis) {
                long[] ms = window.computeIfAbsent(t.createTimeMillis(), k -> new long[2]);
                ms[0]++;
                ms[1] += t.bytes();
            }
            if (root == null
                    && t.createTimeMillis() >= windowStartMillis
                    && e.is(EventTypes.DELETION_REQUESTED)
                    && e.causationId() == null
                    && e.subject().equals(deploymentSubject)) {
                root = e.id();
            }
            if (root == null || !root.equals(e.correlationId())) {
                return;
            }
            flowEvents++;
            flowBytes += t.bytes();
            flowTypes.merge(e.type(), 1L, Long::sum);
            boolean pod = e.subject().startsWith("namespaces/" + NAMESPACE + "/pods/");
            if (pod && e.is(EventTypes.OBJECT_REMOVED)) {
                podsRemoved++;
            } else if (pod && e.is(EventTypes.CREATION_REQUESTED)) {
                podsCreated++;
            }
            // reservoir sampling: every record of the flow equally likely to be among the 1,000 kept
            if (sample.size() < 1000) {
                sample.add(copy(t));
            } else {
                long slot = (long) (sampling.nextDouble() * flowEvents);
                if (slot < 1000) {
                    sample.set((int) slot, copy(t));
                }
            }
        }

        private static ProducerRecord<String, byte[]> copy(TopicTap.Tapped t) {
            return new ProducerRecord<>(
                    "ignored",
                    null,
                    t.record().key(),
                    t.record().value(),
                    t.record().headers());
        }

        synchronized long[] windowUpTo(long endMillis) {
            long[] sum = new long[2];
            window.headMap(endMillis, true).values().forEach(ms -> {
                sum[0] += ms[0];
                sum[1] += ms[1];
            });
            return sum;
        }

        synchronized long podsRemoved() {
            return podsRemoved;
        }
    }

    List<Report> run() {
        Machine machine = Machine.now();
        Path log = logFile(run, workload);
        try (BenchSuite suite = BenchSuite.start(run, workload, nodes, timeScale, heapMb(replicas))) {
            Files.createDirectories(log.getParent());
            try (Writer file = Files.newBufferedWriter(log)) {
                Tracker tracker = new Tracker(file);
                try (TopicTap tap = new TopicTap(suite.bootstrap(), BenchSuite.TOPIC, tracker::accept)) {
                    return measure(machine, suite, tap, tracker, log);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<Report> measure(Machine machine, BenchSuite suite, TopicTap tap, Tracker tracker, Path log) {
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
        long watched = timed.watchedMicros();
        Map<String, Duration> cpuAfter = suite.cpu();
        double seconds = timed.seconds();
        ProgressLines.say("%s: the Deployment is gone %.1f s after its DELETE", workload, seconds);
        // housekeeping removes the sandboxes just after the pods, and the reader writes the whole log: both may lag
        long[] runtimeHeld = suite.awaitRuntimeEmpty(Duration.ofSeconds(60).plusMillis(2L * replicas));
        tap.awaitCaughtUp(Duration.ofSeconds(120).plusMillis(5L * replicas));
        long logAfter = BrokerLog.bytes(suite.bootstrap(), BenchSuite.TOPIC);
        Map<String, BenchSuite.Memory> after = suite.memory();

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
                machine);
        long[] window = tracker.windowUpTo(watched / 1000);
        double podsPerSecond = replicas / seconds;
        double eventsPerSecond = window[0] / seconds;
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
                            Report.num((double) (logAfter - logBefore) / replicas),
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
                    .put("brokerBytesPerPod", (double) (logAfter - logBefore) / replicas)
                    .put("windowEvents", window[0])
                    .put("eventsPerSecond", eventsPerSecond)
                    .put("creationSeconds", creationSeconds)
                    .put("suiteStartSeconds", suite.startSeconds)
                    .put("log", log.toString());
        }
        cpu(report, cpuBefore.get(), cpuAfter, seconds, window[0], machine.cpus());
        Responsiveness.report(report, "during the deletion", answers);
        memory(report, held, after);
        report.table(
                        "setup (not timed as part of the deletion)",
                        "suite start",
                        "replicas created and ready",
                        "log recorded")
                .row(String.format("%.1f s", suite.startSeconds), String.format("%.1f s", creationSeconds), log);
        if (warm != null) {
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

        if (workload.equals("p4")) {
            // Judged both ways: RSS summed as the issue words it, and PSS summed, the suite's own pages once each.
            long rssHeld =
                    held.values().stream().mapToLong(BenchSuite.Memory::rss).sum();
            long pssHeld =
                    held.values().stream().mapToLong(BenchSuite.Memory::pss).sum();
            String target = "whole suite ≤ 2 GB at " + String.format("%,d", replicas) + " pods, ";
            report.target(target + "RSS summed", Report.mb(rssHeld), rssHeld <= 2L << 30);
            report.target(target + "PSS summed (each shared page once)", Report.mb(pssHeld), pssHeld <= 2L << 30);
        } else {
            report.target(
                    "≥ 2,000 pods/s on 2 cores (this machine: " + machine.cpus() + ")",
                    Report.num(podsPerSecond),
                    podsPerSecond >= 2000);
        }
        checks(report, suite.api(), tracker, runtimeHeld, log);
        tap.check(report);

        List<Report> reports = new ArrayList<>(List.of(report));
        if (ceilingRecords != 0) {
            reports.add(ceiling(machine, suite, tracker, window[0], eventsPerSecond, report));
        }
        return reports;
    }

    /**
     * Where the machine's CPU went while the deletion ran, process by process: the live suite is CPU-bound, so this
     * says which part to make cheaper, more steadily than the wall time does on a shared machine.
     */
    private static void cpu(
            Report report,
            Map<String, Duration> before,
            Map<String, Duration> after,
            double seconds,
            long events,
            int cpus) {
        Report.Table t = report.table(
                "CPU from the request until the Deployment was gone (each process's user and " + "system time)",
                "process",
                "CPU",
                "of the machine",
                "per event of the window");
        var json = report.figures().putObject("cpuSeconds");
        double total = 0;
        for (var e : after.entrySet()) {
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

    private void checks(Report report, ApiClient api, Tracker tracker, long[] runtimeHeld, Path log) {
        // the whole namespace: the warm-up's Deployment too
        int podsLeft = api.get("/api/v1/namespaces/" + NAMESPACE + "/pods")
                .body()
                .path("items")
                .size();
        int setsLeft = api.get("/apis/apps/v1/namespaces/" + NAMESPACE + "/replicasets")
                .body()
                .path("items")
                .size();
        int deployment = api.get(DEPLOYMENTS + "/" + NAME).code();
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

    private Report ceiling(
            Machine machine, BenchSuite suite, Tracker tracker, long windowEvents, double eventsPerSecond, Report p2) {
        List<ProducerRecord<String, byte[]>> shapes;
        synchronized (tracker) {
            shapes = List.copyOf(tracker.sample);
        }
        long records = ceilingRecords > 0 ? ceilingRecords : Math.max(windowEvents, 10_000);
        ProgressLines.say("ceiling: %,d records of the deletion's shapes through the same broker", records);
        Ceiling.Result c = Ceiling.run(
                suite.bootstrap(), BrokerLog.partitions(suite.bootstrap(), BenchSuite.TOPIC), shapes, records, pings);
        Report report = CeilingReport.of(
                machine,
                "the same broker as P2, just after it, the services idle; records " + "sampled from P2's deletion",
                c);
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
    private record WarmUp(int replicas, double creationSeconds, double deletionSeconds) {}

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
        create(suite, workload, deployment(name, count));
    }

    /**
     * Creates the Deployment and waits until all its replicas are ready and up to date (a rollout done), within 2
     * minutes and 100 ms a replica.
     */
    static void create(BenchSuite suite, String workload, Deployment deployment) {
        String name = deployment.getMetadata().getName();
        ApiClient.Response r = suite.api().post(DEPLOYMENTS, deployment);
        if (r.code() != 201) {
            throw new IllegalStateException("create the Deployment " + name + ": " + r.code() + " " + r.body());
        }
        awaitRolledOut(suite, workload, name, deployment.getSpec().getReplicas());
    }

    static void awaitRolledOut(BenchSuite suite, String workload, String name, int count) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(120).plusMillis(100L * count));
        while (true) {
            suite.checkAlive();
            JsonNode status = suite.api().get(DEPLOYMENTS + "/" + name).body().path("status");
            int ready = status.path("readyReplicas").asInt();
            if (ready == count
                    && status.path("replicas").asInt() == count
                    && status.path("updatedReplicas").asInt() == count) {
                return;
            }
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException(
                        "only " + ready + " of " + count + " replicas of " + name + " ready by " + deadline);
            }
            ProgressLines.line("%s: %,d of %,d replicas of %s ready", workload, ready, count, name);
            Sleep.millis(500);
        }
    }

    /**
     * {@code kubectl delete deployment NAME --cascade=foreground}, timed from the request to the Deployment's DELETED
     * watch event; {@code justBefore} runs just before the request is sent.
     */
    private Timed delete(BenchSuite suite, String name, int count, Runnable justBefore, Supplier<String> progress) {
        String rv = suite.api()
                .get(DEPLOYMENTS + "/" + name)
                .body()
                .path("metadata")
                .path("resourceVersion")
                .asText();
        CompletableFuture<Long> gone = new CompletableFuture<>();
        try (WatchClient watch = new WatchClient(
                suite.http(),
                suite.server(),
                DEPLOYMENTS + "?fieldSelector=metadata.name%3D" + name + "&resourceVersion=" + rv,
                c -> {
                    if ("DELETED".equals(c.type())) {
                        gone.complete(c.receivedMicros());
                    }
                })) {
            justBefore.run();
            long sent = Clock.micros();
            ApiClient.Response deleted = suite.api()
                    .delete(
                            DEPLOYMENTS + "/" + name,
                            new DeleteOptionsBuilder()
                                    .withPropagationPolicy("Foreground")
                                    .build());
            if (deleted.code() != 200) {
                throw new IllegalStateException(
                        "delete the Deployment " + name + ": " + deleted.code() + " " + deleted.body());
            }
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

    /** A Deployment of nginx pods labelled {@code app=NAME}, in the bench's namespace. */
    static Deployment deployment(String name, int replicas) {
        Map<String, String> labels = Map.of("app", name);
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(NAMESPACE)
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withNewSelector()
                .withMatchLabels(labels)
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx:1.27")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }
}
