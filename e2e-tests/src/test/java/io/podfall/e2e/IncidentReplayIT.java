package io.podfall.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.podfall.broker.Broker;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.Podfall;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.log.EventLog;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.e2e.clients.Command;
import io.podfall.e2e.clients.Kubectl;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The races incidents are made of, recorded over Kafka by the four services on a machine as loaded as CI's, each in a
 * namespace of its own, and replayed in process at the recorded latencies (the default): each reproduces with no
 * MISSING, EXTRA or REORDERED event, twice: the suite's topic from the scenario's first request on, and the scenario's
 * namespace alone as a user exports it ({@code podfall export --namespace NS}, then {@code podfall replay FILE}). Issue
 * #31's list: a pod deleted 0, 50, 150 and 300 ms after its creation; a pod leaving its Service's Endpoints during its
 * preStop; a grace period shortened from 60 s to 5 s while preStop runs; a force delete of a Terminating pod;
 * {@code kubectl drain} of a node with a Deployment's pods on it; a foreground cascade of a 100-replica Deployment; a
 * namespace deleted with pods in it.
 */
@ExtendWith(KafkaBrokerExtension.class)
class IncidentReplayIT {
    /** A suite of its own: two nodes, so that one can be drained while the other takes the replacements. */
    private static final String TOPIC = "podfall.incidents";

    private static final Duration WAIT = Workloads.WAIT;
    private static Suite suite;
    private static ApiClient api;

    @TempDir
    Path dir;

    /** A Deployment run through the suite first, so that no scenario meets the services' first seconds. */
    @BeforeAll
    static void warmUp(Broker broker) throws IOException {
        Suite running = ScenarioReplay.start(
                broker.bootstrapServers(),
                TOPIC,
                new Suite.Tuning(Map.of("podfall.kubelet.nodes", "node-1,node-2"), List.of()));
        suite = running;
        api = new ApiClient(running.apiserverUrl());
        namespace("inc-warm-up").warmUp();
    }

    @AfterAll
    static void stopTheSuite() {
        if (suite != null) {
            suite.close();
        }
    }

    @Test
    void podsDeletedWhileTheyStart() throws InterruptedException {
        String ns = "inc-race";
        Workloads w = namespace(ns);
        Instant mark = Instant.now();
        for (long afterMs : new long[] {0, 50, 150, 300}) {
            String name = "born-" + afterMs;
            assertEquals(
                    201, api.post(w.path("pods"), json(pod(ns, name, "", ""))).code());
            Thread.sleep(afterMs);
            assertEquals(200, api.delete(w.path("pods") + "/" + name, grace(5)).code());
        }
        for (long afterMs : new long[] {0, 50, 150, 300}) {
            w.awaitGone(w.path("pods") + "/born-" + afterMs, "born-" + afterMs);
        }
        reproduces(ns, mark);
    }

    @Test
    void aPodLeavesItsServicesEndpointsDuringItsPreStop() throws InterruptedException {
        String ns = "inc-endpoints";
        Workloads w = namespace(ns);
        JsonNode deployment = Workloads.deployment("web", 2);
        ((com.fasterxml.jackson.databind.node.ObjectNode) deployment
                        .path("spec")
                        .path("template")
                        .path("spec")
                        .path("containers")
                        .path(0))
                .set(
                        "lifecycle",
                        Json.read("{\"preStop\":{\"sleep\":{\"seconds\":2}}}".getBytes(StandardCharsets.UTF_8)));
        assertEquals(201, api.post(w.path("deployments"), deployment).code());
        w.awaitReady("web", 2);
        assertEquals(201, api.post(w.path("services"), Workloads.service("web")).code());
        api.await(
                w.path("endpoints") + "/web",
                r -> r.code() == 200
                        && r.body().path("subsets").path(0).path("addresses").size() == 2,
                WAIT,
                "both pods in the endpoints");

        Instant mark = Instant.now();
        String victim = w.pods("web").get(0).path("metadata").path("name").asText();
        assertEquals(200, api.delete(w.path("pods") + "/" + victim, grace(10)).code());
        w.awaitGone(w.path("pods") + "/" + victim, victim);
        w.awaitReady("web", 2);
        leave(w, "web");
        reproduces(ns, mark);
    }

