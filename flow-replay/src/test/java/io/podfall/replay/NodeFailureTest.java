package io.podfall.replay;

import static io.podfall.replay.Scenarios.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.podfall.controller.ControllerManagerConfiguration;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A node whose kubelet stops, in process: the control plane's whole answer (node lifecycle, endpoints, taint eviction,
 * ReplicaSet, pod GC), and a replay of the log that infers the kubelet's stop from its silence.
 */
class NodeFailureTest {
    private static final Instant STOPPED = T0.plusSeconds(20);
    private static final Instant OUT_OF_SERVICE = T0.plusSeconds(100);

    /**
     * Service web, Deployment web (2 replicas tolerating unreachable for 5 s) and a bare pod plain on node-1; node-1's
     * kubelet stops at 20 s; at 100 s an administrator taints node-1 out-of-service.
     */
    private static List<Input> nodeLost() {
        var template = new DeploymentBuilder()
                .withNewMetadata()
                .withName("web")
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withReplicas(2)
                .withNewSelector()
                .addToMatchLabels("app", "web")
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", "web")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .addNewPort()
                .withContainerPort(8080)
                .endPort()
                .endContainer()
                .addNewToleration()
                .withKey("node.kubernetes.io/unreachable")
                .withOperator("Exists")
                .withEffect("NoExecute")
                .withTolerationSeconds(5L)
                .endToleration()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
        var service = new ServiceBuilder()
                .withNewMetadata()
                .withName("web")
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withSelector(Map.of("app", "web"))
                .addNewPort()
                .withPort(80)
                .withTargetPort(new IntOrString(8080))
                .endPort()
                .endSpec()
                .build();
        var taint = Json.MAPPER.createArrayNode();
        taint.addObject()
                .put("op", "add")
                .put("path", "/spec/taints/-")
                .putObject("value")
                .put("key", "node.kubernetes.io/out-of-service")
                .put("value", "nodeshutdown")
                .put("effect", "NoExecute");
        return List.of(
                new Input.ApiServerStart(T0),
                new Input.KubeletStart(0, T0.plusMillis(40)),
                Scenarios.request(
                        1,
                        T0.plusSeconds(1),
                        EventTypes.CREATION_REQUESTED,
                        "namespaces/default/services/web",
                        new CreationRequest("services", "default", Json.tree(service))),
                Scenarios.request(
                        2,
                        T0.plusSeconds(2),
                        EventTypes.CREATION_REQUESTED,
                        "namespaces/default/deployments/web",
                        new CreationRequest("deployments", "default", Json.tree(template))),
                Scenarios.create(3, T0.plusSeconds(3), "plain", "podfall.io/exit-delay-seconds", "0.5"),
                new Input.KubeletStop(0, STOPPED),
                Scenarios.request(
                        4,
                        OUT_OF_SERVICE,
                        EventTypes.PATCH_REQUESTED,
                        "nodes/node-1",
                        new PatchRequest("nodes", null, "node-1", null, PatchRequest.JSON, taint)));
    }

    private static List<Event> log() {
        return log(ControllerManagerConfiguration.DEFAULTS);
    }

    private static List<Event> log(ControllerManagerConfiguration controllerManager) {
        Engine engine = new Engine(Scenarios.node1(), controllerManager, Latencies.ZERO);
        engine.schedule(nodeLost());
        engine.runUntil(T0.plusSeconds(140));
        return engine.log();
    }

    private static Event first(List<Event> log, Predicate<Event> what, String description) {
        return log.stream().filter(what).findFirst().orElseThrow(() -> new AssertionError("no " + description));
    }

    private static Predicate<Event> from(String source, String type) {
        return e -> e.source().equals(source) && e.is(type);
    }

    private static boolean webPod(Event e) {
        return e.subject().startsWith("namespaces/default/pods/web-");
    }

