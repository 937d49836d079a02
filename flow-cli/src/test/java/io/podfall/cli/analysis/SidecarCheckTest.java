package io.podfall.cli.analysis;

import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.podfall.apiserver.registry.Registry;
import io.podfall.kubelet.podworkers.Compat;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.replay.Engine;
import io.podfall.replay.Input;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code podfall check} on the deletions of pods with sidecars, as the cores decide them: a sidecar stopped after the
 * main container, or at the deadline with the 2 s minimum, breaks no invariant.
 */
class SidecarCheckTest {
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private static final String SUBJECT = "namespaces/default/pods/web";

    private static List<Event> deletion(String onSigterm, long grace) {
        var pod = aPod("web")
                .withGrace(30)
                .withSidecar("proxy")
                .withSidecar("log")
                .withAnnotation("podfall.io/on-sigterm", onSigterm)
                .withAnnotation("podfall.io/exit-delay-seconds", "1")
                .build();
        Engine engine = new Engine(List.of(new Engine.KubeletSettings(List.of("node-1"), Compat.NONE)));
        engine.schedule(List.of(
                new Input.ApiServerStart(T0),
                new Input.KubeletStart(0, T0),
                new Input.Request(Event.request(
                        "00000000-0000-4000-8000-000000000001",
                        Registry.SOURCE,
                        EventTypes.CREATION_REQUESTED,
                        SUBJECT,
                        T0.plusSeconds(1),
                        null,
                        new CreationRequest("pods", "default", Json.tree(pod)))),
                new Input.Request(Event.request(
                        "00000000-0000-4000-8000-000000000002",
                        Registry.SOURCE,
                        EventTypes.DELETION_REQUESTED,
                        SUBJECT,
                        T0.plusSeconds(20),
                        null,
                        new DeletionRequest(
                                "pods",
                                "default",
                                "web",
                                new DeleteOptionsBuilder()
                                        .withGracePeriodSeconds(grace)
                                        .build())))));
        engine.runUntil(T0.plusSeconds(600));
        assertTrue(engine.log().stream().anyMatch(e -> e.is(EventTypes.SANDBOX_REMOVED)), "the pod went the whole way");
        return engine.log();
    }

    @Test
    void sidecarsStoppedAfterTheMainContainerAreClean() {
        assertEquals(List.of(), Check.of(deletion("exit", 30)));
    }

    @Test
    void sidecarsKilledAfterTheDeadlineWithTheMinimumAreNotKilledBeforeGrace() {
        List<Event> log = deletion("ignore", 5);
        assertEquals(
                3,
                log.stream()
                        .filter(e -> e.is(EventTypes.CONTAINER_SIGNALLED)
                                && "SIGKILL".equals(e.data().path("signal").asText()))
                        .count(),
                "all three ignore SIGTERM");
        assertEquals(List.of(), Check.of(log));
    }
}
