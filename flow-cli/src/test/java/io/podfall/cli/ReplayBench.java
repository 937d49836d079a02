package io.podfall.cli;

import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.cli.log.EventFile;
import io.podfall.kubelet.podworkers.Compat;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.replay.Engine;
import io.podfall.replay.Input;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A benchmark of {@code podfall replay}: a log recorded by the engine itself (so it replays with no divergence),
 * PODS pods on 10 nodes of one kubelet, created 50 ms apart, then deleted 50 ms apart with 5 s of grace (a pod in
 * four ignores SIGTERM and is killed, the others exit half a second after it), written to FILE, then replayed RUNS
 * times in this JVM by the command, each printing its figures and the CPU time the command took (which a loaded
 * machine disturbs less than the wall-clock time the figures are of): the first runs warm the JVM up.
 *
 * <p>{@code java -cp flow-cli/target/test-classes:flow-cli/target/flow-cli.jar:flow-cli/target/lib/*
 * io.podfall.cli.ReplayBench PODS RUNS FILE} (scripts/bench-replay runs it).
 */
public final class ReplayBench {
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    static final int NODES = 10;

    private ReplayBench() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: ReplayBench PODS RUNS FILE");
            System.exit(2);
        }
        int pods = Integer.parseInt(args[0]);
        List<Event> log = of(pods);
        try (Writer w = Files.newBufferedWriter(Path.of(args[2]))) {
            EventFile.write(w, log);
        }
        System.out.println("log: " + pods + " pods, " + log.size() + " events, " + args[2]);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (int run = 1; run <= Integer.parseInt(args[1]); run++) {
            StringWriter out = new StringWriter();
            long cpu = threads.getCurrentThreadCpuTime();
            Podfall.commandLine().setOut(new PrintWriter(out)).execute("replay", args[2]);
            double seconds = (threads.getCurrentThreadCpuTime() - cpu) / 1e9;
            // the CPU time of the whole command (reading the file too), which a loaded machine disturbs less
            System.out.printf(Locale.ROOT, "run %d: %s; command's CPU %.2f s%n", run,
                    out.toString().lines().findFirst().orElse(""), seconds);
        }
    }

    static List<Event> of(int pods) {
        List<String> nodes = new ArrayList<>();
        for (int n = 1; n <= NODES; n++) {
            nodes.add("node-" + n);
        }
        Engine engine = new Engine(List.of(new Engine.KubeletSettings(nodes, Compat.NONE)));
        List<Input> inputs = new ArrayList<>(List.of(new Input.ApiServerStart(T0), new Input.KubeletStart(0, T0)));
        List<Input> deletes = new ArrayList<>();
        Instant deletions = T0.plusMillis(1_000 + 50L * pods);
        for (int i = 0; i < pods; i++) {
            String name = "pod-" + i;
            PodBuilder pod = new PodBuilder().withNewMetadata().withName(name).withNamespace("default").endMetadata()
                    .withNewSpec().addNewContainer().withName("app").withImage("nginx").endContainer().endSpec();
            if (i % 4 == 0) {
                pod.editMetadata().addToAnnotations("podfall.io/on-sigterm", "ignore").endMetadata();
            } else {
                pod.editMetadata().addToAnnotations("podfall.io/exit-delay-seconds", "0.5").endMetadata();
            }
            inputs.add(request(2 * i + 1, T0.plusMillis(1_000 + 50L * i), EventTypes.CREATION_REQUESTED, name,
                    new CreationRequest("pods", "default", Json.tree(pod.build()))));
            deletes.add(request(2 * i + 2, deletions.plusMillis(50L * i), EventTypes.DELETION_REQUESTED, name,
                    new DeletionRequest("pods", "default", name, new DeleteOptionsBuilder().withGracePeriodSeconds(5L).build())));
        }
        engine.schedule(inputs);
        engine.schedule(deletes);
        engine.runUntil(deletions.plusMillis(50L * pods).plusSeconds(60));
        return engine.log();
    }

    private static Input request(int n, Instant at, String type, String pod, Object data) {
        return new Input.Request(Event.request(String.format("00000000-0000-4000-8000-%012d", n), "/apiserver", type,
                Subjects.of("default", "pods", pod), at, null, data));
    }
}
