package io.podfall.e2e;

import static io.podfall.e2e.SuiteClient.from;
import static io.podfall.model.event.EventTypes.DELETION_REQUESTED;
import static io.podfall.model.event.EventTypes.OBJECT_REMOVED;
import static io.podfall.model.event.EventTypes.OBJECT_UPDATED;
import static io.podfall.model.event.EventTypes.PATCH_REQUESTED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.broker.Broker;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.e2e.clients.Command;
import io.podfall.e2e.clients.Kubectl;
import io.podfall.model.Json;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.event.Event;
import io.podfall.replay.Replay;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two nodes whose one kubelet process stops, as a machine going down: the control plane's answer over Kafka, with a
 * node-monitor grace period of 20 s to keep the test short (twice the Lease renewal interval, as upstream asks of it:
 * {@code cmd/kube-controller-manager/app/options/nodelifecyclecontroller.go}; at 10 s a renewal a moment late flaps a
 * healthy node), then a replay of the scenario in process, which infers the kubelet's stop from its silence and the
 * grace period from the node lifecycle controller's Ready Unknown.
 */
@ExtendWith(KafkaBrokerExtension.class)
class NodeFailureIT {
    private static final String TOPIC = "podfall.node-failure";
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final String UNKNOWN = "\"status\":\"Unknown\"";

    private static Suite suite;
    private static ApiClient api;
    private static SuiteClient log;
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

    private static long count(List<Event> events, Predicate<Event> what) {
        return events.stream().filter(what).count();
    }

