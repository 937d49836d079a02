package io.podfall.replay;

import static io.podfall.model.testing.Pods.aPod;
import static io.podfall.replay.Scenarios.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.LifecycleBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.apiserver.UpdateRequest;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code --set pods.prestop-sleep-seconds} and {@code pods.drain-seconds}: the recorded clients' pods rewritten. */
class PodRewriteTest {
    private static final PodRewrite BOTH = new PodRewrite(5L, 3L);
    private static final JsonNode SLEEP_5 = Json.read("{\"sleep\":{\"seconds\":5}}".getBytes());

    /** A pod with an app container that has an exec preStop and a sidecar, as a client sends it. */
    private static Pod web() {
        return new PodBuilder(aPod("web-1")
                        .withContainer("app")
                        .withSidecar("proxy")
                        .withInitContainer("setup")
                        .build())
                .editSpec()
                .editFirstContainer()
                .withLifecycle(new LifecycleBuilder()
                        .withNewPreStop()
                        .withNewExec()
                        .withCommand("sh", "-c", "sleep 1")
                        .endExec()
                        .endPreStop()
                        .build())
                .endContainer()
                .endSpec()
                .build();
    }

    private static PodTemplateSpec template() {
        Pod pod = web();
        return new PodTemplateSpec(pod.getMetadata(), pod.getSpec());
    }

    private static Event request(String type, String resource, Object data) {
        return Event.request(
                "00000000-0000-4000-8000-000000000001",
                "/apiserver",
                type,
                Subjects.of("default", resource, "web"),
                T0,
                null,
                data);
    }

    /** The pod (template) of a rewritten request's object: the object itself for a pod, else its spec.template. */
    private static void assertRewritten(JsonNode pod) {
        assertEquals(SLEEP_5, pod.at("/spec/containers/0/lifecycle/preStop"), "the exec preStop replaced");
        assertEquals(SLEEP_5, pod.at("/spec/initContainers/0/lifecycle/preStop"), "the sidecar too");
        assertTrue(pod.at("/spec/initContainers/1/lifecycle").isMissingNode(), "an init container has none");
        assertEquals(
                "3", pod.at("/metadata/annotations/podfall.io~1drain-seconds").asText());
    }

    @Test
    void aCreatedPodGetsThePreStopSleepOnEveryContainerAndSidecarAndTheDrainAnnotation() {
        Event create = request(
                EventTypes.CREATION_REQUESTED, "pods", new CreationRequest("pods", "default", Json.tree(web())));
        Event rewritten = BOTH.rewrite(create);
        assertRewritten(rewritten.data().path("object"));
        assertEquals(
                List.of(create.id(), create.correlationId(), create.time(), create.traceparent()),
                List.of(rewritten.id(), rewritten.correlationId(), rewritten.time(), rewritten.traceparent()),
                "the same request, its pod changed");
    }

    @Test
    void aDeploymentsAndAReplicaSetsPodTemplateAreRewrittenOnCreateAndOnUpdate() {
        JsonNode deployment = Json.tree(new DeploymentBuilder()
                .withNewMetadata()
                .withName("web")
                .endMetadata()
                .withNewSpec()
                .withReplicas(2)
                .withTemplate(template())
                .endSpec()
                .build());
        // a ReplicaSet holds its pods as a Deployment does, in spec.template
        ObjectNode replicaSet = ((ObjectNode) deployment.deepCopy())
                .put("apiVersion", "apps/v1")
                .put("kind", "ReplicaSet");
        for (Event e : List.of(
                request(
                        EventTypes.CREATION_REQUESTED,
                        "deployments",
                        new CreationRequest("deployments", "default", deployment)),
                request(
                        EventTypes.CREATION_REQUESTED,
                        "replicasets",
                        new CreationRequest("replicasets", "default", replicaSet)),
                request(
                        EventTypes.UPDATE_REQUESTED,
                        "deployments",
                        new UpdateRequest("deployments", "default", "web", null, deployment)))) {
            assertRewritten(BOTH.rewrite(e).data().at("/object/spec/template"));
        }
    }

    @Test
    void aMergeOrStrategicPatchGetsTheContainersItSetsRewrittenAndADirectiveLeftAlone() {
        for (String type : List.of(PatchRequest.MERGE, PatchRequest.STRATEGIC)) {
            JsonNode patch = Json.read(("{\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"a\":\"b\"}},"
                            + "\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"nginx:2\"},"
                            + "{\"name\":\"old\",\"$patch\":\"delete\"}]}}}}")
                    .getBytes());
            JsonNode rewritten = BOTH.rewrite(request(
                            EventTypes.PATCH_REQUESTED,
                            "deployments",
                            new PatchRequest("deployments", "default", "web", null, type, patch)))
                    .data()
                    .at("/patch/spec/template");
            assertEquals(SLEEP_5, rewritten.at("/spec/containers/0/lifecycle/preStop"), type);
            assertTrue(rewritten.at("/spec/containers/1/lifecycle").isMissingNode(), type);
            assertEquals(
                    "3",
                    rewritten
                            .at("/metadata/annotations/podfall.io~1drain-seconds")
                            .asText(),
                    type);
            assertEquals("b", rewritten.at("/metadata/annotations/a").asText(), type);
        }
    }

