package io.podfall.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.podfall.kubelet.podworkers.Compat;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import io.podfall.replay.Engine;
import io.podfall.replay.Input;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.openjdk.jol.info.GraphLayout;

/**
 * Where a pod's live heap goes, state by state: a Deployment's pods created and running in flow-replay's engine (the
 * four services' cores in one JVM, as {@code podfall replay} runs them) and held a simulated minute (what rests is held
 * otherwise: the API server compresses it), then every object reachable from each core's state, and from each
 * controller's in the controller manager, measured with JOL. Exact and repeatable, where P4's live heap is a whole
 * service's after a full collection and takes a suite and ten minutes: what a change to a cache saves shows here in
 * seconds, and which controller to look at first.
 */
final class FootprintBench {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final String DEPLOYMENT = "footprint";

    private FootprintBench() {}

    static Report run(int replicas, int nodes) {
        // JOL reads a record's fields by the offsets it finds itself: Unsafe gives none for a record's fields
        System.setProperty("jol.magicFieldOffset", "true");
        Machine machine = Machine.now();
        Report report = new Report(
                "Footprint",
                String.format(
                        Locale.ROOT,
                        "A Deployment of %,d replicas over %,d nodes, created and running in flow-replay's engine (the services' "
                                + "cores in one JVM, no Kafka) and held a simulated minute; then the heap each core's state "
                                + "holds, every object reachable from it (JOL), per pod. An object two states share counts in "
                                + "each of them, once in the controller manager's whole; a cache bounded in entries (the "
                                + "kubelet's decoded pods, 1,024) weighs more a pod at a small size.",
                        replicas,
                        nodes),
                machine);
        List<String> nodeNames = new ArrayList<>();
        for (int n = 1; n <= nodes; n++) {
            nodeNames.add("node-" + n);
        }
        Engine engine = new Engine(List.of(new Engine.KubeletSettings(nodeNames, Compat.NONE)));
        ProgressLines.say("footprint: %,d replicas over %,d nodes in the engine", replicas, nodes);
        long running = createRunning(engine, replicas);
        report.check(
                "every replica running",
                running == replicas,
                String.format("%,d of %,d Running after a simulated hour at most", running, replicas));

        Report.Table t = report.table(
                "live heap of each state (every object reachable from it)",
                "state",
                "bytes",
                "per pod",
                "largest classes, per pod");
        var json = report.figures().putObject("bytes");
        measure(t, json, "apiserver-svc: the registry", engine.apiServer(), replicas);
        for (Object state : engine.controllerManager().states()) {
            measure(t, json, "controller-svc: " + state.getClass().getSimpleName(), state, replicas);
        }
        measure(t, json, "controller-svc: the whole", engine.controllerManager(), replicas);
        for (Engine.Kubelet k : engine.kubelets()) {
            measure(t, json, "kubelet-svc: the pod workers", k.state(), replicas);
        }
        measure(t, json, "runtime-svc: the node services", engine.runtime(), replicas);
        report.figures()
                .put("replicas", replicas)
                .put("nodes", nodes)
                .put("events", engine.log().size());
        return report;
    }

    /** Creates the Deployment and runs the engine until its replicas run; returns how many do. */
    private static long createRunning(Engine engine, int replicas) {
        var deployment = new DeploymentBuilder()
                .withNewMetadata()
                .withName(DEPLOYMENT)
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withNewSelector()
                .addToMatchLabels("app", DEPLOYMENT)
                .endSelector()
                .withTemplate(Deployments.template(Map.of("app", DEPLOYMENT)))
                .endSpec()
                .build();
        engine.schedule(List.of(
                new Input.ApiServerStart(T0),
                new Input.KubeletStart(0, T0),
                new Input.Request(Event.request(
                        "00000000-0000-4000-8000-000000000001",
                        "/apiserver",
                        EventTypes.CREATION_REQUESTED,
                        Subjects.of("default", ResourceType.DEPLOYMENTS.plural(), DEPLOYMENT),
                        T0.plusSeconds(1),
                        null,
                        new CreationRequest(ResourceType.DEPLOYMENTS.plural(), "default", Json.tree(deployment))))));
        // the Deployment's status says when all are ready: one object read a simulated second, not every pod
        Instant at = T0.plusSeconds(1);
        for (; readyReplicas(engine) < replicas && at.isBefore(T0.plusSeconds(3600)); at = at.plusSeconds(1)) {
            engine.runUntil(at);
        }
        // then held a minute, as P4's suite holds them before it measures (its pods, created over minutes, rest)
        engine.runUntil(at.plusSeconds(60));
        return engine.apiServer().list(ResourceType.PODS, "default").stream()
                .filter(p -> "Running".equals(((Pod) p).getStatus().getPhase()))
                .count();
    }

    private static int readyReplicas(Engine engine) {
        return engine.apiServer()
                .get(ResourceType.DEPLOYMENTS, "default", DEPLOYMENT)
                .map(d -> ((Deployment) d).getStatus())
                .map(status -> status.getReadyReplicas() == null ? 0 : status.getReadyReplicas())
                .orElse(0);
    }

    private static void measure(Report.Table t, ObjectNode json, String name, Object state, int replicas) {
        GraphLayout graph = GraphLayout.parseInstance(state);
        long bytes = graph.totalSize();
        String largest = graph.getClasses().stream()
                .sorted(Comparator.comparingLong(
                                (Class<?> c) -> graph.getClassSizes().count(c))
                        .reversed())
                .limit(4)
                .map(c -> className(c)
                        + String.format(
                                Locale.ROOT, " %,.0f B", graph.getClassSizes().count(c) / (double) replicas))
                .collect(Collectors.joining(", "));
        t.row(
                name,
                String.format("%,d", bytes),
                String.format(Locale.ROOT, "%,.0f B", bytes / (double) replicas),
                largest);
        json.put(name, bytes);
    }

    /** {@code HashMap$Node}, {@code SchedulerState$CachedPod}, {@code byte[]}: the name without its package. */
    private static String className(Class<?> c) {
        return c.isArray()
                ? c.getSimpleName()
                : c.getName().substring(c.getName().lastIndexOf('.') + 1);
    }
}
