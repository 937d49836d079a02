package io.podfall.bench;

import io.podfall.cli.launch.ServiceProcess;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.scenario.ApiClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.common.utils.Utils;

/**
 * The suite as {@code podfall up} starts it (its own broker and the four services, each a process), with what a
 * workload needs on top: nodes {@code node-1} … {@code node-N} on the one kubelet, a time scale, JVM options for the
 * services, and the means to look at it from outside: the API, the processes' memory, the runtime's gauges.
 */
final class BenchSuite implements AutoCloseable {
    static final String TOPIC = "podfall.events";

    private final Suite suite;
    private final ApiClient api;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    final double startSeconds;

    private BenchSuite(Suite suite, double startSeconds) {
        this.suite = suite;
        this.api = new ApiClient(suite.apiserverUrl());
        this.startSeconds = startSeconds;
    }

    /**
     * Starts a broker and the services in a fresh {@code workDir}. At a time scale above 1 the nodes' heartbeats (Lease
     * renewals every quarter of the lease duration, in simulated time) are stretched by the same factor, and the node
     * lifecycle controller's grace period with them: a time scale there to make grace periods pass quickly would
     * otherwise multiply the heartbeats on the log by the scale, which no real cluster of that size carries.
     */
    static BenchSuite start(RunOptions run, String workload, int nodes, double timeScale) {
        return start(run, workload, nodes, timeScale, ServiceProcess.HEAP_MB);
    }

    /**
     * As {@link #start(RunOptions, String, int, double)}, each service's heap capped at {@code heapMb} unless
     * {@code --service-jvm-option} sets {@code -Xmx}: a cap only, the heap grows to what the service holds. It starts
     * at the suite's 256 MB, as under {@code podfall up} (whose cap it is; an {@code -Xms} among the options comes
     * later and wins): left unset, the JVM starts a heap under a higher cap at 1/64 of the machine's memory, and the
     * serial collector never shrinks its old generation below its start (HotSpot's
     * {@code TenuredGeneration::compute_new_size}), nor the young one below a ratio of the old, so the figures followed
     * the machine's RAM (24 GB: 365 MB a service).
     */
    static BenchSuite start(RunOptions run, String workload, int nodes, double timeScale, long heapMb) {
        Path workDir = run.workDir.resolve(workload).toAbsolutePath();
        deleteRecursively(workDir);
        if (run.jfr) {
            createDirectories(workDir.resolve("jfr"));
        }
        Map<String, String> settings = new LinkedHashMap<>(Suite.Tuning.FAST_KUBELET.settings());
        settings.put("podfall.kubelet.nodes", nodeNames(nodes));
        if (timeScale > 1) {
            settings.put("podfall.kubelet.node-lease-duration-seconds", Long.toString(Math.round(40 * timeScale)));
            settings.put(
                    "podfall.controller.node-monitor-grace-period-seconds", Long.toString(Math.round(50 * timeScale)));
        }
        ProgressLines.say(
                "%s: starting a broker and the four services (%d nodes, time-scale %s) in %s",
                workload, nodes, timeScale, workDir);
        List<String> jvm = withHeap(run.serviceJvmOptions(workDir), heapMb);
        long t0 = System.nanoTime();
        Suite suite = Suite.start(
                new Suite.Options(
                        run.project.toAbsolutePath(),
                        workDir,
                        null,
                        0,
                        0,
                        0,
                        TOPIC,
                        timeScale,
                        Duration.ofSeconds(300)),
                new Suite.Tuning(settings, jvm));
        double seconds = (System.nanoTime() - t0) / 1e9;
        ProgressLines.say("%s: all healthy in %.1f s", workload, seconds);
        return new BenchSuite(suite, seconds);
    }

    /**
     * The services' JVM options: the heap of {@link #start(RunOptions, String, int, double, long)} first, unless
     * {@code options} cap it themselves, then {@code options} (a later option wins).
     */
    static List<String> withHeap(List<String> options, long heapMb) {
        List<String> jvm = new ArrayList<>();
        if (options.stream().noneMatch(o -> o.startsWith("-Xmx"))) {
            jvm.addAll(List.of("-Xms" + Math.min(ServiceProcess.HEAP_MB, heapMb) + "m", "-Xmx" + heapMb + "m"));
        }
        jvm.addAll(options);
        return jvm;
    }

    static String nodeNames(int nodes) {
        return IntStream.rangeClosed(1, nodes).mapToObj(i -> "node-" + i).collect(Collectors.joining(","));
    }

    ApiClient api() {
        return api;
    }

    HttpClient http() {
        return http;
    }

    String server() {
        return suite.apiserverUrl();
    }

