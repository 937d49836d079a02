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
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The suite as {@code podfall up} starts it (its own broker and the four services, each a process), with what a
 * workload needs on top: nodes {@code node-1} … {@code node-N} on the one kubelet, a time scale, JVM options for the
 * services, and the means to look at it from outside: the API, the processes' memory, the runtime's gauges.
 */
final class BenchSuite implements AutoCloseable {
    static final String TOPIC = "podfall.events";

    private final Suite suite;
    private final ApiClient api;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    final double startSeconds;

    private BenchSuite(Suite suite, double startSeconds) {
        this.suite = suite;
        this.api = new ApiClient(suite.apiserverUrl());
        this.startSeconds = startSeconds;
    }

    /**
     * Starts a broker and the services in a fresh {@code workDir}. At a time scale above 1 the nodes' heartbeats
     * (Lease renewals every quarter of the lease duration, in simulated time) are stretched by the same factor, and
     * the node lifecycle controller's grace period with them: a time scale there to make grace periods pass
     * quickly would otherwise multiply the heartbeats on the log by the scale, which no real cluster of that size
     * carries.
     */
    static BenchSuite start(RunOptions run, String workload, int nodes, double timeScale) {
        Path workDir = run.workDir.resolve(workload).toAbsolutePath();
        deleteRecursively(workDir);
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("podfall.kubelet.nodes", nodeNames(nodes));
        if (timeScale > 1) {
            settings.put("podfall.kubelet.node-lease-duration-seconds", Long.toString(Math.round(40 * timeScale)));
            settings.put("podfall.controller.node-monitor-grace-period-seconds", Long.toString(Math.round(50 * timeScale)));
        }
        Progress.say("%s: starting a broker and the four services (%d nodes, time-scale %s) in %s", workload, nodes,
                timeScale, workDir);
        long t0 = System.nanoTime();
        Suite suite = Suite.start(new Suite.Options(run.project.toAbsolutePath(), workDir, null, 0, 0, 0, TOPIC,
                timeScale, Duration.ofSeconds(300)), new Suite.Tuning(settings, run.serviceJvmOptions));
        double seconds = (System.nanoTime() - t0) / 1e9;
        Progress.say("%s: all healthy in %.1f s", workload, seconds);
        return new BenchSuite(suite, seconds);
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

    /** Fails, naming the log to read, if a service has exited (run out of memory, say). */
    void checkAlive() {
        for (ServiceProcess s : suite.services()) {
            if (!s.isAlive()) {
                throw new IllegalStateException(s.name() + " exited; see " + s.log());
            }
        }
    }

    /** Resident and peak resident memory (VmRSS, VmHWM) of each service and of the broker, in bytes. */
    Map<String, long[]> memory() {
        Map<String, long[]> out = new LinkedHashMap<>();
        for (ServiceProcess s : suite.services()) {
            out.put(s.name(), Rss.of(s.pid()));
        }
        suite.ownBroker().ifPresent(b -> out.put("broker", Rss.of(b.pid())));
        return out;
    }

    /** A gauge of the runtime, {@code podfall_runtime_sandboxes} say, from its {@code /q/metrics}. */
    long runtimeGauge(String name) {
        String metrics = get("http://127.0.0.1:" + suite.service("runtime-svc").port() + "/q/metrics");
        return metrics.lines().filter(l -> l.startsWith(name + " ") || l.startsWith(name + "{"))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .findFirst().orElseThrow(() -> new IllegalStateException("runtime-svc has no gauge " + name));
    }

    /**
     * Waits until the runtime holds no sandbox and no pod IP (the sandbox of a removed pod goes on housekeeping,
     * just after), for at most {@code timeout}; returns what it holds then.
     */
    long[] awaitRuntimeEmpty(Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        long[] held;
        do {
            held = new long[] {runtimeGauge("podfall_runtime_sandboxes"), runtimeGauge("podfall_runtime_pod_ips")};
            if (held[0] == 0 && held[1] == 0) {
                return held;
            }
            Sleep.millis(200);
        } while (Instant.now().isBefore(deadline));
        return held;
    }

    private String get(String url) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
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

    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear " + dir, e);
        }
    }
}