    @Test
    void aJsonPatchGetsTheValuesItAddsOrReplacesRewrittenAsTheirPathSays() {
        JsonNode patch = Json.read(("[{\"op\":\"replace\",\"path\":\"/spec/template/spec/containers/0\","
                        + "\"value\":{\"name\":\"app\",\"image\":\"nginx:2\"}},"
                        + "{\"op\":\"add\",\"path\":\"/spec/template/spec/containers/0/lifecycle/preStop\","
                        + "\"value\":{\"exec\":{\"command\":[\"true\"]}}},"
                        + "{\"op\":\"add\",\"path\":\"/spec/template/metadata/annotations/podfall.io~1drain-seconds\","
                        + "\"value\":\"0\"},"
                        + "{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":3}]")
                .getBytes());
        JsonNode ops = BOTH.rewrite(request(
                        EventTypes.PATCH_REQUESTED,
                        "deployments",
                        new PatchRequest("deployments", "default", "web", null, PatchRequest.JSON, patch)))
                .data()
                .path("patch");
        assertEquals(SLEEP_5, ops.at("/0/value/lifecycle/preStop"));
        assertEquals(SLEEP_5, ops.at("/1/value"));
        assertEquals("3", ops.at("/2/value").asText());
        assertEquals(3, ops.at("/3/value").asInt(), "what is no pod's stays");
    }

    @Test
    void whatChangesNoPodsSpecIsTheRecordedRequestItself() {
        Event status = request(
                EventTypes.UPDATE_REQUESTED,
                "pods",
                new UpdateRequest("pods", "default", "web-1", "status", Json.tree(web())));
        assertSame(status, BOTH.rewrite(status), "a status write");
        ObjectNode service = Json.MAPPER.createObjectNode();
        service.putObject("metadata").put("name", "web");
        Event svc =
                request(EventTypes.CREATION_REQUESTED, "services", new CreationRequest("services", "default", service));
        assertSame(svc, BOTH.rewrite(svc), "a Service");
        JsonNode scale = Json.read("{\"spec\":{\"replicas\":3}}".getBytes());
        Event patch = request(
                EventTypes.PATCH_REQUESTED,
                "deployments",
                new PatchRequest("deployments", "default", "web", null, PatchRequest.MERGE, scale));
        assertSame(patch, BOTH.rewrite(patch), "a scale");
        Event create = request(
                EventTypes.CREATION_REQUESTED, "pods", new CreationRequest("pods", "default", Json.tree(web())));
        assertSame(create, PodRewrite.NONE.rewrite(create), "nothing set");
    }

    @Test
    void theKeysAreWholeSecondsAndABadValueIsNamed() {
        Settings s = Settings.parse(List.of("pods.prestop-sleep-seconds=5", "podfall.pods.drain-seconds=3"));
        assertEquals(BOTH, s.pods());
        assertEquals("podfall.pods.prestop-sleep-seconds=5, podfall.pods.drain-seconds=3", s.toString());
        for (String bad : List.of("pods.prestop-sleep-seconds=-1", "pods.drain-seconds=2.5", "pods.drain-seconds=")) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> Settings.parse(List.of(bad)));
            assertTrue(e.getMessage().startsWith("bad value for podfall.pods."), e.getMessage());
            assertTrue(e.getMessage().endsWith("(whole seconds, 0 or more)"), e.getMessage());
        }
    }

    @Test
    void aWhatIfRewritesTheRecordedInputsAndSaysSoInTheReportsHeader() {
        List<Event> recorded =
                Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log();
        Replay replay = Replay.of(
                recorded,
                Replay.start(recorded),
                null,
                java.time.Duration.ofMillis(100),
                Settings.parse(List.of("pods.prestop-sleep-seconds=3", "pods.drain-seconds=2")));
        String header = ReplayReport.inputs(replay);
        assertTrue(
                header.contains("note: what-if: inputs rewritten: podfall.pods.prestop-sleep-seconds=3, "
                        + "podfall.pods.drain-seconds=2 in 2 of the 4 client requests"),
                header);
        assertTrue(!header.contains("for every kubelet"), "no kubelet setting changed: " + header);
        Event created = replay.replayed().stream()
                .filter(e -> e.is(EventTypes.OBJECT_CREATED) && e.subject().startsWith("namespaces/default/pods/"))
                .findFirst()
                .orElseThrow();
        assertEquals(
                Json.read("{\"sleep\":{\"seconds\":3}}".getBytes()),
                created.data().at("/object/spec/containers/0/lifecycle/preStop"));
        assertEquals(
                "2",
                created.data()
                        .at("/object/metadata/annotations/podfall.io~1drain-seconds")
                        .asText());
        assertTrue(
                replay.replayed().stream()
                        .anyMatch(e -> e.is(EventTypes.PRE_STOP_HOOK_FINISHED)
                                && e.data().path("handler").asText().equals("sleep")),
                "the kubelet ran the sleep before the stop signal");
    }
}
