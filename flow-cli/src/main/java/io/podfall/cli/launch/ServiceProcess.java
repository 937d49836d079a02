package io.podfall.cli.launch;

import io.podfall.broker.NativeMemory;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One podfall service, run from its packaged Quarkus app ({@code target/quarkus-app/quarkus-run.jar}) as a process. */
public final class ServiceProcess {
    /**
     * The AppCDS archive Quarkus writes beside the jar when it packages the app
     * ({@code quarkus.package.jar.appcds.enabled}, the root pom): the classes a start loads, already parsed and
     * verified.
     */
    static final String CLASS_DATA_ARCHIVE = "app-cds.jsa";
    /** Each service's heap, in MB: its cap, and so its start on any machine of 16 GB or more (1/64 of it). */
    public static final long HEAP_MB = 256;

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String name;
    private final int port;
    private final Path log;
    private final Process process;

    private ServiceProcess(String name, int port, Path log, Process process) {
        this.name = name;
        this.port = port;
        this.log = log;
        this.process = process;
    }

    static ServiceProcess start(
            Path projectRoot, String name, int port, Map<String, String> config, List<String> jvmOptions, Path logDir) {
        Path jar = projectRoot.resolve(name).resolve("target/quarkus-app/quarkus-run.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: build the suite first (./mvnw -B package -DskipTests)");
        }
        List<String> cmd = command(jar, port, config, jvmOptions);
        Path log = logDir.resolve(name + ".log");
        try {
            Files.createDirectories(logDir);
            // In the app's directory: the archive holds the class path of the build's training run, relative to it
            // ("quarkus-run.jar:lib/boot/…"), and JDK 17 maps it for that very class path only.
            Process p = NativeMemory.withFewArenas(new ProcessBuilder(cmd))
                    .directory(jar.getParent().toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            return new ServiceProcess(name, port, log, p);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    /**
     * The command that runs the service, in the jar's directory: a 256 MB heap and the serial collector, unless
     * {@code jvmOptions}, which come after, say otherwise ({@code -Xmx} wins as the later one; another collector
     * replaces the serial one, since the JVM refuses two); the native heap trimmed ({@link NativeMemory}); and the
     * classes from the app's archive where the build wrote one. A JVM other than the build's cannot map it: it says so
     * in one warning and loads the classes itself.
     */
    static List<String> command(Path jar, int port, Map<String, String> config, List<String> jvmOptions) {
        List<String> cmd = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + HEAP_MB + "m"));
        if (jvmOptions.stream().noneMatch(o -> o.startsWith("-XX:+Use") && o.endsWith("GC"))) {
            cmd.add("-XX:+UseSerialGC");
        }
        cmd.addAll(NativeMemory.jvmOptions());
        if (Files.isRegularFile(jar.resolveSibling(CLASS_DATA_ARCHIVE))) {
            cmd.add("-XX:SharedArchiveFile=" + CLASS_DATA_ARCHIVE);
        }
        cmd.add("-Dquarkus.http.port=" + port);
        cmd.addAll(jvmOptions);
        config.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.addAll(List.of("-jar", jar.getFileName().toString()));
        return cmd;
    }

    /** Waits until SmallRye Health reports the service ready (it has rebuilt its state from the log). */
    void awaitReady(Instant deadline) {
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/health/ready"))
                .timeout(Duration.ofSeconds(2))
                .build();
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with code " + process.exitValue() + "; see " + log);
            }
            try {
                if (HTTP.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            pause();
        }
        throw new IllegalStateException(name + " was not ready in time; see " + log);
    }

    public String name() {
        return name;
    }

    public int port() {
        return port;
    }

    public Path log() {
        return log;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /** SIGTERM, as a container stop would: Quarkus shuts down gracefully. */
    void stop() {
        signalStop();
        awaitStopped();
    }

    /** Sends the SIGTERM of {@link #stop} without waiting, so that several services shut down at once. */
    void signalStop() {
        process.destroy();
    }

    /** Waits for the process to exit after {@link #signalStop}, and kills it after 20 s. */
    void awaitStopped() {
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    /**
     * SIGKILL, as a crash would: no shutdown hook runs, nothing is flushed. Returns once the process is gone;
     * {@link Suite#restart} starts it again.
     */
    public void kill() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException(name + " did not die of SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void pause() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