    String bootstrap() {
        return suite.bootstrapServers();
    }

    /**
     * What {@link Responsiveness} asks each service: the API server its version (kubectl's first call), the others
     * their liveness.
     */
    Map<String, URI> probeTargets() {
        Map<String, URI> out = new LinkedHashMap<>();
        suite.services()
                .forEach(s -> out.put(
                        s.name(),
                        URI.create("http://127.0.0.1:" + s.port()
                                + (s.name().equals("apiserver-svc") ? "/version" : "/q/health/live"))));
        return out;
    }

    /** Fails, naming the log to read, if a service has exited (run out of memory, say). */
    void checkAlive() {
        for (ServiceProcess s : suite.services()) {
            if (!s.isAlive()) {
                throw new IllegalStateException(s.name() + " exited; see " + s.log());
            }
        }
    }

    /**
     * A process's memory in bytes: resident now and at its peak, its proportional share of what is resident
     * ({@link Rss}), and (a service's) live Java heap, what its heap holds after a full collection, else -1.
     */
    record Memory(long rss, long peakRss, long pss, long liveHeap) {}

    /**
     * The memory of each service and of the broker: every process's RSS and PSS first, then each service's live heap (a
     * full collection, {@code jcmd PID GC.run}, then its {@code jvm_memory_used_bytes}), which may shrink its heap.
     */
    Map<String, Memory> memory() {
        Map<String, long[]> rss = new LinkedHashMap<>();
        suite.services().forEach(s -> rss.put(s.name(), Rss.of(s.pid())));
        suite.ownBroker().ifPresent(b -> rss.put("broker", Rss.of(b.pid())));
        Map<String, Memory> out = new LinkedHashMap<>();
        rss.forEach((name, r) -> {
            long live = -1;
            if (suite.service(name) != null) {
                fullGc(suite.service(name).pid());
                live = metric(name, "jvm_memory_used_bytes", "area=\"heap\"");
            }
            out.put(name, new Memory(r[0], r[1], r[2], live));
        });
        return out;
    }

    /** The CPU time each service and the broker has used so far (user and system, as the kernel counts it). */
    Map<String, Duration> cpu() {
        Map<String, Duration> out = new LinkedHashMap<>();
        suite.services().forEach(s -> out.put(s.name(), cpuOf(s.pid())));
        suite.ownBroker().ifPresent(b -> out.put("broker", cpuOf(b.pid())));
        return out;
    }

    private static Duration cpuOf(long pid) {
        return ProcessHandle.of(pid)
                .flatMap(p -> p.info().totalCpuDuration())
                .orElseThrow(() -> new IllegalStateException("no CPU time for process " + pid));
    }

    private static void fullGc(long pid) {
        try {
            Process jcmd = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "jcmd")
                                    .toString(),
                            Long.toString(pid),
                            "GC.run")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!jcmd.waitFor(60, TimeUnit.SECONDS) || jcmd.exitValue() != 0) {
                throw new IllegalStateException("jcmd " + pid + " GC.run failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run jcmd", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The sum of a metric's series on a service's {@code /q/metrics} whose labels contain {@code labels} (Prometheus
     * text: {@code name{labels} value}); fails if it has none.
     */
    long metric(String service, String name, String labels) {
        String metrics = get("http://127.0.0.1:" + suite.service(service).port() + "/q/metrics");
        List<String> series = metrics.lines()
                .filter(l -> l.startsWith(name + " ") || l.startsWith(name + "{"))
                .filter(l -> l.contains(labels))
                .toList();
        if (series.isEmpty()) {
            throw new IllegalStateException(service + " has no metric " + name + " with " + labels);
        }
        return (long) series.stream()
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }

    /**
     * Waits until the runtime holds no sandbox and no pod IP (the sandbox of a removed pod goes on housekeeping, just
     * after), for at most {@code timeout}; returns what it holds then.
     */
    long[] awaitRuntimeEmpty(Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        long[] held;
        do {
            held = new long[] {
                metric("runtime-svc", "podfall_runtime_sandboxes", ""),
                metric("runtime-svc", "podfall_runtime_pod_ips", "")
            };
            if (held[0] == 0 && held[1] == 0) {
                return held;
            }
            Sleep.millis(200);
        } while (Instant.now().isBefore(deadline));
        return held;
    }

    private String get(String url) {
        try {
            return http.send(
                            HttpRequest.newBuilder(URI.create(url))
                                    .timeout(Duration.ofSeconds(30))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        suite.close();
    }

    private static void createDirectories(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes a run's directory, if there is one, and all it holds. */
    static void deleteRecursively(Path dir) {
        try {
            Utils.delete(dir.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear " + dir, e);
        }
    }
}
