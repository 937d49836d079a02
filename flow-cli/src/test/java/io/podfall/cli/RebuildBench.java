package io.podfall.cli;

import io.podfall.broker.KafkaBroker;
import io.podfall.cli.log.TopicWriter;
import io.podfall.model.event.Event;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A benchmark of how fast a service folds the log on a restart: a log of PODS pod deletions recorded by the engine
 * ({@link ReplayBench#of}) is written to a topic of a real broker, then each SERVICE given is started RUNS times from
 * its packaged Quarkus app on it, and the figures of its "Caught up with the log" line are printed: the records it
 * rebuilt from and the time from partition assignment to live (so the JVM's start is not counted). The later runs are
 * no faster: every run is a new JVM. {@code JFR=DIR} in the environment makes each run write a flight recording there.
 *
 * <p>{@code java -cp ... io.podfall.cli.RebuildBench PODS RUNS ROOT SERVICE...} (scripts/bench-rebuild runs it).
 */
public final class RebuildBench {
    private static final String TOPIC = "bench.events";
    private static final Pattern CAUGHT_UP =
            Pattern.compile("Caught up with the log: (\\d+) records in (\\d+) ms .*, CPU (\\d+) ms");

    private RebuildBench() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: RebuildBench PODS RUNS ROOT SERVICE...");
            System.exit(2);
        }
        int pods = Integer.parseInt(args[0]);
        int runs = Integer.parseInt(args[1]);
        Path root = Path.of(args[2]);
        List<Event> log = ReplayBench.of(pods);
        Path dir = Files.createDirectories(root.resolve("flow-cli/target/bench"));
        try (KafkaBroker broker =
                KafkaBroker.temporary("podfall-rebuild-bench-").start(Duration.ofSeconds(120))) {
            try (TopicWriter writer = new TopicWriter(broker.bootstrapServers(), TOPIC)) {
                writer.createTopicIfMissing();
                writer.append(log);
            }
            System.out.println("log: " + pods + " pods, " + log.size() + " events on " + TOPIC);
            for (int a = 3; a < args.length; a++) {
                for (int run = 1; run <= runs; run++) {
                    System.out.println(args[a] + " run " + run + ": "
                            + rebuild(root, args[a], broker.bootstrapServers(), dir.resolve(args[a] + "-" + run)));
                }
            }
        }
    }

    /** Starts the service, waits for its caught-up line, stops it; returns the line's figures. */
    private static String rebuild(Path root, String service, String bootstrap, Path out) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-Dquarkus.http.port=0",
                "-Dkafka.bootstrap.servers=" + bootstrap,
                "-Dpodfall.topic=" + TOPIC,
                "-Dpodfall.kubelet.nodes=" + nodes()));
        String jfr = System.getenv("JFR");
        if (jfr != null && !jfr.isEmpty()) {
            cmd.add("-XX:StartFlightRecording=filename=" + Path.of(jfr, out.getFileName() + ".jfr")
                    + ",settings=profile");
        }
        cmd.addAll(List.of(
                "-jar",
                root.resolve(service)
                        .resolve("target/quarkus-app/quarkus-run.jar")
                        .toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                lines.add(line);
                Matcher m = CAUGHT_UP.matcher(line);
                if (m.find()) {
                    long records = Long.parseLong(m.group(1));
                    long millis = Long.parseLong(m.group(2));
                    long cpu = Long.parseLong(m.group(3));
                    return String.format(
                            "%d records in %d ms: %d events/s; CPU %d ms: %d events per CPU second",
                            records,
                            millis,
                            records * 1000 / Math.max(1, millis),
                            cpu,
                            records * 1000 / Math.max(1, cpu));
                }
            }
            return "exited without catching up; see " + out + ".log";
        } finally {
            p.destroy();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
            }
            Files.write(Path.of(out + ".log"), lines);
        }
    }

    /** The nodes of the recorded log, for a kubelet to simulate. */
    private static String nodes() {
        List<String> nodes = new ArrayList<>();
        for (int n = 1; n <= ReplayBench.NODES; n++) {
            nodes.add("node-" + n);
        }
        return String.join(",", nodes);
    }
}
