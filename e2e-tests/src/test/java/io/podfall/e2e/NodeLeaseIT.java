package io.podfall.e2e;

import static io.podfall.e2e.SuiteClient.condition;
import static io.podfall.e2e.SuiteClient.hasTaint;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.log.EventLog;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.e2e.clients.Command;
import io.podfall.e2e.clients.Kubectl;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The node's heartbeat and conditions: the kubelet's Lease in kube-node-lease, renewed every 10 s; node pressure as the
 * node's condition, the node lifecycle controller's taint, and a scheduler that then places no new pod there.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class NodeLeaseIT {
    private static final String LEASE = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1";
    private static final String NODE = "/api/v1/nodes/node-1";
    private static final String NODE_SUBJECT = "nodes/node-1";
    private static ApiClient api;
    private static Suite suite;

    @BeforeAll
    static void clients(Suite running) {
        suite = running;
        api = new ApiClient(running.apiserverUrl());
    }

    private static Instant renewTime(ApiClient.Response lease) {
        return Instant.parse(lease.body().path("spec").path("renewTime").asText());
    }

    @Test
    void theNodesLeaseIsHeldByItOwnedByItAndRenewedEveryTenSecondsEachRenewalAFlowOfItsOwn() {
        ApiClient.Response first =
                api.await(LEASE, r -> r.code() == 200, Duration.ofSeconds(60), "the Lease of node-1");
        JsonNode spec = first.body().path("spec");
        assertEquals("node-1", spec.path("holderIdentity").asText());
        assertEquals(40, spec.path("leaseDurationSeconds").asInt());
        JsonNode owner = first.body().path("metadata").path("ownerReferences").get(0);
        assertEquals("Node", owner.path("kind").asText());
        assertEquals("node-1", owner.path("name").asText());

        Instant before = renewTime(first);
        Instant after =
                renewTime(api.await(LEASE, r -> renewTime(r).isAfter(before), Duration.ofSeconds(60), "a renewal"));
        long seconds = Duration.between(before, after).toMillis();
        assertTrue(
                seconds > 0 && seconds % 10_000 == 0,
                "renewals fall on the 10 s grid of the renewTime: " + before + " → " + after);

        List<Event> renewals;
        try (EventLog log = new EventLog(suite.bootstrapServers(), SuiteExtension.TOPIC)) {
            renewals = log.readToEnd(Duration.ofSeconds(10)).stream()
                    .filter(e -> e.is(EventTypes.UPDATE_REQUESTED)
                            && e.subject().equals("namespaces/kube-node-lease/leases/node-1"))
                    // clients' PUTs through the REST front door (ApiFuzzIT's hostile ones, refused) are no renewals
                    .filter(e -> !"/apiserver".equals(e.source()))
                    .toList();
        }
        assertFalse(renewals.isEmpty());
        for (Event renewal : renewals) {
            assertEquals("/kubelet/node-1", renewal.source());
            assertEquals(renewal.id(), renewal.correlationId(), "a renewal is part of no other flow");
        }
        assertEquals(
                renewals.size(),
                renewals.stream()
                        .map(e -> e.data()
                                .path("object")
                                .path("spec")
                                .path("renewTime")
                                .asText())
                        .distinct()
                        .count(),
                "no due time renewed twice");
    }

    @Test
    void kubectlListsTheNodeLeases() {
        assumeTrue(Kubectl.SYSTEM != null, "kubectl is not on this machine");
        api.await(LEASE, r -> r.code() == 200, Duration.ofSeconds(60), "the Lease of node-1");
        Command.Result leases =
                new Kubectl(Kubectl.SYSTEM, suite.apiserverUrl()).run("get", "leases", "-n", "kube-node-lease");
        assertEquals(0, leases.exitCode(), leases.toString());
        assertTrue(leases.stdout().matches("(?s)NAME\\s+HOLDER\\s+AGE\\s+node-1\\s+node-1\\s+.*"), leases.stdout());
    }

    @Test
    void underMemoryPressureTheNodeReportsItIsTaintedAndANewPodStaysPendingUntilThePressureEnds() {
        assumeTrue(Kubectl.SYSTEM != null, "kubectl is not on this machine");
        Kubectl kubectl = new Kubectl(Kubectl.SYSTEM, suite.apiserverUrl());
        String name = "waits-for-pressure-to-end";
        Command.Result annotated = kubectl.run("annotate", "node", "node-1", "podfall.io/pressure=memory");
        assertEquals(0, annotated.exitCode(), annotated.toString());
        try {
            api.await(
                    NODE,
                    r -> "True"
                            .equals(condition(r.body(), "MemoryPressure")
                                    .path("status")
                                    .asText()),
                    Duration.ofSeconds(60),
                    "MemoryPressure True");
            api.await(
                    NODE,
                    r -> hasTaint(r.body(), "node.kubernetes.io/memory-pressure", "NoSchedule"),
                    Duration.ofSeconds(60),
                    "the memory-pressure taint");

            assertEquals(
                    201,
                    api.post(
                                    "/api/v1/namespaces/default/pods",
                                    new PodBuilder()
                                            .withNewMetadata()
                                            .withName(name)
                                            .endMetadata()
                                            .withNewSpec()
                                            .addNewContainer()
                                            .withName("app")
                                            .withImage("nginx")
                                            .endContainer()
                                            .endSpec()
                                            .build())
                            .code());
            JsonNode pending = api.await(
                            "/api/v1/namespaces/default/pods/" + name,
                            r -> "Unschedulable"
                                    .equals(condition(r.body(), "PodScheduled")
                                            .path("reason")
                                            .asText()),
                            Duration.ofSeconds(60),
                            name + " Unschedulable")
                    .body();
            assertEquals(
                    "0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/memory-pressure: }. "
                            + "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
                    condition(pending, "PodScheduled").path("message").asText());
            assertTrue(pending.path("spec").path("nodeName").isMissingNode(), "not placed on the pressured node");

            List<Event> node;
            try (EventLog log = new EventLog(suite.bootstrapServers(), SuiteExtension.TOPIC)) {
                node = log.readToEnd(Duration.ofSeconds(10)).stream()
                        .filter(e -> NODE_SUBJECT.equals(e.subject()))
                        .toList();
            }
            Event reported = node.stream()
                    .filter(e -> e.is(EventTypes.PATCH_REQUESTED)
                            && e.source().equals("/kubelet/node-1")
                            && e.data().toString().contains("KubeletHasInsufficientMemory"))
                    .findFirst()
                    .orElseThrow();
            Event tainted = node.stream()
                    .filter(e -> e.is(EventTypes.PATCH_REQUESTED)
                            && e.source().equals("/controller/nodelifecycle")
                            && e.data().toString().contains("memory-pressure"))
                    .findFirst()
                    .orElseThrow();
            assertEquals(
                    reported.correlationId(), tainted.correlationId(), "one flow from the annotation to the taint");
        } finally {
            assertEquals(
                    0,
                    kubectl.run("annotate", "node", "node-1", "podfall.io/pressure-")
                            .exitCode());
        }
        api.await(
                NODE,
                r -> !hasTaint(r.body(), "node.kubernetes.io/memory-pressure", "NoSchedule")
                        && "False"
                                .equals(condition(r.body(), "MemoryPressure")
                                        .path("status")
                                        .asText()),
                Duration.ofSeconds(60),
                "the pressure cleared");
        JsonNode placed = api.await(
                        "/api/v1/namespaces/default/pods/" + name,
                        r -> "node-1"
                                .equals(r.body().path("spec").path("nodeName").asText()),
                        Duration.ofSeconds(60),
                        name + " placed")
                .body();
        assertEquals("node-1", placed.path("spec").path("nodeName").asText());
        assertEquals(0, kubectl.run("delete", "pod", name, "--grace-period=1").exitCode());
    }
}
