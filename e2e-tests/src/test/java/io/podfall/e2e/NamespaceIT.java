package io.podfall.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A namespace's life with kubectl 1.32, whose {@code create} commands send protobuf: created with content, then
 * deleted; {@code kubectl delete namespace} returns once the namespace controller has emptied it and the API server
 * removed it, and everything in it was deleted in the flow of that one request.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class NamespaceIT {
    private static Suite suite;
    private static Kubectl kubectl;
    private static ApiClient api;

    @BeforeAll
    static void clients(Suite running) {
        assumeTrue(Kubectl.SYSTEM != null, "kubectl is not on this machine");
        suite = running;
        kubectl = new Kubectl(Kubectl.SYSTEM, running.apiserverUrl());
        api = new ApiClient(running.apiserverUrl());
    }

    private static void ok(Command.Result result) {
        assertEquals(0, result.exitCode(), result.toString());
    }

    @Test
    void deletingANamespaceDeletesEverythingInItThenTheNamespace() {
        ok(kubectl.run("create", "namespace", "team-a"));
        ok(kubectl.run(
                "create", "deployment", "web", "--image=nginx:1.27", "--replicas=2", "--port=80", "-n", "team-a"));
        ok(kubectl.run("create", "service", "clusterip", "web", "--tcp=80:80", "-n", "team-a"));
        api.await(
                "/api/v1/namespaces/team-a/pods",
                r -> r.body().path("items").size() == 2
                        && "Running"
                                .equals(r.body()
                                        .path("items")
                                        .path(1)
                                        .path("status")
                                        .path("phase")
                                        .asText()),
                Duration.ofSeconds(90),
                "the deployment's pods running");

        Command.Result deleted = kubectl.run("delete", "namespace", "team-a");
        ok(deleted);
        assertEquals("namespace \"team-a\" deleted", deleted.stdout().trim());
        assertEquals(404, api.get("/api/v1/namespaces/team-a").code(), "kubectl waited for the removal");
        assertTrue(
                api.get("/api/v1/namespaces/team-a/pods").body().path("items").isEmpty());
        assertTrue(api.get("/apis/apps/v1/namespaces/team-a/deployments")
                .body()
                .path("items")
                .isEmpty());

        List<Event> log;
        try (EventLog events = new EventLog(suite.bootstrapServers(), SuiteExtension.TOPIC)) {
            log = events.readToEnd(Duration.ofSeconds(10));
        }
        Event request = log.stream()
                .filter(e -> e.is(EventTypes.DELETION_REQUESTED)
                        && e.subject().equals(Subjects.of("", "namespaces", "team-a")))
                .findFirst()
                .orElseThrow();
        Set<String> emptied = log.stream()
                .filter(e -> e.is(EventTypes.COLLECTION_DELETION_REQUESTED)
                        && request.id().equals(e.correlationId()))
                .map(e -> e.data().path("resource").asText())
                .collect(Collectors.toSet());
        assertTrue(emptied.containsAll(Set.of("pods", "services", "deployments", "replicasets")), emptied.toString());
        assertTrue(
                log.stream()
                        .anyMatch(e -> e.is(EventTypes.UPDATE_REQUESTED)
                                && request.id().equals(e.correlationId())
                                && "finalize"
                                        .equals(e.data().path("subresource").asText())),
                "the namespace controller finalized it");
    }

    @Test
    void nothingCanBeCreatedInANamespaceThatDoesNotExist() {
        Command.Result refused = kubectl.run("create", "deployment", "web", "--image=nginx:1.27", "-n", "nope");
        assertEquals(1, refused.exitCode(), refused.toString());
        assertTrue(refused.stderr().contains("namespaces \"nope\" not found"), refused.stderr());
    }
}
