package io.podfall.e2e;

import static io.podfall.model.event.EventTypes.CONTAINER_EXITED;
import static io.podfall.model.event.EventTypes.CONTAINER_PROBE_FAILED;
import static io.podfall.model.event.EventTypes.CONTAINER_SIGNALLED;
import static io.podfall.model.event.EventTypes.OBJECT_UPDATED;
import static io.podfall.model.event.EventTypes.START_CONTAINER_REQUESTED;
import static io.podfall.model.event.EventTypes.STOP_CONTAINER_REQUESTED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.log.EventLog;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.Subjects;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Probes over Kafka, asserted from the log: a pod behind a Service whose liveness probe fails is killed with the
 * probe's grace period (2 s, not the pod's 30), and its readiness probe, which fails from SIGTERM on, takes it out of
 * the Service's Endpoints right after SIGTERM, before its container is gone; then the container is started again.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class ProbesIT {
    private static final String NS = "/api/v1/namespaces/default/";
    private static final String NAME = "probed";
    private static SuiteClient pods;
    private static Suite suite;

    @BeforeAll
    static void clients(Suite running) {
        suite = running;
        pods = new SuiteClient(running);
    }

    private static Probe probe(Long grace) {
        return new ProbeBuilder()
                .withNewHttpGet()
                .withPath("/healthz")
                .withNewPort(8080)
                .endHttpGet()
                .withPeriodSeconds(1)
                .withFailureThreshold(1)
                .withTerminationGracePeriodSeconds(grace)
                .build();
    }

    private static Pod pod() {
        return new PodBuilder()
                .withNewMetadata()
                .withName(NAME)
                .addToLabels("app", NAME)
                .addToAnnotations("podfall.io/on-sigterm", "ignore")
                .addToAnnotations("podfall.io/unready-on-sigterm", "true")
                .addToAnnotations("podfall.io/liveness-fails-after-seconds", "4")
                .endMetadata()
                .withNewSpec()
                .withTerminationGracePeriodSeconds(30L)
                .addNewContainer()
                .withName("app")
                .withImage("nginx:1.27")
                .withReadinessProbe(probe(null))
                .withLivenessProbe(probe(2L))
                .endContainer()
                .endSpec()
                .build();
    }

    private static JsonNode service() {
        return Json.read("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"%1$s"},
                 "spec":{"selector":{"app":"%1$s"},"ports":[{"port":80,"targetPort":8080}]}}""".formatted(NAME).getBytes(StandardCharsets.UTF_8));
    }

    /** Whether the Endpoints the event stores list the IP among its ready or not-ready addresses. */
    private static boolean lists(Event endpoints, String field, String ip) {
        for (JsonNode subset : endpoints.data().path("object").path("subsets")) {
            for (JsonNode address : subset.path(field)) {
                if (ip.equals(address.path("ip").asText())) {
                    return true;
                }
            }
        }
        return false;
    }

    private static Event first(List<Event> log, Predicate<Event> p, String what) {
        return log.stream().filter(p).findFirst().orElseThrow(() -> new AssertionError("no " + what));
    }

    @Test
    void aLivenessFailureKillsWithTheProbesGraceAndReadinessTakesThePodOutOfItsEndpointsAtSigterm() {
        assertEquals(201, pods.api.post(NS + "services", service()).code());
        pods.createRunning(pod());
        String ip = pods.api
                .await(
                        NS + "endpoints/" + NAME,
                        r -> r.code() == 200
                                && r.body()
                                                .path("subsets")
                                                .path(0)
                                                .path("addresses")
                                                .size()
                                        == 1,
                        Duration.ofSeconds(60),
                        "the pod Ready in its Service's Endpoints")
                .body()
                .path("subsets")
                .path(0)
                .path("addresses")
                .path(0)
                .path("ip")
                .asText();

        String pod = Subjects.of("default", "pods", NAME);
        String endpoints = Subjects.of("default", "endpoints", NAME);
        List<Event> log;
        try (EventLog events = new EventLog(suite.bootstrapServers(), SuiteExtension.TOPIC)) {
            log = events.readUntil(
                    all -> all.stream()
                            .anyMatch(e -> e.is(START_CONTAINER_REQUESTED)
                                    && pod.equals(e.subject())
                                    && e.data().path("attempt").asInt() == 1),
                    Duration.ofSeconds(60));
        }

        Event failed = first(log, e -> e.is(CONTAINER_PROBE_FAILED) && pod.equals(e.subject()), "probe failure");
        assertEquals("liveness", failed.data().path("probe").asText());
        assertEquals(
                "Container app failed liveness probe, will be restarted",
                failed.data().path("message").asText());
        assertEquals(2, failed.data().path("gracePeriodSeconds").asLong(), "the probe's, not the pod's 30");
        Event stop =
                first(log, e -> e.is(STOP_CONTAINER_REQUESTED) && pod.equals(e.subject()), "StopContainerRequested");
        assertEquals(2, stop.data().path("timeoutSeconds").asLong());
        Event sigterm = first(
                log,
                e -> e.is(CONTAINER_SIGNALLED)
                        && pod.equals(e.subject())
                        && "SIGTERM".equals(e.data().path("signal").asText()),
                "SIGTERM");
        Event sigkill = first(
                log,
                e -> e.is(CONTAINER_SIGNALLED)
                        && pod.equals(e.subject())
                        && "SIGKILL".equals(e.data().path("signal").asText()),
                "SIGKILL");
        long killedAfter = Duration.between(sigterm.time(), sigkill.time()).toMillis();
        assertTrue(killedAfter >= 1_900 && killedAfter <= 2_500, "SIGKILL " + killedAfter + " ms after SIGTERM");
        Event exited = first(log, e -> e.is(CONTAINER_EXITED) && pod.equals(e.subject()), "exit");
        assertEquals(137, exited.data().path("exitCode").asInt());

        Event unready = first(
                log,
                e -> e.is(OBJECT_UPDATED)
                        && endpoints.equals(e.subject())
                        && e.time().isAfter(sigterm.time())
                        && lists(e, "notReadyAddresses", ip)
                        && !lists(e, "addresses", ip),
                "Endpoints listing the pod as not ready after SIGTERM");
        assertTrue(
                log.stream()
                        .filter(e -> e.is(OBJECT_UPDATED) && endpoints.equals(e.subject()))
                        .filter(e -> e.time().isAfter(failed.time()) && e.time().isBefore(sigterm.time()))
                        .noneMatch(e -> lists(e, "notReadyAddresses", ip)),
                "still ready from the failed liveness probe to SIGTERM");
        long leftAfter = Duration.between(sigterm.time(), unready.time()).toMillis();
        assertTrue(
                leftAfter > 0 && leftAfter <= 1_800,
                "out of the Endpoints " + leftAfter + " ms after SIGTERM (a readiness probe every second)");
        assertTrue(unready.time().isBefore(exited.time()), "before its container is gone");

        pods.delete(NAME, 0);
        assertEquals(
                200,
                pods.api
                        .delete(NS + "services/" + NAME, new DeleteOptionsBuilder().build())
                        .code());
        pods.api.await(NS + "pods/" + NAME, r -> r.code() == 404, Duration.ofSeconds(60), "pod deleted");
    }
}
