package io.podfall.cli;

import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.podfall.cli.log.EventFile;
import io.podfall.kubelet.podworkers.Compat;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import io.podfall.replay.Divergences;
import io.podfall.replay.Engine;
import io.podfall.replay.Input;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BooleanSupplier;

/**
 * A benchmark of {@code podfall replay} over a log recorded by the engine itself (so it replays with no divergence),
 * written to FILE, then replayed RUNS times in this JVM by the command, each printing its figures and the CPU time the
 * command took (which a loaded machine disturbs less than the wall-clock time the figures are of) and the memory it
 * allocated (which no load changes): the first runs warm the JVM up. Two scenarios:
 *
 * <ul>
 *   <li>{@code PODS RUNS FILE}: PODS pods on 10 nodes of one kubelet, created 50 ms apart, then deleted 50 ms apart
 *       with 5 s of grace (a pod in four ignores SIGTERM and is killed, the others exit half a second after it); the
 *       whole log is replayed.
 *   <li>{@code --deployment REPLICAS RUNS FILE}: a Deployment of REPLICAS pods over 100 nodes of one kubelet; once
 *       every pod runs, {@code kubectl delete deployment --cascade=foreground} (propagationPolicy Foreground), and the
 *       log ends when the Deployment is gone. Only the deletion is replayed ({@code --since} its request: what came
 *       before is folded into the cores' state), so "x real time" is the deletion's simulated span over the wall-clock
 *       time of its replay.
 * </ul>
 *
 * <p>{@code java -cp flow-cli/target/test-classes:flow-cli/target/flow-cli.jar:flow-cli/target/lib/*
 * io.podfall.cli.ReplayBench [--deployment] N RUNS FILE} (scripts/bench-replay runs it).
 */
public final class ReplayBench {
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    static final int NODES = 10;
    private static final int DEPLOYMENT_NODES = 100;
    private static final String DEPLOYMENT = "web";
    /**
     * How long a pod of the Deployment takes to exit once told to stop (nginx's graceful shutdown at SIGQUIT, draining
     * its connections). The engine takes no simulated time per hop, so this is most of the deletion's span.
     */
    private static final String EXIT_DELAY_SECONDS = "2";

    private ReplayBench() {}

