package io.podfall.cli.launch;

import io.podfall.broker.KafkaBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The whole suite on this machine: a Kafka broker (unless one is given) and the four services, each a process of its
 * own, as {@code podfall up} runs it and as the end-to-end tests drive it.
 */
public final class Suite implements AutoCloseable {
    /** The services in start order; each consumes the whole log, so the order only matters for readability. */
    public static final List<String> SERVICES =
            List.of("apiserver-svc", "controller-svc", "kubelet-svc", "runtime-svc");

    private final Options options;
    private final KafkaBroker ownBroker;
    private final String bootstrap;
    /** What every service is given: the broker, the topic, and one simulated clock. */
    private final Map<String, String> config = new LinkedHashMap<>();

    private final Map<String, ServiceProcess> services = new LinkedHashMap<>();
    private final List<String> jvmOptions;

    private Suite(Options options, Tuning tuning, KafkaBroker ownBroker, String bootstrap) {
        this.options = options;
        this.ownBroker = ownBroker;
        this.bootstrap = bootstrap;
        this.jvmOptions = tuning.jvmOptions();
        config.put("kafka.bootstrap.servers", bootstrap);
        config.put("podfall.topic", options.topic());
        config.put("podfall.time-scale", Double.toString(options.timeScale()));
        // Every service must agree on simulated time: one origin for the whole suite.
        config.put("podfall.time-origin", Instant.now().toString());
        // One kubelet with one node of a fixed name, whatever this machine is called.
        config.put("podfall.kubelet.nodes", "node-1");
        config.putAll(tuning.settings());
    }

    /** Settings of one run. {@code apiserverPort} 0 and {@code servicePortBase} 0 mean free ports. */
    public record Options(
            Path projectRoot,
            Path workDir,
            String bootstrap,
            int brokerPort,
            int apiserverPort,
            int servicePortBase,
            String topic,
            double timeScale,
            Duration startTimeout) {}

    /**
     * What a benchmark changes for every service: settings on top of the suite's ({@code podfall.kubelet.nodes}, say)
     * and JVM options after the defaults (a larger {@code -Xmx} wins over the default one).
     */
    public record Tuning(Map<String, String> settings, List<String> jvmOptions) {
        public static final Tuning NONE = new Tuning(Map.of(), List.of());
        /**
         * Kubelets that wait for nothing ({@code podfall.kubelet.timing=fast}): what the end-to-end tests and the
         * benchmarks run, so an order they assert is exact and a figure they measure is podfall's own, not upstream's
         * relist period.
         */
        public static final Tuning FAST_KUBELET = NONE.with(Map.of("podfall.kubelet.timing", "fast"));

        /** This tuning with more settings; a setting given here wins. */
        public Tuning with(Map<String, String> more) {
            Map<String, String> merged = new java.util.LinkedHashMap<>(settings);
            merged.putAll(more);
            return new Tuning(Map.copyOf(merged), jvmOptions);
        }
    }

    public static Suite start(Options o) {
        return start(o, Tuning.NONE);
    }

    public static Suite start(Options o, Tuning tuning) {
        KafkaBroker broker = null;
        String bootstrap = o.bootstrap();
        if (bootstrap == null) {
            broker =
                    KafkaBroker.at(o.workDir().resolve("kafka"), o.brokerPort()).start(o.startTimeout());
            bootstrap = broker.bootstrapServers();
        }
        Suite suite = new Suite(o, tuning, broker, bootstrap);
        try {
            Instant deadline = Instant.now().plus(o.startTimeout());
            for (int i = 0; i < SERVICES.size(); i++) {
                String name = SERVICES.get(i);
                int port = i == 0
                        ? portOr(o.apiserverPort())
                        : o.servicePortBase() == 0 ? KafkaBroker.freePort() : o.servicePortBase() + i - 1;
                suite.launch(name, port);
            }
            for (ServiceProcess s : suite.services.values()) {
                s.awaitReady(deadline);
            }
            return suite;
        } catch (RuntimeException e) {
            suite.close();
            throw e;
        }
    }

    /**
     * Stops a service and starts it again on the same port; returns once it is ready, that is once it has rebuilt its
     * state from the log.
     */
    public ServiceProcess restart(String name) {
        return restart(name, Map.of());
    }

    /**
     * Restarts a service with settings of its own on top of the suite's (a compatibility switch, say); a later
     * {@link #restart(String)} brings back the suite's settings.
     */
    public ServiceProcess restart(String name, Map<String, String> settings) {
        ServiceProcess old = services.get(name);
        old.stop();
        ServiceProcess fresh = launch(name, old.port(), settings);
        fresh.awaitReady(Instant.now().plus(options.startTimeout()));
        return fresh;
    }

    /**
     * Stops a service as a machine going down would (SIGTERM) and leaves it down: a kubelet's nodes then stop
     * heartbeating. {@link #restart} starts it again.
     */
    public void stop(String name) {
        services.get(name).stop();
    }

    private ServiceProcess launch(String name, int port) {
        return launch(name, port, Map.of());
    }

    private ServiceProcess launch(String name, int port, Map<String, String> settings) {
        Map<String, String> merged = new LinkedHashMap<>(config);
        merged.putAll(settings);
        ServiceProcess p = ServiceProcess.start(
                options.projectRoot(),
                name,
                port,
                merged,
                jvmOptions,
                options.workDir().resolve("logs"));
        services.put(name, p);
        return p;
    }

    public String bootstrapServers() {
        return bootstrap;
    }

    /** The instant from which the suite's simulated time runs faster ({@code podfall.time-origin}). */
    public String timeOrigin() {
        return config.get("podfall.time-origin");
    }

    public String apiserverUrl() {
        return "http://127.0.0.1:" + services.get("apiserver-svc").port();
    }

    /** The broker this suite started, if it started one (not with {@code bootstrap} given). */
    public Optional<KafkaBroker> ownBroker() {
        return Optional.ofNullable(ownBroker);
    }

    public List<ServiceProcess> services() {
        return new ArrayList<>(services.values());
    }

    public ServiceProcess service(String name) {
        return services.get(name);
    }

    /**
     * Stops the services all at once, then the broker if this suite started it. They share nothing but the log, so no
     * order matters; one after another, each taking 2.3 to 3 s to shut down, the suite took 11.7 s to stop.
     */
    @Override
    public void close() {
        services.values().forEach(ServiceProcess::signalStop);
        services.values().forEach(ServiceProcess::awaitStopped);
        if (ownBroker != null) {
            ownBroker.stop();
        }
    }

    private static int portOr(int port) {
        return port == 0 ? KafkaBroker.freePort() : port;
    }
}