    /** A released kubelet: the shorter grace period reaches neither the hook's wait nor the kill (#83916). */
    @Test
    void aGracePeriodShortenedFrom20To5WhilePreStopRuns() throws InterruptedException {
        String ns = "inc-shortened";
        Workloads w = namespace(ns);
        deletedTwice(
                w,
                "hooked",
                pod(ns, "hooked", "podfall.io/on-sigterm", "ignore")
                        .replace(
                                "\"containers\":[{\"name\":\"app\",\"image\":\"nginx\"}]",
                                "\"terminationGracePeriodSeconds\":20,\"containers\":[{\"name\":\"app\",\"image\":\"nginx\","
                                        + "\"lifecycle\":{\"preStop\":{\"sleep\":{\"seconds\":10}}}}]"),
                20,
                5);
    }

    @Test
    void aForceDeleteOfATerminatingPod() throws InterruptedException {
        String ns = "inc-force";
        Workloads w = namespace(ns);
        deletedTwice(w, "stuck", pod(ns, "stuck", "podfall.io/on-sigterm", "ignore"), 30, 0);
    }

    /** A pod run, deleted with {@code first} seconds of grace, a second later with {@code then}; reproduced. */
    private void deletedTwice(Workloads w, String name, String manifest, long first, long then)
            throws InterruptedException {
        assertEquals(201, api.post(w.path("pods"), json(manifest)).code());
        awaitRunning(w, name);

        Instant mark = Instant.now();
        assertEquals(200, api.delete(w.path("pods") + "/" + name, grace(first)).code());
        Thread.sleep(1000);
        assertEquals(200, api.delete(w.path("pods") + "/" + name, grace(then)).code());
        w.awaitGone(w.path("pods") + "/" + name, name);
        reproduces(w.namespace(), mark);
    }

    @Test
    void kubectlDrainOfANodeWithADeploymentsPods() throws InterruptedException {
        assumeTrue(Kubectl.SYSTEM != null, "kubectl is not on this machine");
        String ns = "inc-drain";
        Workloads w = namespace(ns);
        w.deploy("web", 4);
        String node = w.pods("web").get(0).path("spec").path("nodeName").asText();
        Kubectl kubectl = new Kubectl(Kubectl.SYSTEM, suite.apiserverUrl());

        Instant mark = Instant.now();
        Command.Result drained = kubectl.run("drain", node, "--ignore-daemonsets", "--timeout=90s");
        assertEquals(0, drained.exitCode(), drained.stdout() + drained.stderr());
        w.awaitReady("web", 4);
        Command.Result uncordoned = kubectl.run("uncordon", node);
        assertEquals(0, uncordoned.exitCode(), uncordoned.stdout() + uncordoned.stderr());
        assertEquals(
                Set.of(),
                w.pods("web").stream()
                        .map(p -> p.path("spec").path("nodeName").asText())
                        .filter(node::equals)
                        .collect(Collectors.toSet()),
                "no pod of the Deployment left on " + node);
        leave(w, "web");
        reproduces(ns, mark);
    }

    @Test
    void aForegroundCascadeOfA100ReplicaDeployment() throws InterruptedException {
        String ns = "inc-cascade";
        Workloads w = namespace(ns);
        w.deploy("big", 100);

        Instant mark = Instant.now();
        assertEquals(
                200,
                api.delete(w.path("deployments") + "/big", cascade("Foreground"))
                        .code());
        w.awaitGone(w.path("deployments") + "/big", "the Deployment big");
        w.awaitNone("big");
        reproduces(ns, mark);
    }

    @Test
    void aNamespaceDeletedWithPodsInIt() throws InterruptedException {
        String ns = "inc-namespace";
        Workloads w = namespace(ns);
        w.deploy("team", 3);
        assertEquals(
                201,
                api.post(w.path("pods"), json(pod(ns, "loner", "podfall.io/exit-delay-seconds", "2")))
                        .code());
        awaitRunning(w, "loner");

        Instant mark = Instant.now();
        assertEquals(
                200,
                api.delete("/api/v1/namespaces/" + ns, new DeleteOptionsBuilder().build())
                        .code());
        w.awaitGone("/api/v1/namespaces/" + ns, "the namespace " + ns);
        reproduces(ns, mark);
    }

