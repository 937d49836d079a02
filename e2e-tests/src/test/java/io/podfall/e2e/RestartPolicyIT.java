package io.podfall.e2e;

import static io.podfall.e2e.SuiteClient.first;
import static io.podfall.model.event.EventTypes.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.Suite;
import io.podfall.model.event.Event;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A pod's own end over Kafka: a process that exits by itself (podfall.io/run-seconds), and what the kubelet makes of it
 * under the pod's restartPolicy: a Never pod that completes ends Succeeded, torn down on its node and still listed
 * until deleted; an Always pod that keeps failing is restarted, then waits in CrashLoopBackOff.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class RestartPolicyIT {
    private static final String PODS = "/api/v1/namespaces/default/pods";
    private static SuiteClient pods;

    @BeforeAll
    static void clients(Suite running) {
        pods = new SuiteClient(running);
    }

    /** A pod whose process exits by itself after {@code runSeconds} with {@code exitCode}. */
    static Pod job(String name, String restartPolicy, String runSeconds, String exitCode) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .addToAnnotations("podfall.io/run-seconds", runSeconds)
                .addToAnnotations("podfall.io/run-exit-code", exitCode)
                .endMetadata()
                .withNewSpec()
                .withRestartPolicy(restartPolicy)
                .addNewContainer()
                .withName("app")
                .withImage("busybox")
                .endContainer()
                .endSpec()
                .build();
    }

    @Test
    void aNeverPodWhoseProcessExitsZeroEndsSucceededTornDownAndStillListed() {
        assertEquals(201, pods.api.post(PODS, job("batch", "Never", "2", "0")).code());

        JsonNode succeeded = pods.api
                .await(
                        PODS + "/batch",
                        r -> "Succeeded"
                                .equals(r.body().path("status").path("phase").asText()),
                        Duration.ofSeconds(60),
                        "batch Succeeded")
                .body();
        JsonNode terminated = succeeded
                .path("status")
                .path("containerStatuses")
                .get(0)
                .path("state")
                .path("terminated");
        assertEquals(0, terminated.path("exitCode").asInt());
        assertEquals("Completed", terminated.path("reason").asText());

        List<Event> events = pods.eventsOf("batch", POD_TERMINATED, Duration.ofSeconds(60));
        assertTrue(events.stream().noneMatch(e -> e.is(CONTAINER_SIGNALLED)), "nobody stopped it: it ended by itself");
        assertEquals(
                0, first(events, CONTAINER_EXITED, null).data().path("exitCode").asInt());
        first(events, SANDBOX_STOPPED, null);
        first(events, POD_IP_RELEASED, null);
        assertTrue(events.stream().noneMatch(e -> e.is(DELETION_REQUESTED)), "the kubelet does not delete it");
        JsonNode listed = pods.api.get(PODS).body().path("items");
        assertTrue(listed.findValuesAsText("name").contains("batch"), "still listed: " + listed);

        pods.delete("batch", 30);
        pods.api.await(PODS + "/batch", r -> r.code() == 404, Duration.ofSeconds(60), "batch deleted");
    }

    @Test
    void anAlwaysPodWhoseProcessExitsOneIsRestartedThenWaitsInCrashLoopBackOff() {
        assertEquals(
                201, pods.api.post(PODS, job("crasher", "Always", "1", "1")).code());

        JsonNode backingOff = pods.api
                .await(
                        PODS + "/crasher",
                        r -> {
                            JsonNode app = r.body()
                                    .path("status")
                                    .path("containerStatuses")
                                    .path(0);
                            return app.path("restartCount").asInt() >= 1
                                    && "CrashLoopBackOff"
                                            .equals(app.path("state")
                                                    .path("waiting")
                                                    .path("reason")
                                                    .asText());
                        },
                        Duration.ofSeconds(60),
                        "crasher in CrashLoopBackOff")
                .body();
        JsonNode app = backingOff.path("status").path("containerStatuses").get(0);
        assertEquals(
                1, app.path("lastState").path("terminated").path("exitCode").asInt());
        assertEquals(
                "Error", app.path("lastState").path("terminated").path("reason").asText());
        assertEquals(
                "Running", backingOff.path("status").path("phase").asText(), "restartPolicy Always: being restarted");

        List<Event> events = pods.eventsOf("crasher");
        assertTrue(events.stream().filter(e -> e.is(START_CONTAINER_REQUESTED)).count() >= 2, "started again");
        assertTrue(events.stream().noneMatch(e -> e.is(CONTAINER_SIGNALLED)), "it exits by itself each time");

        pods.delete("crasher", 5);
        pods.api.await(PODS + "/crasher", r -> r.code() == 404, Duration.ofSeconds(60), "crasher deleted");
    }
}
