package io.podfall.e2e;

import static io.podfall.model.event.EventTypes.BINDING_REQUESTED;
import static io.podfall.model.event.EventTypes.OBJECT_REMOVED;
import static io.podfall.model.event.EventTypes.PATCH_REQUESTED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.broker.Broker;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.analysis.Check;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.e2e.clients.Command;
import io.podfall.e2e.clients.Kubectl;
import io.podfall.model.event.Event;
import io.podfall.model.event.Subjects;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduler's filters end to end, on a suite of its own: one kubelet with two small nodes (1 cpu, 1Gi each, set by
 * {@code podfall.kubelet.node-capacity}), driven by the real kubectl. A pod whose node selector no node matches stays
 * Pending and says why in upstream's words; a rollout on nodes with no room leaves the new pod Pending (Insufficient
 * cpu) until the old pod it replaces is gone, since a terminating pod keeps its requests on its node, and the pass that
 * follows the old pod's leaving (its terminal phase or its removal) binds it. Each scenario replays in process with no
 * divergence.
 */
@ExtendWith(KafkaBrokerExtension.class)
class SchedulingIT {
    private static final String TOPIC = "podfall.scheduling";
    private static final Duration WAIT = Workloads.WAIT;
    private static final String PODS = "/api/v1/namespaces/default/pods";

    private static Suite suite;
    private static Kubectl kubectl;
    private static ApiClient api;
    private static Workloads workloads;

    @TempDir
    Path dir;

    @BeforeAll
    static void twoSmallNodes(Broker broker) throws IOException {
        assumeTrue(Kubectl.SYSTEM != null, "kubectl is not on this machine");
        suite = ScenarioReplay.start(
                broker.bootstrapServers(),
                TOPIC,
                new Suite.Tuning(
                        Map.of(
                                "podfall.kubelet.nodes", "node-1,node-2",
                                "podfall.kubelet.node-capacity", "cpu=1,memory=1Gi,pods=110"),
                        List.of()));
        kubectl = new Kubectl(Kubectl.SYSTEM, suite.apiserverUrl());
        api = new ApiClient(suite.apiserverUrl());
        workloads = new Workloads(api, "default");
    }

    @AfterAll
    static void stop() {
        if (suite != null) {
            suite.close();
        }
    }

    @Test
    void eachNodeReportsTheCapacityItWasGiven() {
        api.await("/api/v1/nodes/node-2", r -> r.code() == 200, WAIT, "node-2 registered");
        Command.Result cpu = kubectl.run("get", "node", "node-2", "-o", "jsonpath={.status.allocatable.cpu}");
        assertEquals("1", cpu.stdout().trim(), cpu.toString());
        Command.Result memory = kubectl.run("get", "node", "node-1", "-o", "jsonpath={.status.capacity.memory}");
        assertEquals("1Gi", memory.stdout().trim(), memory.toString());
    }

