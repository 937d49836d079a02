package io.podfall.cli.launch;

import io.podfall.broker.KafkaBroker;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The whole suite on this machine: a Kafka broker (unless one is given) and the four services, each a process
 * of its own, as {@code podfall up} runs it and as the end-to-end tests drive it.
 */
public final class Suite implements AutoCloseable {
    /** The services in start order; each consumes the whole log, so the order only matters for readability. */
    public static final List<String> SERVICES = List.of("apiserver-svc", "controller-svc", "kubelet-svc", "runtime-svc");

    private final KafkaBroker ownBroker;
    private final String bootstrap;
    private final Map<String, ServiceProcess> services = new LinkedHashMap<>();

    private Suite(KafkaBroker ownBroker, String bootstrap) {
        this.ownBroker = ownBroker;
        this.bootstrap = bootstrap;
    }

    /** Settings of one run. {@code apiserverPort} 0 and {@code servicePortBase} 0 mean free ports. */
    public record Options(Path projectRoot, Path workDir, String bootstrap, int brokerPort, int apiserverPort,
                          int servicePortBase, String topic, double timeScale, Duration startTimeout) {
    }

    public static Suite start(Options o) {
        KafkaBroker broker = null;
        String bootstrap = o.bootstrap();
        if (bootstrap == null) {
            broker = KafkaBroker.at(o.workDir().resolve("kafka"), o.brokerPort()).start(o.startTimeout());
            bootstrap = broker.bootstrapServers();
        }
        Suite suite = new Suite(broker, bootstrap);
        try {
            Map<String, String> config = new LinkedHashMap<>();
            config.put("kafka.bootstrap.servers", bootstrap);
            config.put("podfall.topic", o.topic());
            config.put("podfall.time-scale", Double.toString(o.timeScale()));
            // Every service must agree on simulated time: one origin for the whole suite.
            config.put("podfall.time-origin", Instant.now().toString());
            Instant deadline = Instant.now().plus(o.startTimeout());
            for (int i = 0; i < SERVICES.size(); i++) {
                String name = SERVICES.get(i);
                int port = i == 0 ? portOr(o.apiserverPort()) : o.servicePortBase() == 0 ? KafkaBroker.freePort() : o.servicePortBase() + i - 1;
                suite.services.put(name, ServiceProcess.start(o.projectRoot(), name, port, config, o.workDir().resolve("logs")));
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

    public String bootstrapServers() {
        return bootstrap;
    }

    public String apiserverUrl() {
        return "http://127.0.0.1:" + services.get("apiserver-svc").port();
    }

    public List<ServiceProcess> services() {
        return new ArrayList<>(services.values());
    }

    public ServiceProcess service(String name) {
        return services.get(name);
    }

    /** Stops the services in reverse order, then the broker if this suite started it. */
    @Override
    public void close() {
        List<ServiceProcess> reverse = new ArrayList<>(services.values());
        java.util.Collections.reverse(reverse);
        reverse.forEach(ServiceProcess::stop);
        if (ownBroker != null) {
            ownBroker.stop();
        }
    }

    private static int portOr(int port) {
        return port == 0 ? KafkaBroker.freePort() : port;
    }
}
