package io.podfall.e2e;

import static io.podfall.e2e.SuiteClient.condition;
import static io.podfall.e2e.SuiteClient.hasTaint;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.broker.Broker;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.Podfall;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.e2e.clients.Command;
import io.podfall.e2e.clients.Kubectl;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Ids;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's machine stops and starts again ({@code podfall node stop|start}), on a suite of its own whose one kubelet
 * runs node-1 and node-2. While node-2 is stopped its kubelet does nothing for it: its Lease is not renewed, so the
 * node lifecycle controller marks it Unknown and taints it unreachable, and a pod deleted there stays Terminating;
 * node-1 goes on. Started again, node-2 is Ready, and the pod finishes its termination and is removed. The scenario
 * replays in process with no divergence.
 *
 * <p>The controller runs with its default node-monitor-grace-period (50 s): a replay in process builds the controller
 * manager with its defaults, and the log does not say the controller ran with another.
 */
@ExtendWith(KafkaBrokerExtension.class)
class NodeStopIT {
    private static final String TOPIC = "podfall.nodestop";
    private static final String NODE_2 = "/api/v1/nodes/node-2";
    private static final String POD = "/api/v1/namespaces/default/pods/away";
    private static final Duration WAIT = Duration.ofSeconds(120);

    private static Suite suite;
    private static SuiteClient pods;
    private static ApiClient api;

    @TempDir
    Path dir;

    @BeforeAll
    static void twoNodes(Broker broker) throws IOException {
        suite = ScenarioReplay.start(
                broker.bootstrapServers(),
                TOPIC,
                new Suite.Tuning(Map.of("podfall.kubelet.nodes", "node-1,node-2"), List.of()));
        pods = new SuiteClient(suite, TOPIC);
        api = pods.api;
    }

    @AfterAll
    static void stop() {
        suite.close();
    }

    @Test
    void aStoppedNodeGoesUnknownAndItsDeletedPodWaitsUntilItStartsAgain() throws InterruptedException {
        assumeTrue(Kubectl.SYSTEM != null, "kubectl is not on this machine");
        Kubectl kubectl = new Kubectl(Kubectl.SYSTEM, suite.apiserverUrl());
        api.await(NODE_2, r -> "True".equals(ready(r.body())), WAIT, "node-2 Ready");
        Instant mark = Instant.now();
        pods.createRunning(onNode2("away"));

        node("stop", "node-2");
        Command.Result deleted = kubectl.run("delete", "pod", "away", "--wait=false");
        assertEquals(0, deleted.exitCode(), deleted.toString());

        api.await(
                NODE_2,
                r -> "Unknown".equals(ready(r.body()))
                        && hasTaint(r.body(), "node.kubernetes.io/unreachable", "NoExecute"),
                WAIT,
                "node-2 Unknown and tainted unreachable:NoExecute");
        JsonNode terminating = api.get(POD).body();
        assertFalse(
                terminating.path("metadata").path("deletionTimestamp").isMissingNode(),
                "the pod is marked for deletion: " + terminating);
        List<Event> away = ScenarioReplay.topic(suite, TOPIC, dir);
        Event stopped = only(away, e -> e.is(EventTypes.NODE_STOPPED));
        List<Event> afterStop = away.subList(away.indexOf(stopped) + 1, away.size());
        assertEquals(
                List.of(),
                afterStop.stream()
                        .filter(e -> e.source().equals("/kubelet/node-2"))
                        .map(e -> e.type() + " " + e.subject())
                        .toList(),
                "nothing from node-2's kubelet while it is stopped: no Lease renewal, no status, no pod decision");
        assertTrue(
                afterStop.stream()
                        .anyMatch(e -> e.is(EventTypes.UPDATE_REQUESTED)
                                && e.source().equals("/kubelet/node-1")
                                && e.subject().equals("namespaces/kube-node-lease/leases/node-1")),
                "node-1 renews its Lease meanwhile");
        assertTrue(
                afterStop.stream()
                        .noneMatch(e -> e.is(EventTypes.STOP_CONTAINER_REQUESTED)
                                && e.subject().endsWith("/pods/away")),
                "no kubelet kills the pod");

        node("start", "node-2");

        api.await(
                NODE_2,
                r -> "True".equals(ready(r.body()))
                        && !hasTaint(r.body(), "node.kubernetes.io/unreachable", "NoExecute"),
                WAIT,
                "node-2 Ready again, untainted");
        api.await(POD, r -> r.code() == 404, WAIT, "the pod removed");
        List<Event> topic = ScenarioReplay.topic(suite, TOPIC, dir);
        Event started = only(topic, e -> e.is(EventTypes.NODE_STARTED));
        Event termination = only(
                topic,
                e -> e.is(EventTypes.POD_TERMINATION_STARTED) && e.subject().endsWith("/pods/away"));
        assertEquals(started.id(), termination.causationId(), "the termination begins at the node's start");
        assertTrue(
                topic.stream()
                        .anyMatch(e -> e.is(EventTypes.UPDATE_REQUESTED)
                                && e.source().equals("/kubelet/node-2")
                                // the renewal due at the start itself (NodeLeaseController's ids name the due time)
                                && e.id().equals(Ids.derived(
                                        "node-lease", "node-2", started.time().toString()))),
                "node-2 renews its Lease at its start");

        Instant since = ScenarioReplay.since(topic, mark);
        ScenarioReplay.assertReproduces("node-stop", ScenarioReplay.scenario(topic, since), since);
    }

    /** Runs {@code podfall node <verb> <node>} against the suite's topic, as an operator would. */
    private static void node(String verb, String node) {
        StringWriter out = new StringWriter();
        int code = Podfall.commandLine()
                .setOut(new PrintWriter(out))
                .execute("node", verb, node, "--bootstrap", suite.bootstrapServers(), "--topic", TOPIC);
        assertEquals(0, code, out.toString());
    }

    private static Pod onNode2(String name) {
        return new PodBuilder(SuiteClient.pod(name, Map.of()))
                .editSpec()
                .withNodeName("node-2")
                .endSpec()
                .build();
    }

    private static String ready(JsonNode node) {
        return condition(node, "Ready").path("status").asText();
    }

    private static Event only(List<Event> events, Predicate<Event> which) {
        List<Event> found = events.stream().filter(which).toList();
        assertEquals(1, found.size(), () -> "one of them: " + found);
        return found.get(0);
    }
}