    @Test
    void aPodWhoseNodeSelectorNoNodeMatchesStaysPendingAndSaysWhy() throws InterruptedException {
        Instant mark = Instant.now();
        Command.Result applied = kubectl.runWithInput("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"nowhere"},
                 "spec":{"nodeSelector":{"no-such":"node"},"containers":[{"name":"app","image":"nginx:1.27"}]}}""", "apply", "-f", "-");
        assertEquals(0, applied.exitCode(), applied.toString());

        JsonNode pod = api.await(PODS + "/nowhere", r -> unschedulable(r.body()).isPresent(), WAIT, "nowhere told why")
                .body();
        assertEquals(
                "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: "
                        + "0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
                unschedulable(pod).orElseThrow().path("message").asText());
        assertEquals("Pending", pod.path("status").path("phase").asText());
        assertTrue(pod.path("spec").path("nodeName").isMissingNode(), pod.toString());
        Command.Result got = kubectl.run("get", "pod", "nowhere", "--no-headers");
        assertTrue(got.stdout().contains("Pending"), got.toString());
        Command.Result described = kubectl.run("describe", "pod", "nowhere");
        assertEquals(0, described.exitCode(), described.toString());
        assertTrue(described.stdout().matches("(?s).*Status:\\s+Pending.*"), described.stdout());
        assertTrue(described.stdout().matches("(?s).*PodScheduled\\s+False.*"), described.stdout());
        assertTrue(described.stdout().contains("no-such=node"), described.stdout());

        assertEquals(0, kubectl.run("delete", "pod", "nowhere", "--wait=true").exitCode());
        List<Event> topic = ScenarioReplay.topic(suite, TOPIC, dir);
        Instant since = ScenarioReplay.since(topic, mark);
        ScenarioReplay.assertReproduces("scheduling-node-selector", ScenarioReplay.scenario(topic, since), since);
    }

    /**
     * Two replicas of 600m on two nodes of 1 cpu: no node has room for a third. The rollout (maxSurge 0, maxUnavailable
     * 1) scales the old ReplicaSet down and the new one up at once, so each new pod is created while the old pod it
     * replaces still terminates on its node, and waits for it.
     */
    @Test
    void aRolloutOnFullNodesLeavesTheNewPodPendingUntilTheOldOneIsGone() throws InterruptedException {
        Instant mark = Instant.now(); // the replay needs the Deployment's creation as much as its rollout
        Command.Result created = kubectl.runWithInput(deployment(), "apply", "-f", "-");
        assertEquals(0, created.exitCode(), created.toString());
        workloads.awaitReady("roll", 2);

        Command.Result rolled = kubectl.run("set", "image", "deployment/roll", "app=nginx:1.28");
        assertEquals(0, rolled.exitCode(), rolled.toString());

        JsonNode pending = api.await(
                        PODS + "?labelSelector=app%3Droll",
                        r -> pendingPod(r.body()).isPresent(),
                        WAIT,
                        "a new pod of roll Pending, Unschedulable")
                .body();
        JsonNode waiting = pendingPod(pending).orElseThrow();
        assertEquals(
                "0/2 nodes are available: 2 Insufficient cpu. preemption: "
                        + "0/2 nodes are available: 2 No preemption victims found for incoming pod.",
                unschedulable(waiting).orElseThrow().path("message").asText());
        // the rollout done: both replicas of the new template ready, and only they left (readyReplicas alone is 2 while
        // the first new pod and the second old one run)
        api.await(
                "/apis/apps/v1/namespaces/default/deployments/roll",
                r -> r.body().path("status").path("updatedReplicas").asInt() == 2
                        && r.body().path("status").path("readyReplicas").asInt() == 2
                        && r.body().path("status").path("replicas").asInt() == 2
                        && r.body().path("status").path("observedGeneration").asLong()
                                >= r.body().path("metadata").path("generation").asLong(),
                WAIT,
                "roll rolled out");
        api.await(
                PODS + "?labelSelector=app%3Droll",
                r -> r.body().path("items").size() == 2,
                WAIT,
                "the old pods of roll gone");

        List<Event> topic = ScenarioReplay.topic(suite, TOPIC, dir);
        List<Check.Finding> findings = Check.of(topic);
        assertFalse(Check.hasErrors(findings), findings.toString());
        for (JsonNode pod : workloads.pods("roll")) {
            String name = pod.path("metadata").path("name").asText();
            assertBoundOnlyAfterAnOldPodLeftItsNode(topic, name);
            // podfall check names the wait: Pending for room while an old pod was Terminating, then bound
            assertTrue(
                    findings.stream()
                            .anyMatch(f -> f.rule().equals("pending-while-terminating")
                                    && f.subject().equals(Subjects.of("default", "pods", name))
                                    && f.message().contains("Insufficient cpu")
                                    && f.message().contains("then bound to node-")),
                    findings.toString());
        }
        Instant since = ScenarioReplay.since(topic, mark);
        ScenarioReplay.assertReproduces("scheduling-rollout", ScenarioReplay.scenario(topic, since), since);
        assertEquals(0, kubectl.run("delete", "deployment", "roll").exitCode());
        workloads.awaitNone("roll");
    }

    /**
     * On the log: the scheduler said the new pod was Unschedulable for Insufficient cpu, and its binding is the
     * scheduler's reaction to an old pod leaving that very node: its removal, or its terminal phase if that came first
     * (the scheduler's informer drops a Succeeded or Failed pod, {@code pkg/scheduler/scheduler.go}), never sooner.
     */
    private static void assertBoundOnlyAfterAnOldPodLeftItsNode(List<Event> topic, String name) {
        String subject = Subjects.of("default", "pods", name);
        int told = indexOf(
                topic,
                e -> e.is(PATCH_REQUESTED)
                        && subject.equals(e.subject())
                        && e.data().toString().contains("Insufficient cpu"));
        int bound = indexOf(topic, e -> e.is(BINDING_REQUESTED) && subject.equals(e.subject()));
        assertTrue(
                told >= 0 && bound > told, name + ": told Unschedulable (" + told + ") before bound (" + bound + ")");
        Event binding = topic.get(bound);
        int left = indexOf(topic, e -> e.id().equals(binding.causationId()));
        assertTrue(left >= 0 && left < bound, name + "'s binding follows its cause");
        Event cause = topic.get(left);
        JsonNode old = cause.data().path("object");
        assertTrue(
                cause.is(OBJECT_REMOVED)
                        || List.of("Succeeded", "Failed")
                                .contains(old.path("status").path("phase").asText()),
                name + " bound in reaction to " + cause.type() + " " + cause.subject());
        assertTrue(
                cause.subject().startsWith("namespaces/default/pods/roll-")
                        && !cause.subject().equals(subject),
                cause.subject());
        assertEquals(
                binding.data().path("nodeName").asText(),
                old.path("spec").path("nodeName").asText(),
                "the old pod freed the node the new one goes to");
        String oldSubject = cause.subject();
        int removed = indexOf(topic, e -> e.is(OBJECT_REMOVED) && oldSubject.equals(e.subject()));
        assertTrue(removed >= left, "the old pod is removed, at or after it left the scheduler's cache");
    }

    private static int indexOf(List<Event> events, java.util.function.Predicate<Event> which) {
        return IntStream.range(0, events.size())
                .filter(i -> which.test(events.get(i)))
                .findFirst()
                .orElse(-1);
    }

    /** The pod's PodScheduled condition if it says Unschedulable. */
    private static Optional<JsonNode> unschedulable(JsonNode pod) {
        for (JsonNode c : pod.path("status").path("conditions")) {
            if ("PodScheduled".equals(c.path("type").asText())
                    && "False".equals(c.path("status").asText())
                    && "Unschedulable".equals(c.path("reason").asText())) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /** A pod of the list, not being deleted, that waits Unschedulable. */
    private static Optional<JsonNode> pendingPod(JsonNode list) {
        for (JsonNode pod : list.path("items")) {
            if (!pod.path("metadata").has("deletionTimestamp")
                    && "Pending".equals(pod.path("status").path("phase").asText())
                    && unschedulable(pod).isPresent()) {
                return Optional.of(pod);
            }
        }
        return Optional.empty();
    }

    /** Deployment roll: 2 replicas of 600m cpu, 64Mi; a rolling update that removes before it adds. */
    private static String deployment() {
        return """
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"roll"},
                 "spec":{"replicas":2,"selector":{"matchLabels":{"app":"roll"}},
                  "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":0,"maxUnavailable":1}},
                  "template":{"metadata":{"labels":{"app":"roll"},"annotations":{"podfall.io/exit-delay-seconds":"1"}},
                   "spec":{"terminationGracePeriodSeconds":10,"containers":[{"name":"app","image":"nginx:1.27",
                    "resources":{"requests":{"cpu":"600m","memory":"64Mi"}}}]}}}}""";
    }
}
