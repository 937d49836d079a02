package io.podfall.e2e;

import static io.podfall.e2e.SuiteClient.condition;
import static io.podfall.e2e.SuiteClient.from;
import static io.podfall.e2e.SuiteClient.hasTaint;
import static io.podfall.model.event.EventTypes.DELETION_REQUESTED;
import static io.podfall.model.event.EventTypes.OBJECT_REMOVED;
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
import io.podfall.cli.analysis.Check;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.e2e.clients.Command;
import io.podfall.e2e.clients.Kubectl;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Ids;
import io.podfall.replay.Replay;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node dies and comes back ({@code podfall node stop|start}), on a suite of its own whose one kubelet runs node-1 and
 * node-2, with a node-monitor grace period of 20 s to keep it short: twice the Lease renewal interval (10 s), as
 * upstream wants it "N times more than kubelet's nodeStatusUpdateFrequency" (cmd/kube-controller-manager/app/options/
 * nodelifecyclecontroller.go); at 10 s, node-1 went Unknown whenever one renewal came a moment late. A Deployment of
 * two behind a Service runs on node-2, its pods tolerating the unreachable taint for 5 s. node-2 stops: its kubelet
 * does nothing for it, so its Lease is not renewed and the node lifecycle controller marks it Unknown, taints it
 * unreachable and marks its pods Ready False, which takes them out of the Endpoints' ready addresses; 5 s later the
 * taint eviction controller deletes them, and the ReplicaSet's replacements run on node-1 and fill the Endpoints. The
 * old pods stay Terminating (no kubelet finishes them) until node-2 is tainted out-of-service, when the pod GC
 * force-deletes them. A pod of node-2 that tolerates that taint, deleted with kubectl once the taint is gone again,
 * waits for the node. Started again, node-2 is Ready, its kubelet kills the containers of the pods removed while it was
 * away as orphans and finishes the deleted pod's termination. {@code podfall check} warns of each pod stuck Terminating
 * on the unreachable node and what ended it; the scenario replays in process with no divergence (the replay infers the
 * grace period from the node lifecycle controller's Ready Unknown).
 */
@ExtendWith(KafkaBrokerExtension.class)
class NodeStopIT {
    private static final String TOPIC = "podfall.nodestop";
    private static final String NODE_2 = "/api/v1/nodes/node-2";
    private static final String AWAY = "/api/v1/namespaces/default/pods/away";
    private static final String UNREACHABLE = "node.kubernetes.io/unreachable";
    private static final String OUT_OF_SERVICE = "node.kubernetes.io/out-of-service=nodeshutdown:NoExecute";
    private static final Duration WAIT = Duration.ofSeconds(120);

    private static Suite suite;
    private static SuiteClient log;
    private static ApiClient api;
    private static Workloads workloads;

    @TempDir
    Path dir;

    @BeforeAll
    static void twoNodes(Broker broker) throws IOException {
        suite = ScenarioReplay.start(
                broker.bootstrapServers(),
                TOPIC,
                new Suite.Tuning(
                        Map.of(
                                "podfall.kubelet.nodes",
                                "node-1,node-2",
                                "podfall.controller.node-monitor-grace-period-seconds",
                                "20"),
                        List.of()));
        log = new SuiteClient(suite, TOPIC);
        api = log.api;
        workloads = new Workloads(api, "default");
    }

    @AfterAll
    static void stop() {
        suite.close();
    }

    @Test
    void aDeadNodesPodsAreReplacedElsewhereAndItsOrphansKilledWhenItComesBack()
            throws InterruptedException, IOException {
        assumeTrue(Kubectl.SYSTEM != null, "kubectl is not on this machine");
        Kubectl kubectl = new Kubectl(Kubectl.SYSTEM, suite.apiserverUrl());
        api.await(NODE_2, r -> "True".equals(ready(r.body())), WAIT, "node-2 Ready");
        Instant mark = Instant.now();

        // 1. Two pods on node-2 (node-1 cordoned while they roll out), Ready and in the Service's Endpoints.
        ok(kubectl.run("cordon", "node-1"));
        assertEquals(
                201,
                api.post(workloads.path("services"), Workloads.service("web")).code());
        assertEquals(
                201,
                api.post(
                                workloads.path("deployments"),
                                Workloads.toleratingUnreachable(Workloads.deployment("web", 2), 5))
                        .code());
        workloads.awaitReady("web", 2);
        ok(kubectl.run("uncordon", "node-1"));
        log.createRunning(onNode2("away"));
        List<JsonNode> old = workloads.pods("web");
        assertEquals(Set.of("node-2"), nodes(old));
        Set<String> oldSubjects = old.stream().map(Workloads::subject).collect(Collectors.toSet());
        api.await(
                endpoints(),
                r -> addresses(r.body(), "addresses").equals(Workloads.names(old)),
                WAIT,
                "both pods in the Endpoints' addresses");

        // 2. node-2 stops: Unknown after the grace period, tainted unreachable, its pods Ready False.
        node("stop", "node-2");
        api.await(
                NODE_2,
                r -> "Unknown".equals(ready(r.body())) && hasTaint(r.body(), UNREACHABLE, "NoExecute"),
                WAIT,
                "node-2 Unknown and tainted unreachable:NoExecute");
        log.awaitLog(
                events -> oldSubjects.stream()
                        .allMatch(s -> events.stream()
                                .anyMatch(e -> from("/controller/nodelifecycle", EventTypes.PATCH_REQUESTED)
                                                .test(e)
                                        && s.equals(e.subject()))),
                "both pods marked Ready False by the node lifecycle controller");
        api.await(
                endpoints(),
                r -> !subset(r.body()).has("addresses")
                        && addresses(r.body(), "notReadyAddresses").equals(Workloads.names(old)),
                WAIT,
                "both pods out of the ready addresses");

        // 3. 5 s later the taint eviction controller deletes them; the replacements run on node-1.
        List<Event> evicted = log.awaitLog(
                events -> oldSubjects.stream()
                        .allMatch(s -> events.stream()
                                .anyMatch(e -> from("/controller/tainteviction", DELETION_REQUESTED)
                                                .test(e)
                                        && s.equals(e.subject()))),
                "both pods evicted");
        for (JsonNode pod : old) {
            JsonNode now = api.await(
                            podPath(pod), r -> r.body().path("metadata").has("deletionTimestamp"), WAIT, "Terminating")
                    .body();
            assertEquals(
                    "DeletionByTaintManager",
                    condition(now, "DisruptionTarget").path("reason").asText());
            assertEquals("False", condition(now, "Ready").path("status").asText());
        }
        api.await(
                workloads.path("pods") + "?labelSelector=app%3Dweb",
                r -> replacements(r.body(), oldSubjects).stream()
                                .filter(p -> "node-1"
                                                .equals(p.path("spec")
                                                        .path("nodeName")
                                                        .asText())
                                        && "Running"
                                                .equals(p.path("status")
                                                        .path("phase")
                                                        .asText()))
                                .count()
                        == 2,
                WAIT,
                "two replacements Running on node-1");
        Set<String> replaced = Workloads.names(replacements(
                api.get(workloads.path("pods") + "?labelSelector=app%3Dweb").body(), oldSubjects));
        api.await(
                endpoints(),
                r -> addresses(r.body(), "addresses").equals(replaced)
                        && !subset(r.body()).has("notReadyAddresses"),
                WAIT,
                "the replacements in the Endpoints");

        // 4. The old pods stay Terminating: no kubelet finishes them, until node-2 is declared out of service.
        for (JsonNode pod : old) {
            JsonNode now = api.get(podPath(pod)).body();
            assertFalse(now.path("metadata").path("deletionTimestamp").isMissingNode(), "still Terminating: " + now);
        }
        Event evictedAt = evicted.stream()
                .filter(from("/controller/tainteviction", DELETION_REQUESTED))
                .reduce((a, b) -> b)
                .orElseThrow();
        ok(kubectl.run("taint", "node", "node-2", OUT_OF_SERVICE));
        List<Event> forced = log.awaitLog(
                events -> oldSubjects.stream()
                        .allMatch(s -> events.stream().anyMatch(e -> e.is(OBJECT_REMOVED) && s.equals(e.subject()))),
                "the old pods removed");
        Set<String> gcDeletions = forced.stream()
                .filter(from("/controller/podgc", DELETION_REQUESTED))
                .map(Event::id)
                .collect(Collectors.toSet());
        Event outOfService = forced.stream()
                .filter(e -> e.is(EventTypes.OBJECT_UPDATED)
                        && e.subject().equals("nodes/node-2")
                        && e.data().toString().contains("node.kubernetes.io/out-of-service"))
                .findFirst()
                .orElseThrow();
        List<Event> removals = forced.stream()
                .filter(e -> e.is(OBJECT_REMOVED) && oldSubjects.contains(e.subject()))
                .toList();
        for (Event removed : removals) {
            assertTrue(gcDeletions.contains(removed.causationId()), "force-deleted by the pod GC: " + removed);
        }
        assertTrue(
                removals.stream().allMatch(r -> forced.indexOf(r) > forced.indexOf(outOfService)),
                "Terminating from the eviction until the out-of-service taint");

        // 5. The taint removed (the pod GC force-deletes a pod Terminating on an out-of-service node), a pod deleted
        // while node-2 is away; node-2 starts again.
        ok(kubectl.run("taint", "node", "node-2", OUT_OF_SERVICE + "-"));
        api.await(
                NODE_2,
                r -> !hasTaint(r.body(), "node.kubernetes.io/out-of-service", "NoExecute"),
                WAIT,
                "the out-of-service taint gone");
        ok(kubectl.run("delete", "pod", "away", "--wait=false"));
        JsonNode terminating = api.get(AWAY).body();
        assertFalse(
                terminating.path("metadata").path("deletionTimestamp").isMissingNode(),
                "the pod is marked for deletion: " + terminating);
        node("start", "node-2");
        api.await(
                NODE_2,
                r -> "True".equals(ready(r.body())) && !hasTaint(r.body(), UNREACHABLE, "NoExecute"),
                WAIT,
                "node-2 Ready again, untainted");
        api.await(AWAY, r -> r.code() == 404, WAIT, "the deleted pod removed");
        List<Event> back = log.awaitLog(
                events -> oldSubjects.stream()
                        .allMatch(s -> events.stream()
                                .anyMatch(e -> e.is(EventTypes.CONTAINER_EXITED) && s.equals(e.subject()))),
                "the orphans' containers exited");

        List<Event> topic = ScenarioReplay.topic(suite, TOPIC, dir);
        Event stopped = only(topic, e -> e.is(EventTypes.NODE_STOPPED));
        Event started = only(topic, e -> e.is(EventTypes.NODE_STARTED));
        List<Event> away = topic.subList(topic.indexOf(stopped) + 1, topic.indexOf(started));
        assertEquals(
                List.of(),
                away.stream()
                        .filter(e -> e.source().equals("/kubelet/node-2"))
                        .map(e -> e.type() + " " + e.subject())
                        .toList(),
                "nothing from node-2's kubelet while it is stopped: no Lease renewal, no status, no pod decision");
        assertTrue(
                away.stream()
                        .anyMatch(e -> e.is(EventTypes.UPDATE_REQUESTED)
                                && e.source().equals("/kubelet/node-1")
                                && e.subject().equals("namespaces/kube-node-lease/leases/node-1")),
                "node-1 renews its Lease meanwhile");
        for (String s : oldSubjects) {
            Event orphan = only(
                    topic,
                    e -> from("/kubelet/node-2", EventTypes.ORPHANED_POD_FOUND).test(e) && s.equals(e.subject()));
            assertTrue(orphan.time().compareTo(started.time()) >= 0, "found at the start: " + orphan);
            assertTrue(
                    topic.stream()
                            .anyMatch(e -> from("/kubelet/node-2", EventTypes.STOP_CONTAINER_REQUESTED)
                                            .test(e)
                                    && s.equals(e.subject())),
                    "node-2's kubelet kills " + s);
        }
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
        timeline(topic, stopped, evictedAt, replaced, outOfService, removals, started, back, oldSubjects);

        // 6. podfall check: each pod stuck Terminating on the unreachable node, and what ended it; no error.
        Instant since = ScenarioReplay.since(topic, mark);
        List<Event> scenario = ScenarioReplay.scenario(topic, since);
        Path file = ScenarioReplay.file("node-stop-check", scenario);
        List<Check.Finding> findings = Check.of(scenario);
        assertFalse(Check.hasErrors(findings), findings.toString());
        List<Check.Finding> stuck = findings.stream()
                .filter(f -> f.rule().equals("terminating-on-unreachable-node"))
                .toList();
        for (String s : oldSubjects) {
            Check.Finding f = stuck.stream()
                    .filter(x -> x.subject().equals(s))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no warning of " + s + ": " + findings));
            assertEquals(Check.Level.WARNING, f.level());
            assertTrue(f.message().endsWith("removed by a delete from /controller/podgc"), f.message());
        }
        StringWriter checked = new StringWriter();
        assertEquals(
                0,
                Podfall.commandLine().setOut(new PrintWriter(checked)).execute("check", "--file", file.toString()),
                "a warning is no error");
        assertTrue(checked.toString().contains("terminating-on-unreachable-node"), checked.toString());

        // 7. The replay.
        Replay replay = ScenarioReplay.assertReproduces("node-stop", scenario, since);
        assertEquals(
                Duration.ofSeconds(20), replay.recording().controllerManager().nodeMonitorGracePeriod());
    }

    /** Prints how long each step took from the stop, for the record. */
    private static void timeline(
            List<Event> topic,
            Event stopped,
            Event evicted,
            Set<String> replaced,
            Event outOfService,
            List<Event> removals,
            Event started,
            List<Event> back,
            Set<String> oldSubjects) {
        Event unknown = first(
                topic,
                e -> from("/controller/nodelifecycle", EventTypes.PATCH_REQUESTED)
                                .test(e)
                        && e.subject().equals("nodes/node-2")
                        && e.data().toString().contains("\"status\":\"Unknown\""));
        Event notReady = first(
                topic,
                e -> from("/controller/nodelifecycle", EventTypes.PATCH_REQUESTED)
                                .test(e)
                        && oldSubjects.contains(e.subject()));
        Event running = topic.stream()
                .filter(e -> e.is(EventTypes.CONTAINER_STARTED)
                        && replaced.stream().anyMatch(n -> e.subject().endsWith("/pods/" + n)))
                .reduce((a, b) -> b)
                .orElseThrow();
        Event orphansKilled = back.stream()
                .filter(e -> e.is(EventTypes.CONTAINER_EXITED) && oldSubjects.contains(e.subject()))
                .reduce((a, b) -> b)
                .orElseThrow();
        List<String> steps = new ArrayList<>();
        for (Map.Entry<String, Event> step : List.of(
                Map.entry("Unknown", unknown),
                Map.entry("pods NotReady", notReady),
                Map.entry("evicted", evicted),
                Map.entry("replacements Running", running),
                Map.entry("out-of-service", outOfService),
                Map.entry("removed", removals.get(removals.size() - 1)),
                Map.entry("start", started),
                Map.entry("orphans killed", orphansKilled))) {
            steps.add(step.getKey() + " +"
                    + Duration.between(stopped.time(), step.getValue().time()).toMillis() + " ms");
        }
        System.out.println("node-stop timeline from the stop: " + String.join(", ", steps));
    }

    /** Runs {@code podfall node <verb> <node>} against the suite's topic, as an operator would. */
    private static void node(String verb, String node) {
        StringWriter out = new StringWriter();
        int code = Podfall.commandLine()
                .setOut(new PrintWriter(out))
                .execute("node", verb, node, "--bootstrap", suite.bootstrapServers(), "--topic", TOPIC);
        assertEquals(0, code, out.toString());
    }

    private static void ok(Command.Result result) {
        assertEquals(0, result.exitCode(), result.toString());
    }

    /**
     * A pod bound to node-2 that tolerates the out-of-service taint: the taint eviction controller leaves it (it
     * deletes at once a pod that does not tolerate a NoExecute taint), so it is still there to be deleted after.
     */
    private static Pod onNode2(String name) {
        return new PodBuilder(SuiteClient.pod(name, Map.of()))
                .editSpec()
                .withNodeName("node-2")
                .addNewToleration()
                .withKey("node.kubernetes.io/out-of-service")
                .withOperator("Exists")
                .withEffect("NoExecute")
                .endToleration()
                .endSpec()
                .build();
    }

    private static String endpoints() {
        return workloads.path("endpoints") + "/web";
    }

    private static String podPath(JsonNode pod) {
        return workloads.path("pods") + "/" + pod.path("metadata").path("name").asText();
    }

    private static JsonNode subset(JsonNode endpoints) {
        return endpoints.path("subsets").path(0);
    }

    /** The pod names of the Endpoints' first subset's {@code addresses} or {@code notReadyAddresses}. */
    private static Set<String> addresses(JsonNode endpoints, String which) {
        return StreamSupport.stream(subset(endpoints).path(which).spliterator(), false)
                .map(a -> a.path("targetRef").path("name").asText())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The pods of a list that are not the old ones. */
    private static List<JsonNode> replacements(JsonNode list, Set<String> oldSubjects) {
        return StreamSupport.stream(list.path("items").spliterator(), false)
                .filter(p -> !oldSubjects.contains(Workloads.subject(p)))
                .toList();
    }

    private static Set<String> nodes(List<JsonNode> pods) {
        return pods.stream().map(p -> p.path("spec").path("nodeName").asText()).collect(Collectors.toSet());
    }

    private static String ready(JsonNode node) {
        return condition(node, "Ready").path("status").asText();
    }

    private static Event first(List<Event> events, Predicate<Event> which) {
        return events.stream().filter(which).findFirst().orElseThrow(() -> new AssertionError("none"));
    }

    private static Event only(List<Event> events, Predicate<Event> which) {
        List<Event> found = events.stream().filter(which).toList();
        assertEquals(1, found.size(), () -> "one of them: " + found);
        return found.get(0);
    }
}
