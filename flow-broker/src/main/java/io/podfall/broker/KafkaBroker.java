package io.podfall.broker;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Utils;

/**
 * A real Apache Kafka broker in KRaft mode, one node acting as broker and controller, in a JVM of its own started from
 * the Maven Central jars: what {@code podfall up} and every end-to-end test run where there is no Docker. The broker's
 * data and log stay in {@code dataDir}, so it can be stopped and started again on the same data (a broker restart). Its
 * classes come from the archive its first run wrote ({@link ClassDataArchive}).
 */
public final class KafkaBroker implements Broker {
    private static final String CLASSPATH_RESOURCE = "/META-INF/podfall/broker.classpath";

    private final Path dataDir;
    private final int port;
    private final int controllerPort;
    private Process process;
    private Optional<ClassDataArchive> classData = Optional.empty();
    private boolean deleteOnClose;

    private KafkaBroker(Path dataDir, int port, int controllerPort) {
        this.dataDir = dataDir;
        this.port = port;
        this.controllerPort = controllerPort;
    }

    /** A broker on {@code port} (0: a free one) keeping its data in {@code dataDir}; call {@link #start()}. */
    public static KafkaBroker at(Path dataDir, int port) {
        if (port != 0) {
            int controller;
            do {
                controller = freePort();
            } while (controller == port);
            return new KafkaBroker(dataDir, port, controller);
        }
        int[] ports = freePorts(2);
        return new KafkaBroker(dataDir, ports[0], ports[1]);
    }

    /**
     * A broker on a free port keeping its data in a new temporary directory named after {@code prefix}, which
     * {@link #close()} deletes: a test's broker, whose data nobody reads once the run is over (each such run left 20 to
     * 60 MB behind it in the temporary directory).
     */
    public static KafkaBroker temporary(String prefix) {
        try {
            KafkaBroker broker = at(Files.createTempDirectory(prefix), 0);
            broker.deleteOnClose = true;
            return broker;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Distinct free ports: every socket stays open until all are chosen, or two calls in a row may be handed the same
     * port (the broker's listener and its controller's then collide).
     */
    static int[] freePorts(int n) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0);
                s.setReuseAddress(true);
                sockets.add(s);
            }
            return sockets.stream().mapToInt(ServerSocket::getLocalPort).toArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket s : sockets) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing a listening socket we own does not fail in a way that matters here
                }
            }
        }
    }

    @Override
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public Path logFile() {
        return dataDir.resolve("broker.log");
    }

    /** Starts the broker and returns once it answers as a cluster member. */
    public KafkaBroker start(Duration timeout) {
        try {
            Files.createDirectories(dataDir);
            Path config = writeConfig();
            String classpath = classpath();
            classData = ClassDataArchive.of("kafka-broker", classpath, ClassDataArchive.userCacheDir());
            List<String> cmd = new ArrayList<>(List.of(javaBin(), "-Xms32m", "-Xmx512m", "-XX:+UseSerialGC"));
            cmd.addAll(NativeMemory.jvmOptions());
            classData.ifPresent(a -> cmd.addAll(a.jvmOptions()));
            cmd.addAll(List.of(
                    "-Djava.awt.headless=true",
                    "-cp",
                    classpath,
                    BrokerMain.class.getName(),
                    config.toString(),
                    clusterId()));
            process = NativeMemory.withFewArenas(new ProcessBuilder(cmd))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the Kafka broker", e);
        }
        awaitReady(timeout);
        return this;
    }

    /** The broker's process id, while it runs (for its memory, say). */
    public long pid() {
        if (process == null) {
            throw new IllegalStateException("the broker is not running");
        }
        return process.pid();
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** Stops the broker (SIGTERM, a controlled shutdown), waiting for it to exit. */
    public void stop() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (process.waitFor(30, TimeUnit.SECONDS)) {
                classData.ifPresent(ClassDataArchive::keep);
            } else {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        process = null;
    }

    /** Stops the broker; a {@link #temporary} one's data goes with it. */
    @Override
    public void close() {
        stop();
        if (deleteOnClose) {
            try {
                Utils.delete(dataDir.toFile());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete " + dataDir, e);
            }
        }
    }

    private void awaitReady(Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        Map<String, Object> conf = Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                2000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                2000);
        Exception last = null;
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "the Kafka broker exited with code " + process.exitValue() + "; see " + logFile());
            }
            try (Admin admin = Admin.create(conf)) {
                if (!admin.describeCluster().nodes().get(2, TimeUnit.SECONDS).isEmpty()) {
                    return;
                }
            } catch (Exception e) {
                last = e;
            }
            sleep(200);
        }
        stop();
        throw new IllegalStateException(
                "the Kafka broker did not start within " + timeout + "; see " + logFile(), last);
    }

    private Path writeConfig() throws IOException {
        Properties p = new Properties();
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", "1");
        p.setProperty("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("inter.broker.listener.name", "PLAINTEXT");
        p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.setProperty("log.dirs", dataDir.resolve("kraft").toString());
        p.setProperty("num.partitions", "1");
        // One node: every internal topic has one replica.
        p.setProperty("offsets.topic.replication.factor", "1");
        p.setProperty("transaction.state.log.replication.factor", "1");
        p.setProperty("transaction.state.log.min.isr", "1");
        p.setProperty("share.coordinator.state.topic.replication.factor", "1");
        p.setProperty("share.coordinator.state.topic.min.isr", "1");
        // A consumer group of one member need not wait for others to join.
        p.setProperty("group.initial.rebalance.delay.ms", "0");
        // The log cleaner allocates its dedupe buffer whole at start, 128 MB of heap by default: most of the
        // broker's live heap here. Its map holds one entry a distinct key, and the only compacted topics are the
        // internal ones, of a few keys each; 2 MiB, as Kafka's own embedded test clusters.
        p.setProperty("log.cleaner.dedupe.buffer.size", Integer.toString(2 * 1024 * 1024));
        Path file = dataDir.resolve("server.properties");
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(w, "written by podfall's KafkaBroker");
        }
        return file;
    }

    /** The KRaft cluster id, made once per data directory, so a restarted broker finds its own storage. */
    private String clusterId() throws IOException {
        Path file = dataDir.resolve("cluster.id");
        if (!Files.exists(file)) {
            Files.writeString(file, Uuid.randomUuid().toString());
        }
        return Files.readString(file).trim();
    }

    private static String classpath() throws IOException {
        try (InputStream in = KafkaBroker.class.getResourceAsStream(CLASSPATH_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(CLASSPATH_RESOURCE + " is missing: build flow-broker with Maven");
            }
            String deps = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            return ownLocation() + java.io.File.pathSeparator + deps;
        }
    }

    private static String ownLocation() {
        try {
            return Path.of(BrokerMain.class
                            .getProtectionDomain()
                            .getCodeSource()
                            .getLocation()
                            .toURI())
                    .toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** A port free on the loopback interface now (another process may take it before it is used). */
    public static int freePort() {
        return freePorts(1)[0];
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