    @Test
    void aNodeWhoseKubeletStopsLosesItsPodsToTheControlPlaneAndTheScenarioReplays() throws InterruptedException {
        Instant mark = Instant.now();
        JsonNode deployment = Workloads.toleratingUnreachable(Workloads.deployment("web", 2), 5);
        assertEquals(
                201,
                api.post(workloads.path("services"), Workloads.service("web")).code());
        assertEquals(201, api.post(workloads.path("deployments"), deployment).code());
        workloads.awaitReady("web", 2);
        log.createRunning(SuiteClient.pod("plain", Map.of()));
        List<JsonNode> web = workloads.pods("web");
        Set<String> webSubjects = web.stream().map(Workloads::subject).collect(Collectors.toSet());
        JsonNode plain = api.get("/api/v1/namespaces/default/pods/plain").body();
        assertEquals(
                "[{\"effect\":\"NoExecute\",\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\","
                        + "\"tolerationSeconds\":300},{\"effect\":\"NoExecute\",\"key\":\"node.kubernetes.io/unreachable\","
                        + "\"operator\":\"Exists\",\"tolerationSeconds\":300}]",
                plain.path("spec").path("tolerations").toString(),
                "DefaultTolerationSeconds");

        Instant stopped = Instant.now();
        suite.stop("kubelet-svc");

        // The node lifecycle controller: Ready Unknown for both nodes, then the web pods' Ready False.
        List<Event> marked = log.awaitLog(
                events -> count(
                                        events,
                                        e -> from("/controller/nodelifecycle", PATCH_REQUESTED)
                                                        .test(e)
                                                && e.subject().startsWith("nodes/")
                                                && e.data().toString().contains(UNKNOWN))
                                == 2
                        && count(
                                        events,
                                        e -> from("/controller/nodelifecycle", PATCH_REQUESTED)
                                                        .test(e)
                                                && webSubjects.contains(e.subject()))
                                == 2,
                "both nodes Unknown, both web pods marked NotReady");
        // The endpoints controller takes them out of the Service's addresses: on the log, as the API's Endpoints lose
        // them altogether once they are evicted a few seconds later.
        log.awaitLog(
                events -> events.stream()
                        .anyMatch(e -> e.is(OBJECT_UPDATED)
                                && e.subject().equals("namespaces/default/endpoints/web")
                                && e.data()
                                                .path("object")
                                                .path("subsets")
                                                .path(0)
                                                .path("notReadyAddresses")
                                                .size()
                                        == 2
                                && !e.data()
                                        .path("object")
                                        .path("subsets")
                                        .path(0)
                                        .has("addresses")),
                "both web pods in notReadyAddresses");

        // The taint eviction controller: 5 s after it saw the unreachable NoExecute taint.
        List<Event> evicted = log.awaitLog(
                events -> count(
                                events,
                                e -> from("/controller/tainteviction", DELETION_REQUESTED)
                                                .test(e)
                                        && webSubjects.contains(e.subject()))
                        >= 2,
                "both web pods evicted");
        for (Event eviction : evicted.stream()
                .filter(e ->
                        from("/controller/tainteviction", DELETION_REQUESTED).test(e))
                .toList()) {
            assertEquals(null, eviction.data(DeletionRequest.class).options().getGracePeriodSeconds());
        }
        assertEquals(
                0,
                count(
                        evicted,
                        e -> from("/controller/tainteviction", DELETION_REQUESTED)
                                        .test(e)
                                && e.subject().endsWith("/plain")),
                "plain tolerates the taint for 300 s");
        // The ReplicaSet replaces them; no kubelet finishes them: they stay Terminating.
        api.await(
                workloads.path("pods") + "?labelSelector=app%3Dweb",
                r -> r.body().path("items").size() == 4,
                WAIT,
                "two replacements beside the two terminating pods");
        for (JsonNode pod : workloads.pods("web")) {
            boolean old = webSubjects.contains(Workloads.subject(pod));
            assertEquals(old, pod.path("metadata").has("deletionTimestamp"), pod.toString());
            if (!old) {
                assertEquals("Pending", pod.path("status").path("phase").asText(), "no node is Ready");
            }
        }

        // An administrator declares the nodes out of service: the pod GC force-deletes what terminates there.
        Kubectl kubectl = new Kubectl(Kubectl.SYSTEM, suite.apiserverUrl());
        for (String node : new TreeSet<>(Set.of("node-1", "node-2"))) {
            Command.Result tainted =
                    kubectl.run("taint", "node", node, "node.kubernetes.io/out-of-service=nodeshutdown:NoExecute");
            assertEquals(0, tainted.exitCode(), tainted.toString());
        }
        List<Event> forced = log.awaitLog(
                events -> webSubjects.stream()
                                .allMatch(s ->
                                        events.stream().anyMatch(e -> e.is(OBJECT_REMOVED) && s.equals(e.subject())))
                        && events.stream()
                                .anyMatch(
                                        e -> e.is(OBJECT_REMOVED) && e.subject().endsWith("/pods/plain")),
                "the web pods and plain removed");
        List<Event> gc = forced.stream()
                .filter(from("/controller/podgc", DELETION_REQUESTED))
                .toList();
        assertEquals(
                new TreeSet<>(webSubjects),
                gc.stream()
                        .map(Event::subject)
                        .filter(webSubjects::contains)
                        .collect(Collectors.toCollection(TreeSet::new)),
                "force-deleted by the pod GC");
        assertTrue(gc.stream()
                .allMatch(e -> e.data(DeletionRequest.class).options().getGracePeriodSeconds() == 0));
        assertTrue(
                forced.stream()
                        .anyMatch(
                                e -> from("/controller/podgc", PATCH_REQUESTED).test(e)
                                        && e.data(PatchRequest.class)
                                                .patch()
                                                .path("status")
                                                .path("phase")
                                                .asText()
                                                .equals("Failed")),
                "made Failed first");

        // A replay tells a stopped kubelet by its silence for a node lease duration (40 s) while the log goes on.
        long untilSilent =
                Duration.between(Instant.now(), stopped.plusSeconds(45)).toMillis();
        if (untilSilent > 0) {
            Thread.sleep(untilSilent);
        }
        ObjectNode namespace =
                Json.MAPPER.createObjectNode().put("apiVersion", "v1").put("kind", "Namespace");
        namespace.putObject("metadata").put("name", "after-the-failure");
        assertEquals(201, api.post("/api/v1/namespaces", namespace).code());

        List<Event> topic = ScenarioReplay.topic(suite, TOPIC, dir);
        Instant since = ScenarioReplay.since(topic, mark);
        Replay replay = ScenarioReplay.assertReproduces("node-failure", ScenarioReplay.scenario(topic, since), since);
        assertEquals(
                Duration.ofSeconds(20), replay.recording().controllerManager().nodeMonitorGracePeriod());
    }
}