    @Test
    void theControlPlaneMarksEvictsAndFinallyForceDeletesThePodsOfANodeWhoseKubeletStopped() {
        List<Event> log = log();

        Event unknown = first(
                log,
                e -> from("/controller/nodelifecycle", EventTypes.PATCH_REQUESTED)
                                .test(e)
                        && "status".equals(e.data(PatchRequest.class).subresource()),
                "Ready Unknown");
        assertTrue(
                Duration.between(STOPPED, unknown.time()).compareTo(Duration.ofSeconds(50)) <= 0
                        && Duration.between(STOPPED, unknown.time()).compareTo(Duration.ofSeconds(30)) >= 0,
                "the grace period (50 s) after the last heartbeat: " + unknown.time());

        List<Event> marked = log.stream()
                .filter(e -> from("/controller/nodelifecycle", EventTypes.PATCH_REQUESTED)
                                .test(e)
                        && webPod(e))
                .toList();
        assertEquals(2, marked.size(), "MarkPodsNotReady, once per Ready pod");
        JsonNode ready = marked.get(0)
                .data(PatchRequest.class)
                .patch()
                .path("status")
                .path("conditions")
                .get(0);
        assertEquals(
                List.of("Ready", "False"),
                List.of(ready.path("type").asText(), ready.path("status").asText()));
        Event notReadyAddresses = first(
                log,
                e -> from("/controller/endpoint", EventTypes.PATCH_REQUESTED).test(e)
                        && e.data(PatchRequest.class)
                                        .patch()
                                        .path("subsets")
                                        .path(0)
                                        .path("notReadyAddresses")
                                        .size()
                                == 2,
                "Endpoints with both web pods not ready");
        assertTrue(log.indexOf(notReadyAddresses) > log.indexOf(marked.get(1)), "caused by the pods' Ready False");

        List<Event> evictions = log.stream()
                .filter(e -> from("/controller/tainteviction", EventTypes.DELETION_REQUESTED)
                                .test(e)
                        && webPod(e))
                .toList();
        assertEquals(4, evictions.size(), "once when their toleration ran out, again at the out-of-service taint");
        assertTrue(evictions.get(1).time().isBefore(OUT_OF_SERVICE));
        Event tainted = first(
                log,
                e -> e.is(EventTypes.OBJECT_UPDATED)
                        && e.subject().equals("nodes/node-1")
                        && e.data()
                                .path("object")
                                .path("spec")
                                .path("taints")
                                .toString()
                                .contains("NoExecute"),
                "the NoExecute taint stored");
        assertEquals(
                tainted.time().plusSeconds(5),
                evictions.get(0).time(),
                "tolerationSeconds after the controller saw the taint");
        assertEquals(
                null, evictions.get(0).data(DeletionRequest.class).options().getGracePeriodSeconds());

        long replacements = log.stream()
                .filter(e -> from("/controller/replicaset", EventTypes.CREATION_REQUESTED)
                                .test(e)
                        && !e.time().isBefore(evictions.get(0).time()))
                .count();
        assertEquals(2, replacements, "the ReplicaSet replaces the pods being deleted");

        Event plain = first(
                log,
                e -> e.is(EventTypes.OBJECT_CREATED) && e.subject().equals("namespaces/default/pods/plain"),
                "plain created");
        assertEquals(
                "[{\"effect\":\"NoExecute\",\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\","
                        + "\"tolerationSeconds\":300},{\"effect\":\"NoExecute\",\"key\":\"node.kubernetes.io/unreachable\","
                        + "\"operator\":\"Exists\",\"tolerationSeconds\":300}]",
                plain.data(ObjectChange.class)
                        .object()
                        .path("spec")
                        .path("tolerations")
                        .toString(),
                "DefaultTolerationSeconds");

        List<Event> forced = log.stream()
                .filter(from("/controller/podgc", EventTypes.DELETION_REQUESTED))
                .toList();
        assertEquals(
                List.of(
                        "namespaces/default/pods/plain",
                        evictions.get(0).subject(),
                        evictions.get(1).subject()),
                forced.stream().map(Event::subject).sorted().toList(),
                "the out-of-service taint evicts plain at once; the next pass force-deletes all three");
        assertTrue(forced.stream().allMatch(e -> e.time().isAfter(OUT_OF_SERVICE)));
        assertEquals(0L, forced.get(0).data(DeletionRequest.class).options().getGracePeriodSeconds());
        Set<String> controllers = Set.of("/controller/nodelifecycle", "/controller/tainteviction", "/controller/podgc");
        Set<String> theirs = log.stream()
                .filter(e -> controllers.contains(e.source()))
                .map(Event::id)
                .collect(Collectors.toSet());
        assertEquals(
                List.of(),
                log.stream()
                        .filter(e -> e.is(EventTypes.REQUEST_REJECTED) && theirs.contains(e.causationId()))
                        .map(e -> e.subject() + " " + e.data())
                        .toList(),
                "the API server refused none of their requests");
        for (Event f : forced) {
            first(
                    log,
                    e -> e.is(EventTypes.OBJECT_REMOVED) && e.subject().equals(f.subject()),
                    f.subject() + " removed");
        }
    }

    @Test
    void aReplayOfTheLogInfersTheKubeletsStopFromItsSilenceAndReproducesIt() {
        List<Event> log = log();

        Replay replay = Replay.of(log, Duration.ofMillis(100));

        assertTrue(
                replay.recording().inputs().stream().anyMatch(i -> i instanceof Input.KubeletStop),
                replay.recording().notes().toString());
        assertEquals(List.of(), replay.divergences());
        assertTrue(replay.reproduces());
        String report = ReplayReport.text(replay);
        assertTrue(report.contains("kubelet node-1 stopped at "), report);
    }

    @Test
    void aReplayTakesTheNodeMonitorGracePeriodFromTheLog() {
        List<Event> log = log(new ControllerManagerConfiguration(Duration.ofSeconds(10), 12500));

        Replay replay = Replay.of(log, Duration.ofMillis(100));

        assertEquals(
                Duration.ofSeconds(10), replay.recording().controllerManager().nodeMonitorGracePeriod());
        assertEquals(List.of(), replay.divergences());
        assertEquals(
                ControllerManagerConfiguration.DEFAULTS,
                Replay.of(log(), Duration.ofMillis(100)).recording().controllerManager(),
                "50 s, the default, from a log made with it");
    }
}
