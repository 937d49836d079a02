package io.podfall.bench;

import io.podfall.cli.analysis.Stats;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * Whether the services answer HTTP while a workload loads them: one request to each every 100 ms, each on a fresh
 * connection (the API server's {@code GET /version}, the others' liveness probe), as every kubectl command and every
 * kubelet probe connects, timed from the connect to the answer's last byte. Vert.x deals each connection to one of a
 * service's event loops, and a loop held by other work answers late whatever is asked of it: the log's polls were
 * handled on one, once.
 */
final class Responsiveness implements AutoCloseable {
    static final Duration EVERY = Duration.ofMillis(100);
    private static final int TIMEOUT_MILLIS = 30_000;

    /** One service's answers: their times (µs, from the connect to the last byte) and the requests not answered 200. */
    record Answers(Stats.Summary micros, long overOneSecond, int failed) {}

    private final Map<String, Probe> probes = new LinkedHashMap<>();

    /** Starts probing each target at once. */
    Responsiveness(Map<String, URI> targets) {
        targets.forEach((name, uri) -> probes.put(name, new Probe(name, uri)));
        probes.values().forEach(Thread::start);
    }

    /** Stops probing (a request in flight is waited for, up to its timeout) and returns each target's answers. */
    Map<String, Answers> stop() {
        close();
        Map<String, Answers> out = new LinkedHashMap<>();
        probes.forEach((name, p) -> out.put(name, p.answers()));
        return out;
    }

    @Override
    public void close() {
        probes.values().forEach(p -> p.stopped = true);
        for (Probe p : probes.values()) {
            try {
                p.join(TIMEOUT_MILLIS + 1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** The answers as a table of {@code report} and its figures ({@code responsiveness}). */
    static void report(Report report, String when, Map<String, Answers> answers) {
        Report.Table t = report.table(
                "HTTP answers " + when + " (a request every " + EVERY.toMillis()
                        + " ms on a fresh connection: the API server's GET /version, the others' GET /q/health/live)",
                "process",
                "requests",
                "p50",
                "p99",
                "max",
                "over 1 s",
                "failed");
        var json = report.figures().putObject("responsiveness");
        answers.forEach((name, a) -> {
            Stats.Summary s = a.micros();
            t.row(
                    name,
                    String.format("%,d", s.n()),
                    Report.ms(s.p50() / 1e3),
                    Report.ms(s.p99() / 1e3),
                    Report.ms(s.max() / 1e3),
                    String.format("%,d", a.overOneSecond()),
                    String.format("%,d", a.failed()));
            json.putObject(name)
                    .put("n", s.n())
                    .put("p50Ms", s.p50() / 1e3)
                    .put("p99Ms", s.p99() / 1e3)
                    .put("maxMs", s.max() / 1e3)
                    .put("overOneSecond", a.overOneSecond())
                    .put("failed", a.failed());
        });
    }

    /** {@code GET uri} on a connection of its own, closed after the answer; an answer other than 200 fails. */
    static void get(URI uri) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            socket.getOutputStream()
                    .write(("GET " + uri.getRawPath() + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                                    + "\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            String status = new String(in.readNBytes("HTTP/1.1 200".length()), StandardCharsets.US_ASCII);
            in.transferTo(OutputStream.nullOutputStream());
            if (!status.endsWith(" 200")) {
                throw new IOException(uri + " answered " + status);
            }
        }
    }

    private static final class Probe extends Thread {
        private final URI uri;
        private final List<Long> micros = new ArrayList<>();
        private int failed;
        volatile boolean stopped;

        Probe(String name, URI uri) {
            super("responsiveness-" + name);
            setDaemon(true);
            this.uri = uri;
        }

        @Override
        public void run() {
            while (!stopped) {
                long start = System.nanoTime();
                try {
                    get(uri);
                    micros.add((System.nanoTime() - start) / 1_000);
                } catch (IOException e) {
                    failed++;
                }
                LockSupport.parkNanos(EVERY.toNanos() - (System.nanoTime() - start));
            }
        }

        /** Once the thread has ended (join: its writes are seen). */
        Answers answers() {
            return new Answers(
                    Stats.Summary.of(micros),
                    micros.stream().filter(us -> us > 1_000_000).count(),
                    failed);
        }
    }
}
