package io.podfall.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.log.EventLog;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.e2e.clients.Command;
import io.podfall.e2e.clients.Kubectl;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A Deployment's life through the controller manager, driven by the real kubectl: its ReplicaSet and pods are created,
 * a deleted pod is replaced while it still terminates, and deleting the Deployment cascades as each {@code --cascade}
 * mode says, every pod's deletion carrying the correlation of kubectl's request.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class DeploymentIT {
    private static final String NS = "/namespaces/default/";
    private static final Duration WAIT = Workloads.WAIT;
    private static Suite suite;
    private static Kubectl kubectl;
    private static ApiClient api;
    private static Workloads workloads;

    @BeforeAll
    static void clients(Suite running) {
        assumeTrue(Kubectl.SYSTEM != null, "kubectl is not on this machine");
        suite = running;
        kubectl = new Kubectl(Kubectl.SYSTEM, running.apiserverUrl());
        api = new ApiClient(running.apiserverUrl());
        workloads = new Workloads(api, "default");
    }

    /** The Deployment applied with kubectl, then ready. */
    private static void deploy(String name, int replicas) {
        Command.Result created =
                kubectl.runWithInput(Workloads.deployment(name, replicas).toString(), "apply", "-f", "-");
        assertEquals(0, created.exitCode(), created.toString());
        workloads.awaitReady(name, replicas);
    }

    @Test
    void theDeploymentOwnsAReplicaSetThatOwnsItsPods() {
        deploy("web-owned", 2);
        JsonNode deployment =
                api.get("/apis/apps/v1" + NS + "deployments/web-owned").body();
        List<JsonNode> rs = workloads.replicaSets("web-owned");
        assertEquals(1, rs.size());
        JsonNode owner = rs.get(0).path("metadata").path("ownerReferences").path(0);
        assertEquals(deployment.path("metadata").path("uid"), owner.path("uid"));
        assertTrue(owner.path("controller").asBoolean()
                && owner.path("blockOwnerDeletion").asBoolean());
        String hash = rs.get(0)
                .path("metadata")
                .path("labels")
                .path("pod-template-hash")
                .asText();
        assertEquals(
                "web-owned-" + hash, rs.get(0).path("metadata").path("name").asText());
        for (JsonNode pod : workloads.pods("web-owned")) {
            assertEquals(
                    rs.get(0).path("metadata").path("uid"),
                    pod.path("metadata").path("ownerReferences").path(0).path("uid"));
            assertTrue(pod.path("metadata").path("name").asText().startsWith("web-owned-" + hash + "-"));
        }
        assertEquals(0, kubectl.run("delete", "deployment", "web-owned").exitCode());
        workloads.awaitNone("web-owned");
    }

    @Test
    void aDeletedPodIsReplacedWhileItStillTerminates() {
        deploy("web-replace", 3);
        String victim = workloads
                .pods("web-replace")
                .get(0)
                .path("metadata")
                .path("name")
                .asText();
        assertEquals(0, kubectl.run("delete", "pod", victim, "--wait=false").exitCode());

        JsonNode all = api.await(
                        "/api/v1" + NS + "pods?labelSelector=app%3Dweb-replace",
                        r -> r.body().path("items").size() == 4,
                        WAIT,
                        "a replacement beside the terminating pod")
                .body();
        List<JsonNode> terminating = new ArrayList<>();
        all.path("items").forEach(p -> {
            if (p.path("metadata").has("deletionTimestamp")) {
                terminating.add(p);
            }
        });
        assertEquals(
                Set.of(victim), Workloads.names(terminating), "the old pod still terminates beside its replacement");

        workloads.awaitGone("/api/v1" + NS + "pods/" + victim, victim);
        workloads.awaitReady("web-replace", 3);
        assertFalse(Workloads.names(workloads.pods("web-replace")).contains(victim));
        assertEquals(0, kubectl.run("delete", "deployment", "web-replace").exitCode());
        workloads.awaitNone("web-replace");
    }

    @Test
    void backgroundCascadeRemovesTheDeploymentAtOnceAndTheDependentsFollowInTheRequestsCorrelation() {
        deploy("web-bg", 2);
        Set<String> before = Workloads.names(workloads.pods("web-bg"));
        Command.Result deleted = kubectl.run("delete", "deployment", "web-bg");
        assertEquals(0, deleted.exitCode(), deleted.toString());
        assertEquals("deployment.apps \"web-bg\" deleted", deleted.stdout().trim());
        assertEquals(404, api.get("/apis/apps/v1" + NS + "deployments/web-bg").code());
        workloads.awaitNone("web-bg");

        List<Event> log = readLog();
        Event request = log.stream()
                .filter(e -> e.is(EventTypes.DELETION_REQUESTED)
                        && e.subject().equals(Subjects.of("default", "deployments", "web-bg")))
                .findFirst()
                .orElseThrow();
        Set<String> deletedByGc = log.stream()
                .filter(e -> e.is(EventTypes.DELETION_REQUESTED)
                        && e.source().equals("/controller/garbagecollector")
                        && request.id().equals(e.correlationId())
                        && e.subject().contains("/pods/"))
                .map(e -> e.subject().substring(e.subject().lastIndexOf('/') + 1))
                .collect(Collectors.toSet());
        assertEquals(before, deletedByGc, "every pod deleted by the garbage collector in kubectl's correlation");
    }

    @Test
    void foregroundCascadeKeepsTheDeploymentUntilItsReplicaSetAndPodsAreGone() {
        deploy("web-fg", 2);
        Command.Result deleted = kubectl.run("delete", "deployment", "web-fg", "--cascade=foreground", "--wait=false");
        assertEquals(0, deleted.exitCode(), deleted.toString());
        ApiClient.Response deleting = api.get("/apis/apps/v1" + NS + "deployments/web-fg");
        assertEquals(200, deleting.code(), "kept while dependents exist");
        assertTrue(deleting.body().path("metadata").has("deletionTimestamp"));
        assertEquals(
                "foregroundDeletion",
                deleting.body().path("metadata").path("finalizers").path(0).asText());

        workloads.awaitGone("/apis/apps/v1" + NS + "deployments/web-fg", "web-fg");
        assertTrue(workloads.pods("web-fg").isEmpty(), "no pod outlives its Deployment in foreground");
        assertTrue(workloads.replicaSets("web-fg").isEmpty());
    }

    @Test
    void orphanCascadeLeavesTheReplicaSetAndPodsRunningWithoutTheDeploymentAsOwner() {
        deploy("web-or", 2);
        Set<String> before = Workloads.names(workloads.pods("web-or"));
        Command.Result deleted = kubectl.run("delete", "deployment", "web-or", "--cascade=orphan");
        assertEquals(0, deleted.exitCode(), deleted.toString());
        workloads.awaitGone("/apis/apps/v1" + NS + "deployments/web-or", "web-or");

        List<JsonNode> rs = workloads.replicaSets("web-or");
        assertEquals(1, rs.size());
        assertFalse(
                rs.get(0).path("metadata").has("ownerReferences")
                        && !rs.get(0).path("metadata").path("ownerReferences").isEmpty(),
                "no owner left: " + rs.get(0));
        assertEquals(before, Workloads.names(workloads.pods("web-or")), "the same pods still run");
        workloads.pods("web-or").forEach(p -> assertFalse(p.path("metadata").has("deletionTimestamp")));

        String rsName = rs.get(0).path("metadata").path("name").asText();
        assertEquals(0, kubectl.run("delete", "replicaset", rsName).exitCode());
        workloads.awaitNone("web-or");
    }

    @Test
    void aPodHeldByAFinalizerBlocksAForegroundDeletionUntilThePatchReleasesIt() {
        deploy("web-held", 1);
        String pod =
                workloads.pods("web-held").get(0).path("metadata").path("name").asText();
        assertEquals(
                0,
                kubectl.run(
                                "patch",
                                "pod",
                                pod,
                                "--type=merge",
                                "-p",
                                "{\"metadata\":{\"finalizers\":[\"example.com/block\"]}}")
                        .exitCode());
        assertEquals(
                0,
                kubectl.run("delete", "deployment", "web-held", "--cascade=foreground", "--wait=false")
                        .exitCode());

        api.await(
                "/api/v1" + NS + "pods/" + pod,
                r -> r.body()
                                .path("metadata")
                                .path("deletionGracePeriodSeconds")
                                .asInt(-1)
                        == 0,
                WAIT,
                "the pod terminated, held by its finalizer");
        assertEquals(
                200,
                api.get("/apis/apps/v1" + NS + "deployments/web-held").code(),
                "the Deployment waits for the held pod");

        assertEquals(
                0,
                kubectl.run("patch", "pod", pod, "--type=merge", "-p", "{\"metadata\":{\"finalizers\":null}}")
                        .exitCode());
        workloads.awaitGone("/apis/apps/v1" + NS + "deployments/web-held", "web-held");
        workloads.awaitNone("web-held");
    }

    @Test
    void aPodLeavesItsServicesEndpointsAsSoonAsItIsMarkedForDeletionInTheDeletionsFlow() {
        deploy("web-svc", 2);
        Command.Result service =
                kubectl.runWithInput(Workloads.service("web-svc").toString(), "apply", "-f", "-");
        assertEquals(0, service.exitCode(), service.toString());
        api.await(
                "/api/v1" + NS + "endpoints/web-svc",
                r -> r.code() == 200
                        && r.body().path("subsets").path(0).path("addresses").size() == 2,
                WAIT,
                "both pods in the endpoints");
        JsonNode victim = workloads.pods("web-svc").get(0);
        String name = victim.path("metadata").path("name").asText();
        String ip = victim.path("status").path("podIP").asText();
        assertEquals(0, kubectl.run("delete", "pod", name, "--wait=false").exitCode());

        String subject = Subjects.of("default", "pods", name);
        String endpoints = Subjects.of("default", "endpoints", "web-svc");
        List<Event> log;
        try (EventLog events = new EventLog(suite.bootstrapServers(), SuiteExtension.TOPIC)) {
            // until the Endpoints changed in the deletion's flow
            log = events.readUntil(
                    all -> all.stream()
                            .anyMatch(e -> e.is(EventTypes.OBJECT_UPDATED)
                                    && e.subject().equals(endpoints)
                                    && all.stream()
                                            .anyMatch(r -> r.is(EventTypes.DELETION_REQUESTED)
                                                    && r.subject().equals(subject)
                                                    && r.id().equals(e.correlationId()))),
                    WAIT);
        }
        Event request = log.stream()
                .filter(e -> e.is(EventTypes.DELETION_REQUESTED)
                        && e.subject().equals(subject)
                        && e.id().equals(e.correlationId()))
                .findFirst()
                .orElseThrow();
        Event marked = log.stream()
                .filter(e -> e.is(EventTypes.OBJECT_MARKED_TERMINATING)
                        && e.subject().equals(subject))
                .findFirst()
                .orElseThrow();
        Event patch = log.stream()
                .filter(e -> e.is(EventTypes.PATCH_REQUESTED)
                        && e.subject().equals(endpoints)
                        && marked.id().equals(e.causationId()))
                .findFirst()
                .orElseThrow(
                        () -> new AssertionError("no endpoints patch caused by the pod's ObjectMarkedTerminating"));
        assertEquals("/controller/endpoint", patch.source());
        assertEquals(request.id(), patch.correlationId(), "in the deletion's flow");
        Event updated = log.stream()
                .filter(e -> e.is(EventTypes.OBJECT_UPDATED) && patch.id().equals(e.causationId()))
                .findFirst()
                .orElseThrow();
        assertEquals(request.id(), updated.correlationId());
        JsonNode addresses =
                updated.data().path("object").path("subsets").path(0).path("addresses");
        assertEquals(1, addresses.size(), "only the pod that is not being deleted: " + addresses);
        assertFalse(ip.equals(addresses.path(0).path("ip").asText()));

        assertEquals(0, kubectl.run("delete", "service", "web-svc").exitCode());
        assertEquals(0, kubectl.run("delete", "deployment", "web-svc").exitCode());
        workloads.awaitNone("web-svc");
        workloads.awaitGone("/api/v1" + NS + "endpoints/web-svc", "the Service's Endpoints");
    }

    private static List<Event> readLog() {
        try (EventLog log = new EventLog(suite.bootstrapServers(), SuiteExtension.TOPIC)) {
            return log.readToEnd(Duration.ofSeconds(10));
        }
    }
}
