package io.podfall.cli.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.podfall.kubelet.podworkers.Compat;
import io.podfall.kubelet.podworkers.KubeletTiming;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.replay.Engine;
import io.podfall.replay.Input;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code podfall check} over what the four cores log for a pod behind a Service whose liveness probe fails 4.5 s after
 * each start (killed with the probe's 2 s; its process ignores SIGTERM, so each kill ends in SIGKILL) and whose
 * readiness fails from SIGTERM on: it crash-loops, then is deleted. None of that is a finding.
 */
class ProbedPodCheckTest {
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    private static Input request(int n, Instant at, String type, String subject, Object data) {
        return new Input.Request(Event.request(
                String.format("00000000-0000-4000-8000-%012d", n), "/apiserver", type, subject, at, null, data));
    }

    private static List<Event> crashLoopThenDeletion(KubeletTiming timing) {
        Probe probe = new ProbeBuilder()
                .withNewHttpGet()
                .withPath("/healthz")
                .withNewPort(8080)
                .endHttpGet()
                .withPeriodSeconds(1)
                .withFailureThreshold(1)
                .build();
        JsonNode pod = Json.tree(new PodBuilder()
                .withNewMetadata()
                .withName("probed")
                .withNamespace("default")
                .addToLabels("app", "probed")
                .addToAnnotations("podfall.io/on-sigterm", "ignore")
                .addToAnnotations("podfall.io/unready-on-sigterm", "true")
                .addToAnnotations("podfall.io/liveness-fails-after-seconds", "4.5")
                .endMetadata()
                .withNewSpec()
                .withTerminationGracePeriodSeconds(30L)
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .withReadinessProbe(probe)
                .withLivenessProbe(new ProbeBuilder(probe)
                        .withTerminationGracePeriodSeconds(2L)
                        .build())
                .endContainer()
                .endSpec()
                .build());
        JsonNode service = Json.read("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"probed","namespace":"default"},
                 "spec":{"selector":{"app":"probed"},"ports":[{"port":80,"targetPort":8080}]}}""".getBytes(StandardCharsets.UTF_8));
        Engine engine = new Engine(
                List.of(new Engine.KubeletSettings(List.of("node-1"), Compat.NONE, OptionalLong.empty(), timing)));
        engine.schedule(List.of(
                new Input.ApiServerStart(T0),
                new Input.KubeletStart(0, T0),
                request(
                        1,
                        T0.plusSeconds(1),
                        EventTypes.CREATION_REQUESTED,
                        "namespaces/default/services/probed",
                        new CreationRequest("services", "default", service)),
                request(
                        2,
                        T0.plusSeconds(2),
                        EventTypes.CREATION_REQUESTED,
                        "namespaces/default/pods/probed",
                        new CreationRequest("pods", "default", pod)),
                request(
                        3,
                        T0.plusSeconds(40),
                        EventTypes.DELETION_REQUESTED,
                        "namespaces/default/pods/probed",
                        new DeletionRequest(
                                "pods",
                                "default",
                                "probed",
                                new DeleteOptionsBuilder()
                                        .withGracePeriodSeconds(30L)
                                        .build()))));
        engine.runUntil(T0.plusSeconds(600));
        return engine.log();
    }

    @ParameterizedTest
    @ValueSource(strings = {"fast", "upstream"})
    void aCrashLoopOnALivenessProbeThenADeletionIsNoFinding(String timing) {
        List<Event> log = crashLoopThenDeletion(KubeletTiming.profile(timing));

        assertTrue(
                log.stream()
                                .filter(e -> e.is(EventTypes.CONTAINER_PROBE_FAILED))
                                .count()
                        >= 2,
                "it crash-looped on its liveness probe");
        assertTrue(log.stream()
                .anyMatch(
                        e -> e.is(EventTypes.OBJECT_REMOVED) && e.subject().equals("namespaces/default/pods/probed")));
        assertEquals(List.of(), Check.of(log));
    }
}
