package io.podfall.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.e2e.clients.Command;
import io.podfall.e2e.clients.Kubectl;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A real kubectl against the suite, unchanged: what it prints and what it leaves behind. One subclass per kubectl
 * version; each names its pods with its own prefix, since they share one suite.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class KubectlTests {
    private Kubectl kubectl;
    private ApiClient api;
    private SuiteClient pods;

    /** The kubectl binary to run, or null when this machine does not have it. */
    abstract String binary();

    /** Prefix of the pods this class creates. */
    abstract String prefix();

    @BeforeAll
    void clients(Suite running) {
        assumeTrue(binary() != null, "this kubectl is not on this machine");
        kubectl = new Kubectl(binary(), running.apiserverUrl());
        pods = new SuiteClient(running);
        api = pods.api;
    }

    private static String manifest(String name, String onSigterm) {
        return """
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  annotations:
                    podfall.io/on-sigterm: %s
                spec:
                  containers:
                  - name: app
                    image: nginx:1.27
                """.formatted(name, onSigterm);
    }

    /** kubectl create -f -, then wait until the pod runs. */
    private void createRunning(String name, String onSigterm) {
        Command.Result created = kubectl.runWithInput(manifest(name, onSigterm), "create", "-f", "-");
        assertEquals(0, created.exitCode(), created.toString());
        assertEquals("pod/" + name + " created", created.stdout().trim());
        pods.awaitRunning(name);
    }

    private JsonNode pod(String name) {
        ApiClient.Response r = api.get("/api/v1/namespaces/default/pods/" + name);
        assertEquals(200, r.code(), name + ": " + r.body());
        return r.body();
    }

    @Test
    void getListsThePodsAndPrintsOneAsJson() {
        createRunning(prefix() + "get", "exit");
        Command.Result list = kubectl.run("get", "pods");
        assertEquals(0, list.exitCode(), list.toString());
        assertTrue(
                list.stdout().lines().findFirst().orElse("").matches("NAME +READY +STATUS +RESTARTS +AGE"),
                "the server's Table columns: " + list.stdout());
        assertTrue(
                list.stdout().lines().anyMatch(l -> l.matches(prefix() + "get +1/1 +Running +0 +\\S+")), list.stdout());

        Command.Result json = kubectl.run("get", "pod", prefix() + "get", "-o", "json");
        assertEquals(0, json.exitCode(), json.toString());
        JsonNode printed = Json.read(json.stdout().getBytes(StandardCharsets.UTF_8));
        assertEquals("Pod", printed.path("kind").asText());
        assertEquals(
                pod(prefix() + "get").path("metadata").path("uid"),
                printed.path("metadata").path("uid"));
    }

    @Test
    void deleteReturnsOnceThePodIsGone() {
        createRunning(prefix() + "del", "exit");
        Command.Result deleted = kubectl.run("delete", "pod", prefix() + "del");
        assertEquals(0, deleted.exitCode(), deleted.toString());
        assertEquals("pod \"" + prefix() + "del\" deleted", deleted.stdout().trim());
        assertTrue(!deleted.stderr().contains("watch"), "kubectl waited on a real watch: " + deleted.stderr());
        assertEquals(
                404,
                api.get("/api/v1/namespaces/default/pods/" + prefix() + "del").code(),
                "kubectl waited for the removal");
    }

    @Test
    void gracePeriodFlagBecomesTheDeletionGracePeriod() {
        createRunning(prefix() + "grace", "ignore");
        Command.Result deleted = kubectl.run("delete", "pod", prefix() + "grace", "--grace-period=3", "--wait=false");
        assertEquals(0, deleted.exitCode(), deleted.toString());
        JsonNode terminating = pod(prefix() + "grace").path("metadata");
        assertEquals(3, terminating.path("deletionGracePeriodSeconds").asInt());
        assertTrue(terminating.path("deletionTimestamp").isTextual());

        List<Event> flow = pods.eventsOf(prefix() + "grace", EventTypes.SANDBOX_REMOVED, Duration.ofSeconds(60));
        assertTrue(
                flow.stream()
                        .anyMatch(e -> e.is(EventTypes.CONTAINER_EXITED)
                                && e.data().path("exitCode").asInt() == 137),
                "a process that ignores SIGTERM is killed when the 3 s run out");
    }

    @Test
    void nowMeansAGracePeriodOfOneSecond() {
        createRunning(prefix() + "now", "ignore");
        Command.Result deleted = kubectl.run("delete", "pod", prefix() + "now", "--now", "--wait=false");
        assertEquals(0, deleted.exitCode(), deleted.toString());
        assertEquals(
                1,
                pod(prefix() + "now")
                        .path("metadata")
                        .path("deletionGracePeriodSeconds")
                        .asInt());
    }

    @Test
    void forceDeleteRemovesThePodAtOnceWhileTheNodeStillStopsItsContainers() {
        createRunning(prefix() + "force", "exit");
        Command.Result deleted = kubectl.run("delete", "pod", prefix() + "force", "--force", "--grace-period=0");
        assertEquals(0, deleted.exitCode(), deleted.toString());
        assertTrue(deleted.stdout().contains("pod \"" + prefix() + "force\" force deleted"), deleted.toString());
        assertEquals(
                404,
                api.get("/api/v1/namespaces/default/pods/" + prefix() + "force").code(),
                "gone without waiting for the node");

        List<Event> flow = pods.eventsOf(prefix() + "force", EventTypes.CONTAINER_EXITED, Duration.ofSeconds(60));
        assertTrue(
                flow.stream().anyMatch(e -> e.is(EventTypes.CONTAINER_SIGNALLED)),
                "the kubelet still stops what runs on the node");
    }

    @Test
    void aFinalizerKeepsADeletedPodUntilAPatchRemovesIt() {
        String name = prefix() + "final";
        Command.Result created = kubectl.runWithInput(
                manifest(name, "exit").replace("metadata:\n", "metadata:\n  finalizers:\n  - example.com/block\n"),
                "create",
                "-f",
                "-");
        assertEquals(0, created.exitCode(), created.toString());
        pods.awaitRunning(name);
        assertEquals(0, kubectl.run("delete", "pod", name, "--wait=false").exitCode());

        JsonNode kept = api.await(
                        "/api/v1/namespaces/default/pods/" + name,
                        r -> r.body()
                                        .path("metadata")
                                        .path("deletionGracePeriodSeconds")
                                        .asInt(-1)
                                == 0,
                        Duration.ofSeconds(60),
                        "the kubelet's final delete")
                .body()
                .path("metadata");
        assertEquals("example.com/block", kept.path("finalizers").path(0).asText());

        Command.Result patched =
                kubectl.run("patch", "pod", name, "--type=merge", "-p", "{\"metadata\":{\"finalizers\":null}}");
        assertEquals(0, patched.exitCode(), patched.toString());
        assertEquals(
                404,
                api.get("/api/v1/namespaces/default/pods/" + name).code(),
                "removing the last finalizer removed it");
    }

    @Test
    void applyCreatesThenConfiguresThenLeavesUnchanged() {
        String name = prefix() + "apply";
        String v1 = manifest(name, "exit").replace("metadata:\n", "metadata:\n  labels:\n    tier: a\n");
        Command.Result created = kubectl.runWithInput(v1, "apply", "-f", "-");
        assertEquals(0, created.exitCode(), created.toString());
        assertEquals("pod/" + name + " created", created.stdout().trim());

        Command.Result configured = kubectl.runWithInput(v1.replace("tier: a", "tier: b"), "apply", "-f", "-");
        assertEquals(0, configured.exitCode(), configured.toString());
        assertEquals("pod/" + name + " configured", configured.stdout().trim());
        JsonNode metadata = pod(name).path("metadata");
        assertEquals("b", metadata.path("labels").path("tier").asText(), "the strategic merge patch was applied");
        JsonNode lastApplied = Json.read(metadata.path("annotations")
                .path("kubectl.kubernetes.io/last-applied-configuration")
                .asText()
                .getBytes(StandardCharsets.UTF_8));
        assertEquals(
                "b", lastApplied.path("metadata").path("labels").path("tier").asText(), "kept verbatim");

        Command.Result unchanged = kubectl.runWithInput(v1.replace("tier: a", "tier: b"), "apply", "-f", "-");
        assertEquals(0, unchanged.exitCode(), unchanged.toString());
        assertEquals("pod/" + name + " unchanged", unchanged.stdout().trim());
    }

    @Test
    void wideAndYamlOutputShowWhatTheNodeReported() {
        String name = prefix() + "wide";
        createRunning(name, "exit");
        JsonNode stored = pod(name);
        Command.Result wide = kubectl.run("get", "pod", name, "-o", "wide");
        assertEquals(0, wide.exitCode(), wide.toString());
        assertTrue(
                wide.stdout()
                        .lines()
                        .findFirst()
                        .orElse("")
                        .matches("NAME +READY +STATUS +RESTARTS +AGE +IP +NODE +NOMINATED NODE +READINESS GATES"),
                wide.stdout());
        String row = "%s +1/1 +Running +0 +\\S+ +%s +%s +<none> +<none>"
                .formatted(
                        name,
                        stored.path("status").path("podIP").asText(),
                        stored.path("spec").path("nodeName").asText());
        assertTrue(wide.stdout().lines().anyMatch(l -> l.matches(row)), row + " in\n" + wide.stdout());

        Command.Result yaml = kubectl.run("get", "pod", name, "-o", "yaml");
        assertEquals(0, yaml.exitCode(), yaml.toString());
        assertTrue(yaml.stdout().startsWith("apiVersion: v1\n"), yaml.stdout());
        assertTrue(yaml.stdout().contains("\nkind: Pod\n"), yaml.stdout());
        assertTrue(
                yaml.stdout()
                        .contains(
                                "  uid: " + stored.path("metadata").path("uid").asText() + "\n"),
                yaml.stdout());
    }

    @Test
    void describeShowsATerminatingPodWithItsGracePeriod() {
        String name = prefix() + "describe";
        createRunning(name, "ignore");
        assertEquals(
                0,
                kubectl.run("delete", "pod", name, "--grace-period=20", "--wait=false")
                        .exitCode());

        Command.Result described = kubectl.run("describe", "pod", name);
        assertEquals(0, described.exitCode(), described.toString());
        assertTrue(described.stdout().lines().anyMatch(l -> l.matches("Name: +" + name)), described.stdout());
        assertTrue(
                described.stdout().lines().anyMatch(l -> l.matches("Status: +Terminating \\(lasts .*\\)")),
                described.stdout());
        assertTrue(
                described.stdout().lines().anyMatch(l -> l.matches("Termination Grace Period: +20s")),
                described.stdout());
        assertTrue(described.stdout().lines().anyMatch(l -> l.matches("Node: +\\S+/\\S+")), described.stdout());
        assertEquals(
                0,
                kubectl.run("delete", "pod", name, "--grace-period=1", "--wait=false")
                        .exitCode(),
                "not left to run out its 20 s");
    }

    @Test
    void getWatchPrintsEachChangeOfADeletionAsItHappens() {
        String name = prefix() + "watch";
        createRunning(name, "exit");
        try (Command.Running watch = kubectl.start("get", "pod", name, "-w", "--output-watch-events")) {
            watch.awaitLine(l -> l.matches("ADDED +" + name + " +1/1 +Running .*"), Duration.ofSeconds(30));
            assertEquals(0, kubectl.run("delete", "pod", name, "--wait=false").exitCode());
            watch.awaitLine(l -> l.matches("MODIFIED +" + name + " +\\d/1 +Terminating .*"), Duration.ofSeconds(30));
            watch.awaitLine(l -> l.matches("DELETED +" + name + " .*"), Duration.ofSeconds(60));
        }
    }

    /**
     * The kubelet's final delete (grace 0) is a MODIFIED with deletionGracePeriodSeconds 0, then the DELETED, as
     * upstream's store writes the grace-0 state before it deletes it.
     */
    @Test
    void getWatchSeesTheFinalDeletesGraceZeroBeforeTheDeletion() {
        String name = prefix() + "watch-zero";
        createRunning(name, "exit");
        try (Command.Running watch = kubectl.start(
                "get",
                "pod",
                name,
                "-w",
                "--output-watch-events",
                "-o",
                "jsonpath={.type} {.object.metadata.deletionGracePeriodSeconds}{\"\\n\"}")) {
            assertEquals(
                    0,
                    kubectl.run("delete", "pod", name, "--grace-period=1", "--wait=false")
                            .exitCode());
            watch.awaitLine(l -> l.equals("DELETED 0"), Duration.ofSeconds(60));
            List<String> events = watch.lines().stream()
                    .filter(l -> l.matches("(ADDED|MODIFIED|DELETED)\\b.*"))
                    .toList();
            assertEquals(
                    List.of("MODIFIED 0", "DELETED 0"),
                    events.subList(events.size() - 2, events.size()),
                    events::toString);
            assertTrue(events.contains("MODIFIED 1"), () -> "the graceful marking first: " + events);
        }
    }

    @Test
    void scaleWritesTheDeploymentsReplicasThroughTheScaleSubresource() {
        String name = prefix() + "scale";
        Command.Result created = kubectl.runWithInput("""
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: %s
                spec:
                  replicas: 1
                  selector:
                    matchLabels:
                      app: %s
                  template:
                    metadata:
                      labels:
                        app: %s
                    spec:
                      containers:
                      - name: app
                        image: nginx:1.27
                """.formatted(name, name, name), "apply", "-f", "-");
        assertEquals(0, created.exitCode(), created.toString());
        assertEquals("deployment.apps/" + name + " created", created.stdout().trim());

        Command.Result scaled = kubectl.run("scale", "deployment", name, "--replicas=3");
        assertEquals(0, scaled.exitCode(), scaled.toString());
        assertEquals("deployment.apps/" + name + " scaled", scaled.stdout().trim());
        ApiClient.Response deployment = api.get("/apis/apps/v1/namespaces/default/deployments/" + name);
        assertEquals(
                3,
                deployment.body().path("spec").path("replicas").asInt(),
                deployment.body().toString());
        assertEquals(2, deployment.body().path("metadata").path("generation").asInt(), "a spec change");
        assertEquals(0, kubectl.run("delete", "deployment", name).exitCode());
    }

    @Test
    void deletingAPodThatDoesNotExistIsNotFound() {
        Command.Result deleted = kubectl.run("delete", "pod", "nope");
        assertEquals(1, deleted.exitCode(), deleted.toString());
        assertTrue(
                deleted.stderr().contains("Error from server (NotFound): pods \"nope\" not found"), deleted.toString());
    }
}
