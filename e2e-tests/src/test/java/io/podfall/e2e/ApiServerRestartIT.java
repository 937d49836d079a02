package io.podfall.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.Suite;
import io.podfall.model.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The API server goes down in the middle of a pod's deletion while the node goes on: the kubelet's final status and
 * delete reach the log while nobody serves HTTP. Back, the API server has rebuilt its state from the log and caught up
 * on what it missed; a client that resumes its watch from the last resourceVersion it saw gets every change after it,
 * once, in order, and new resourceVersions are higher than any before the restart.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class ApiServerRestartIT {
    private static final String PODS = "/api/v1/namespaces/default/pods";
    private static Suite suite;
    private static SuiteClient pods;

    @BeforeAll
    static void clients(Suite running) {
        suite = running;
        pods = new SuiteClient(running);
    }

    @Test
    void aWatchResumedAfterARestartMissesNothing() throws Exception {
        String name = "apiserver-restart";
        pods.createRunning(exitsAfter(name, "3"));
        // What a client saw last before the restart: the pod marked for deletion.
        pods.delete(name, 30);
        JsonNode terminating = pods.api.get(PODS + "/" + name).body();
        long lastSeen = resourceVersion(terminating);
        assertTrue(terminating.path("metadata").has("deletionTimestamp"));

        suite.restart("apiserver-svc");

        List<JsonNode> resumed = watch(name, lastSeen);
        assertEquals(
                List.of("MODIFIED", "MODIFIED", "DELETED"),
                resumed.stream().map(e -> e.path("type").asText()).toList(),
                "the final status, the final delete's grace 0, then the removal: " + resumed);
        assertEquals(
                "Failed",
                resumed.get(0).path("object").path("status").path("phase").asText());
        assertEquals(
                0,
                resumed.get(1)
                        .path("object")
                        .path("metadata")
                        .path("deletionGracePeriodSeconds")
                        .asInt(-1));
        assertEquals(
                terminating.path("metadata").path("uid"),
                resumed.get(2).path("object").path("metadata").path("uid"));
        long previous = lastSeen;
        for (JsonNode event : resumed) {
            long rv = resourceVersion(event.path("object"));
            assertTrue(rv > previous, "resourceVersions increase: " + resumed);
            previous = rv;
        }

        String after = name + "-after";
        pods.createRunning(exitsAfter(after, "0"));
        assertTrue(
                resourceVersion(pods.api.get(PODS + "/" + after).body()) > previous,
                "a change after the restart gets a higher resourceVersion than any before it");
        pods.delete(after, 1);
    }

    /** A pod whose process exits the given seconds after SIGTERM. */
    private static Pod exitsAfter(String name, String seconds) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .addToAnnotations("podfall.io/exit-delay-seconds", seconds)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build();
    }

    /**
     * The watch events of one pod after {@code resourceVersion}, read as a client's watch does, until the pod is
     * deleted or the server's timeout ends the watch.
     */
    private static List<JsonNode> watch(String name, long resourceVersion) throws IOException, InterruptedException {
        URI uri = URI.create(suite.apiserverUrl() + PODS + "?watch=true&timeoutSeconds=60&resourceVersion="
                + resourceVersion + "&fieldSelector=metadata.name%3D" + name);
        HttpResponse<Stream<String>> response = HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofLines());
        assertEquals(200, response.statusCode());
        List<JsonNode> events = new ArrayList<>();
        try (Stream<String> lines = response.body()) {
            var it = lines.iterator();
            while (it.hasNext()) {
                JsonNode event = Json.read(it.next().getBytes(StandardCharsets.UTF_8));
                events.add(event);
                if ("DELETED".equals(event.path("type").asText())) {
                    break;
                }
            }
        }
        return events;
    }

    private static long resourceVersion(JsonNode object) {
        return Long.parseLong(object.path("metadata").path("resourceVersion").asText());
    }
}
