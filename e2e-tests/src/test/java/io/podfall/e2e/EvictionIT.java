package io.podfall.e2e;

import static io.podfall.e2e.SuiteClient.first;
import static io.podfall.model.event.EventTypes.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.Suite;
import io.podfall.e2e.clients.Command;
import io.podfall.e2e.clients.Kubectl;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The two ways a pod is evicted: through the Eviction API, as {@code kubectl drain} does it (a graceful delete with the
 * Eviction's options, the pod marked with a DisruptionTarget condition first), and by its kubelet under node pressure
 * (killed with the kubelet's grace override, left Failed/Evicted, not deleted).
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class EvictionIT {
    private static final String PODS = "/api/v1/namespaces/default/pods/";
    private static SuiteClient pods;
    private static Kubectl kubectl;

    @BeforeAll
    static void clients(Suite running) {
        assumeTrue(Kubectl.SYSTEM != null, "kubectl is not on this machine");
        pods = new SuiteClient(running);
        kubectl = new Kubectl(Kubectl.SYSTEM, running.apiserverUrl());
    }

    private static Pod pod(String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .addToAnnotations("podfall.io/exit-delay-seconds", "1")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build();
    }

    @Test
    void theEvictionApiDeletesThePodGracefullyWithTheEvictionsOptions() {
        pods.createRunning(pod("evicted-by-api"));
        JsonNode eviction = Json.read("""
                {"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"evicted-by-api"},
                 "deleteOptions":{"gracePeriodSeconds":7}}""".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        var answer = pods.api.post(PODS + "evicted-by-api/eviction", eviction);
        assertEquals(201, answer.code(), answer.body().toString());
        assertEquals("Success", answer.body().path("status").asText());

        List<Event> all = pods.eventsOf("evicted-by-api", SANDBOX_REMOVED, Duration.ofSeconds(60));
        Event requested = first(all, EVICTION_REQUESTED, null);
        List<Event> events = all.subList(all.indexOf(requested), all.size());
        Event disrupted = first(events, POD_STATUS_UPDATED, null);
        assertTrue(disrupted.data().toString().contains("EvictionByEvictionAPI"), "the DisruptionTarget condition");
        Event marked = first(events, OBJECT_MARKED_TERMINATING, null);
        assertEquals(
                7,
                marked.data()
                        .path("object")
                        .path("metadata")
                        .path("deletionGracePeriodSeconds")
                        .asInt());
        assertTrue(events.indexOf(requested) < events.indexOf(disrupted)
                && events.indexOf(disrupted) < events.indexOf(marked));
        first(events, OBJECT_REMOVED, null);
        assertEquals(requested.id(), marked.correlationId(), "one flow from the eviction request");
    }

    @Test
    void underNodePressureTheKubeletEvictsTheNewestPodAndLeavesItFailed() {
        String name = "evicted-by-kubelet";
        pods.createRunning(pod(name));
        Command.Result annotated = kubectl.run("annotate", "node", "node-1", "podfall.io/pressure=memory");
        assertEquals(0, annotated.exitCode(), annotated.toString());
        try {
            List<Event> events = pods.eventsOf(name, POD_EVICTED, Duration.ofSeconds(60));
            assertEquals(
                    "memory",
                    first(events, POD_EVICTED, null).data().path("resource").asText());
        } finally {
            assertEquals(
                    0,
                    kubectl.run("annotate", "node", "node-1", "podfall.io/pressure-")
                            .exitCode(),
                    "the pressure ends, so no other pod is evicted");
        }
        JsonNode evicted = pods.api
                .await(
                        PODS + name,
                        r -> "Failed"
                                .equals(r.body().path("status").path("phase").asText()),
                        Duration.ofSeconds(60),
                        name + " Failed")
                .body();
        assertEquals("Evicted", evicted.path("status").path("reason").asText());
        assertTrue(evicted.path("status").path("message").asText().startsWith("The node was low on resource: memory."));
        assertTrue(!evicted.path("metadata").has("deletionTimestamp"), "evicted by its kubelet, not deleted");

        Command.Result deleted = kubectl.run("delete", "pod", name);
        assertEquals(0, deleted.exitCode(), deleted.toString());
    }
}
