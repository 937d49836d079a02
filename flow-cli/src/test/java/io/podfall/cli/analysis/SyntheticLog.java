package io.podfall.cli.analysis;

import static io.podfall.cli.analysis.PodLog.data;

import io.podfall.cli.log.EventFile;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * A large log for stats at scale: many pod deletions, each with the 17 steps of the suite's (18 with a SIGKILL), across
 * 10 namespaces and 50 nodes, a deletion requested every 30 ms, so thousands overlap and their events interleave on the
 * log in time order as they would on the topic. Seeded, so the same arguments give the same file. Of the pods, 70 %
 * have the default grace period of 30 s, 20 % 5 s, 10 % 60 s; a process exits within 0-3 s of SIGTERM, except 1 pod in
 * 20 that ignores it and is killed when the grace period runs out; 1 request in 100 is rejected (NotFound). Written as
 * it is generated: only the deletions in progress are held.
 *
 * <p>{@code java -cp flow-cli/target/test-classes:flow-cli/target/flow-cli.jar:flow-cli/target/lib/*
 * io.podfall.cli.analysis.SyntheticLog PODS FILE} (scripts/bench-stats runs it).
 */
public final class SyntheticLog {
    static final long SPACING_MS = 30;

    /** What was written: the counts stats must find. */
    public record Written(long events, int deletions, int rejected, int killed) {}

    private SyntheticLog() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: SyntheticLog PODS FILE");
            System.exit(2);
        }
        Written w = write(Integer.parseInt(args[0]), Path.of(args[1]), 1);
        System.out.println(w.events());
    }

    public static Written write(int pods, Path file, long seed) throws IOException {
        Random random = new Random(seed);
        // pending events of the deletions in progress, by time, then in the order they were made
        PriorityQueue<Sequenced> pending = new PriorityQueue<>(
                Comparator.comparing((Sequenced s) -> s.event.time()).thenComparingLong(s -> s.seq));
        long seq = 0;
        long events = 0;
        int rejected = 0;
        int killed = 0;
        try (Writer out = Files.newBufferedWriter(file)) {
            for (int i = 0; i < pods; i++) {
                long start = 1_000 + i * SPACING_MS;
                // every event of a deletion is at or after its start, so whatever is earlier is final
                while (!pending.isEmpty() && pending.peek().event.time().isBefore(PodLog.at(start))) {
                    EventFile.write(out, pending.poll().event);
                    events++;
                }
                PodLog pod = new PodLog(
                        "team-" + i % 10, "web-" + i, "node-" + i % 50, "10.244." + i % 50 + "." + (2 + i / 50 % 250));
                int kind = random.nextInt(100);
                if (kind == 0) {
                    pod.delete(start, 30);
                    pod.then(
                            start + 2,
                            "/apiserver",
                            EventTypes.REQUEST_REJECTED,
                            data(
                                    "status",
                                    data("kind", "Status", "status", "Failure", "reason", "NotFound", "code", 404)));
                    rejected++;
                } else {
                    int g = random.nextInt(10);
                    long grace = g < 7 ? 30 : g < 9 ? 5 : 60;
                    boolean ignoresSigterm = kind <= 5;
                    pod.deleted(start, grace, random.nextInt(3_000), ignoresSigterm);
                    killed += ignoresSigterm ? 1 : 0;
                }
                for (Event e : pod.events) {
                    pending.add(new Sequenced(e, seq++));
                }
            }
            while (!pending.isEmpty()) {
                EventFile.write(out, pending.poll().event);
                events++;
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return new Written(events, pods - rejected, rejected, killed);
    }

    private record Sequenced(Event event, long seq) {}
}
