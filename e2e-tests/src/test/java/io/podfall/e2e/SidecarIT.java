package io.podfall.e2e;

import static io.podfall.model.event.EventTypes.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.Suite;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Init containers and sidecars over Kafka, read from the log (SidecarContainers, on by default since Kubernetes 1.29):
 * started one after the other before the main container, and on deletion stopped after it, in reverse order, all within
 * the pod's one grace period.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class SidecarIT {
    private static final String KUBECTL_GET = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

    private static Suite suite;
    private static SuiteClient pods;

    @BeforeAll
    static void clients(Suite running) {
        suite = running;
        pods = new SuiteClient(running);
    }

    /** A regular init container, the sidecars {@code proxy} then {@code log}, and {@code app}. */
    private static Pod pod(String name, String initRunSeconds) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                // every process takes 1 s to exit on SIGTERM
                .addToAnnotations("podfall.io/exit-delay-seconds", "1")
                .addToAnnotations("podfall.io/init-run-seconds", initRunSeconds)
                .endMetadata()
                .withNewSpec()
                .withTerminationGracePeriodSeconds(10L)
                .addNewInitContainer()
                .withName("setup")
                .withImage("busybox")
                .endInitContainer()
                .addNewInitContainer()
                .withName("proxy")
                .withImage("envoy")
                .withRestartPolicy("Always")
                .endInitContainer()
                .addNewInitContainer()
                .withName("log")
                .withImage("fluent-bit")
                .withRestartPolicy("Always")
                .endInitContainer()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build();
    }

    private static Event of(List<Event> events, String type, String container, String signal) {
        return events.stream()
                .filter(e -> e.is(type)
                        && container.equals(e.data().path("containerName").asText())
                        && (signal == null
                                || signal.equals(e.data().path("signal").asText())))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + type + " of " + container + " " + signal));
    }

    @Test
    void sidecarsStartBeforeTheMainContainerAndStopAfterItInReverseOrderWithinTheGracePeriod() {
        pods.createRunning(pod("sidecars", "0"));
        pods.delete("sidecars", 10);

        List<Event> events = pods.eventsOf("sidecars", SANDBOX_REMOVED, Duration.ofSeconds(90));
        assertEquals(
                List.of("setup", "proxy", "log", "app"),
                events.stream()
                        .filter(e -> e.is(CONTAINER_STARTED))
                        .map(e -> e.data().path("containerName").asText())
                        .toList(),
                "init containers one after the other, then the main container");
        assertTrue(of(events, CONTAINER_EXITED, "setup", null)
                        .time()
                        .compareTo(of(events, CONTAINER_STARTED, "proxy", null).time())
                <= 0);

        Instant deadline = Instant.parse(events.stream()
                .filter(e -> e.is(POD_TERMINATION_STARTED))
                .findFirst()
                .orElseThrow()
                .data()
                .path("deadline")
                .asText());
        Event appTerm = of(events, CONTAINER_SIGNALLED, "app", "SIGTERM");
        Event appExit = of(events, CONTAINER_EXITED, "app", null);
        Event logTerm = of(events, CONTAINER_SIGNALLED, "log", "SIGTERM");
        Event logExit = of(events, CONTAINER_EXITED, "log", null);
        Event proxyTerm = of(events, CONTAINER_SIGNALLED, "proxy", "SIGTERM");
        Event proxyExit = of(events, CONTAINER_EXITED, "proxy", null);
        assertTrue(!logTerm.time().isBefore(appExit.time()), "log is signalled once app has exited");
        assertTrue(!proxyTerm.time().isBefore(logExit.time()), "proxy once log has exited");
        assertTrue(appTerm.time().isBefore(logTerm.time()), "main container first");
        for (Event exit : List.of(appExit, logExit, proxyExit)) {
            assertEquals(143, exit.data().path("exitCode").asInt(), "each exited on SIGTERM");
            assertTrue(!exit.time().isAfter(deadline.plusSeconds(2)), "gone by the deadline + 2 s");
        }
        assertFalse(
                events.stream()
                        .anyMatch(e -> e.is(CONTAINER_SIGNALLED)
                                && "SIGKILL".equals(e.data().path("signal").asText())
                                && e.time().isBefore(deadline)),
                "no SIGKILL before the deadline");
        assertTrue(
                Duration.between(appTerm.time(), proxyExit.time()).compareTo(Duration.ofSeconds(10)) < 0,
                "all within one grace period of 10 s");
    }

    @Test
    void kubectlShowsInitNOfMWhileTheInitContainersRun() throws Exception {
        assertEquals(
                201,
                pods.api
                        .post("/api/v1/namespaces/default/pods", pod("initializing", "4"))
                        .code());
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest get = HttpRequest.newBuilder(
                        URI.create(suite.apiserverUrl() + "/api/v1/namespaces/default/pods/initializing"))
                .header("Accept", KUBECTL_GET)
                .build();
        String status = "";
        Instant until = Instant.now().plusSeconds(30);
        while (!status.equals("Init:0/3") && Instant.now().isBefore(until)) {
            Thread.sleep(100);
            JsonNode table = Json.MAPPER.readTree(
                    http.send(get, HttpResponse.BodyHandlers.ofString()).body());
            JsonNode row = table.path("rows").path(0).path("cells");
            status = row.path(2).asText();
            if (status.equals("Init:0/3")) {
                assertEquals("0/3", row.path(1).asText(), "two sidecars and one main container, none ready");
            }
        }
        assertEquals("Init:0/3", status, "while setup runs its 4 s");
        pods.awaitRunning("initializing");
        JsonNode row = Json.MAPPER
                .readTree(http.send(get, HttpResponse.BodyHandlers.ofString()).body())
                .path("rows")
                .path(0)
                .path("cells");
        assertEquals("3/3", row.path(1).asText(), "the sidecars are ready beside app");
        assertEquals("Running", row.path(2).asText());
        pods.delete("initializing", 10);
    }
}