    public static void main(String[] args) throws IOException {
        boolean deployment = args.length == 4 && args[0].equals("--deployment");
        if (args.length != 3 && !deployment) {
            System.err.println("usage: ReplayBench [--deployment] N RUNS FILE");
            System.exit(2);
        }
        int from = deployment ? 1 : 0;
        int n = Integer.parseInt(args[from]);
        int runs = Integer.parseInt(args[from + 1]);
        String file = args[from + 2];
        long recordingStarted = System.nanoTime();
        List<Event> log;
        List<String> replay;
        if (deployment) {
            Recorded recorded = deployment(n);
            log = recorded.log();
            replay = List.of("replay", file, "--since", recorded.deletion().toString());
            System.out.printf(
                    Locale.ROOT,
                    "log: a Deployment of %d pods on %d nodes, %d events, %s; recorded in %.1f s%n",
                    n,
                    DEPLOYMENT_NODES,
                    log.size(),
                    file,
                    (System.nanoTime() - recordingStarted) / 1e9);
            System.out.printf(
                    Locale.ROOT,
                    "deletion (--cascade=foreground): requested at %s, the Deployment gone %s later; "
                            + "%d events from the request on%n",
                    recorded.deletion(),
                    Divergences.seconds(recorded.span()),
                    log.stream()
                            .filter(e -> !e.time().isBefore(recorded.deletion()))
                            .count());
        } else {
            log = of(n);
            replay = List.of("replay", file);
            System.out.println("log: " + n + " pods, " + log.size() + " events, " + file);
        }
        try (Writer w = Files.newBufferedWriter(Path.of(file))) {
            EventFile.write(w, log);
        }
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int run = 1; run <= runs; run++) {
            StringWriter out = new StringWriter();
            long cpu = threads.getCurrentThreadCpuTime();
            long allocated = threads.getCurrentThreadAllocatedBytes();
            Podfall.commandLine().setOut(new PrintWriter(out)).execute(replay.toArray(String[]::new));
            double seconds = (threads.getCurrentThreadCpuTime() - cpu) / 1e9;
            List<String> lines = out.toString().lines().toList();
            // the figures (the first line), the verdict (the last: reproduced or diverged), and what the whole
            // command (reading the file too) cost: its CPU time, which a loaded machine disturbs less than the wall
            // clock, and the memory it allocated, which no load changes
            System.out.printf(
                    Locale.ROOT,
                    "run %d: %s; %s; command's CPU %.2f s, allocated %.0f MB%n",
                    run,
                    lines.get(0),
                    lines.get(lines.size() - 1).split(":")[0],
                    seconds,
                    (threads.getCurrentThreadAllocatedBytes() - allocated) / 1e6);
        }
    }

    static List<Event> of(int pods) {
        Engine engine = new Engine(List.of(new Engine.KubeletSettings(nodes(NODES), Compat.NONE)));
        List<Input> inputs = new ArrayList<>(List.of(new Input.ApiServerStart(T0), new Input.KubeletStart(0, T0)));
        List<Input> deletes = new ArrayList<>();
        Instant deletions = T0.plusMillis(1_000 + 50L * pods);
        for (int i = 0; i < pods; i++) {
            String name = "pod-" + i;
            PodBuilder pod = new PodBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace("default")
                    .endMetadata()
                    .withNewSpec()
                    .addNewContainer()
                    .withName("app")
                    .withImage("nginx")
                    .endContainer()
                    .endSpec();
            if (i % 4 == 0) {
                pod.editMetadata()
                        .addToAnnotations("podfall.io/on-sigterm", "ignore")
                        .endMetadata();
            } else {
                pod.editMetadata()
                        .addToAnnotations("podfall.io/exit-delay-seconds", "0.5")
                        .endMetadata();
            }
            inputs.add(request(
                    2 * i + 1,
                    T0.plusMillis(1_000 + 50L * i),
                    EventTypes.CREATION_REQUESTED,
                    "pods",
                    name,
                    new CreationRequest("pods", "default", Json.tree(pod.build()))));
            deletes.add(request(
                    2 * i + 2,
                    deletions.plusMillis(50L * i),
                    EventTypes.DELETION_REQUESTED,
                    "pods",
                    name,
                    new DeletionRequest(
                            "pods",
                            "default",
                            name,
                            new DeleteOptionsBuilder()
                                    .withGracePeriodSeconds(5L)
                                    .build())));
        }
        engine.schedule(inputs);
        engine.schedule(deletes);
        engine.runUntil(deletions.plusMillis(50L * pods).plusSeconds(60));
        return engine.log();
    }

    /**
     * A recorded Deployment deletion: the log, when the delete was requested and how long until the Deployment was
     * gone.
     */
    record Recorded(List<Event> log, Instant deletion, Duration span) {}

    /**
     * A Deployment of {@code replicas} pods (nginx, exiting {@value #EXIT_DELAY_SECONDS} s after its stop signal) over
     * {@value #DEPLOYMENT_NODES} nodes, created a second in; a second after every pod runs, its foreground deletion;
     * the log ends when the Deployment is gone.
     */
    static Recorded deployment(int replicas) {
        Engine engine = new Engine(List.of(new Engine.KubeletSettings(nodes(DEPLOYMENT_NODES), Compat.NONE)));
        var web = new DeploymentBuilder()
                .withNewMetadata()
                .withName(DEPLOYMENT)
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withNewSelector()
                .addToMatchLabels("app", DEPLOYMENT)
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", DEPLOYMENT)
                .addToAnnotations("podfall.io/stop-signal", "SIGQUIT")
                .addToAnnotations("podfall.io/exit-delay-seconds", EXIT_DELAY_SECONDS)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("nginx")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
        engine.schedule(List.of(
                new Input.ApiServerStart(T0),
                new Input.KubeletStart(0, T0),
                request(
                        1,
                        T0.plusSeconds(1),
                        EventTypes.CREATION_REQUESTED,
                        "deployments",
                        DEPLOYMENT,
                        new CreationRequest("deployments", "default", Json.tree(web)))));
        engine.runUntil(T0.plusSeconds(1));
        runUntil(
                engine,
                () -> engine.apiServer().list(ResourceType.PODS, "default").stream()
                                .filter(p ->
                                        "Running".equals(((Pod) p).getStatus().getPhase()))
                                .count()
                        == replicas);
        Instant deletion = engine.now().plusSeconds(1);
        engine.schedule(List.of(request(
                2,
                deletion,
                EventTypes.DELETION_REQUESTED,
                "deployments",
                DEPLOYMENT,
                new DeletionRequest(
                        "deployments",
                        "default",
                        DEPLOYMENT,
                        new DeleteOptionsBuilder()
                                .withPropagationPolicy("Foreground")
                                .build()))));
        runUntil(
                engine,
                () -> engine.now().isAfter(deletion)
                        && engine.apiServer()
                                .get(ResourceType.DEPLOYMENTS, "default", DEPLOYMENT)
                                .isEmpty());
        String subject = Subjects.of("default", ResourceType.DEPLOYMENTS.plural(), DEPLOYMENT);
        Instant gone = engine.log().stream()
                .filter(e -> e.is(EventTypes.OBJECT_REMOVED) && e.subject().equals(subject))
                .map(Event::time)
                .findFirst()
                .orElseThrow();
        return new Recorded(engine.log(), deletion, Duration.between(deletion, gone));
    }

    /** Runs the engine on, a simulated second at a time, until {@code done} (within a simulated hour). */
    private static void runUntil(Engine engine, BooleanSupplier done) {
        Instant limit = engine.now().plusSeconds(3600);
        Instant at = engine.now();
        while (!done.getAsBoolean()) {
            if (at.isAfter(limit)) {
                throw new IllegalStateException("not done after a simulated hour");
            }
            at = at.plusSeconds(1);
            engine.runUntil(at);
        }
    }

    private static List<String> nodes(int count) {
        List<String> nodes = new ArrayList<>();
        for (int n = 1; n <= count; n++) {
            nodes.add("node-" + n);
        }
        return nodes;
    }

    private static Input request(int n, Instant at, String type, String resource, String name, Object data) {
        return new Input.Request(Event.request(
                String.format("00000000-0000-4000-8000-%012d", n),
                "/apiserver",
                type,
                Subjects.of("default", resource, name),
                at,
                null,
                data));
    }
}