    /**
     * The scenario begun at {@code mark} in namespace {@code ns}, once its last step is on the topic (every sandbox of
     * its pods removed), reproduces: from the suite's topic, and from the namespace's export alone.
     */
    private void reproduces(String ns, Instant mark) throws InterruptedException {
        awaitSandboxesRemoved(ns);
        List<Event> topic = ScenarioReplay.topic(suite, TOPIC, dir);
        // the namespace's flows from its creation on, replayed from the scenario's first request on
        Instant created = ScenarioReplay.since(topic, e -> ns.equals(Subjects.namespaceOf(e.subject())));
        Instant since = ScenarioReplay.since(
                topic, e -> !e.time().isBefore(mark) && ns.equals(Subjects.namespaceOf(e.subject())));
        ScenarioReplay.assertReproduces(ns, ScenarioReplay.scenario(topic, created), since);

        Path slice = dir.resolve(ns + ".jsonl");
        assertEquals(
                0,
                Podfall.commandLine()
                        .execute(
                                "export",
                                "--bootstrap",
                                suite.bootstrapServers(),
                                "--topic",
                                TOPIC,
                                "--namespace",
                                ns,
                                "--output",
                                slice.toString()));
        ScenarioReplay.file(
                ns + "-namespace", io.podfall.cli.log.EventFile.read(slice).events());
        StringWriter out = new StringWriter();
        int code = Podfall.commandLine()
                .setOut(new PrintWriter(out))
                .execute("replay", slice.toString(), "--tolerance", ScenarioReplay.TOLERANCE.toMillis() + "ms");
        System.out.print(ns + " exported alone: " + out);
        assertEquals(0, code, "podfall replay target/replay-scenarios/" + ns + "-namespace.jsonl\n" + out);
        assertFalse(
                out.toString().lines().anyMatch(l -> l.matches(" +\\+[0-9.]+s (MISSING|EXTRA|REORDERED) .*")),
                out.toString());
    }

    /** Deletes the Deployment and its Service (if any): the next scenario, or a drain, finds none of its pods. */
    private static void leave(Workloads w, String app) {
        api.delete(w.path("services") + "/" + app, new DeleteOptionsBuilder().build());
        assertEquals(
                200,
                api.delete(w.path("deployments") + "/" + app, cascade("Background"))
                        .code());
        w.awaitNone(app);
    }

    /** Waits until every sandbox started for a pod of the namespace is removed, and a moment more. */
    private static void awaitSandboxesRemoved(String ns) throws InterruptedException {
        try (EventLog log = new EventLog(suite.bootstrapServers(), TOPIC)) {
            log.readUntil(
                    all -> {
                        Set<String> started = subjects(all, ns, EventTypes.SANDBOX_STARTED);
                        return subjects(all, ns, EventTypes.SANDBOX_REMOVED).containsAll(started);
                    },
                    WAIT);
        }
        Thread.sleep(500);
    }

    private static Set<String> subjects(List<Event> events, String ns, String type) {
        return events.stream()
                .filter(e -> e.is(type) && ns.equals(Subjects.namespaceOf(e.subject())))
                .map(Event::subject)
                .collect(Collectors.toSet());
    }

    private static Workloads namespace(String ns) {
        return Workloads.inNewNamespace(api, ns);
    }

    private static void awaitRunning(Workloads w, String name) {
        api.await(
                w.path("pods") + "/" + name,
                r -> r.code() == 200
                        && "Running"
                                .equals(r.body().path("status").path("phase").asText()),
                WAIT,
                name + " Running");
    }

    /** A pod's manifest as JSON text, with one annotation (none when {@code key} is empty). */
    private static String pod(String ns, String name, String key, String value) {
        String annotations = key.isEmpty() ? "{}" : "{\"" + key + "\":\"" + value + "\"}";
        return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name + "\",\"namespace\":\"" + ns
                + "\",\"annotations\":" + annotations
                + "},\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"nginx\"}]}}";
    }

    private static JsonNode json(String text) {
        return Json.read(text.getBytes(StandardCharsets.UTF_8));
    }

    private static Object grace(long seconds) {
        return new DeleteOptionsBuilder().withGracePeriodSeconds(seconds).build();
    }

    private static Object cascade(String policy) {
        return new DeleteOptionsBuilder().withPropagationPolicy(policy).build();
    }
}
