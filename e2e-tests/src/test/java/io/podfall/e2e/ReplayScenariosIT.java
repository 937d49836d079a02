package io.podfall.e2e;

import static io.podfall.model.event.EventTypes.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.broker.Broker;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import io.podfall.replay.StateReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Equivalence of the suite and the in-process engine over the controllers' and the node's scenarios: each run over
 * Kafka by the four services, exported, and replayed in process from its first request on, reproduces with no
 * divergence ({@link ScenarioReplay}). And {@code podfall state --at} over the export answers, at every moment a watch
 * saw something change and between them, with the objects and resourceVersions the API server served then.
 */
@ExtendWith(KafkaBrokerExtension.class)
class ReplayScenariosIT {
    /**
     * A suite of its own, on a topic of its own: a recording is cut to the scenario's flows, and on the shared topic
     * that cut also took away other classes' changes to node-1 (pressure annotations, each moving the Ready heartbeat),
     * so the engine's kubelet posted a periodic status report the live one had rescheduled.
     */
    private static final String TOPIC = "podfall.scenarios";

    private static final String PODS = "/api/v1/namespaces/default/pods";
    private static final Duration WAIT = Workloads.WAIT;
    private static Suite suite;
    private static SuiteClient pods;
    private static ApiClient api;
    private static Workloads workloads;

    @TempDir
    Path dir;

    /** A pod and a Deployment run through the suite first, so the scenarios do not meet the services' first seconds. */
    @BeforeAll
    static void warmUp(Broker broker) throws IOException {
        Suite running = ScenarioReplay.start(broker.bootstrapServers(), TOPIC, Suite.Tuning.NONE);
        suite = running;
        pods = new SuiteClient(running, TOPIC);
        api = pods.api;
        workloads = new Workloads(api, "default");
        pods.createRunning(pod("scenarios-warm-up"));
        pods.delete("scenarios-warm-up", 0);
        workloads.deploy("scenarios-warm-up", 1);
        assertEquals(
                200,
                api.delete(workloads.path("deployments") + "/scenarios-warm-up", propagation("Background"))
                        .code());
        workloads.awaitNone("scenarios-warm-up");
        pods.eventsOf("scenarios-warm-up", SANDBOX_REMOVED, WAIT);
    }

    @AfterAll
    static void stopTheSuite() {
        if (suite != null) {
            suite.close();
        }
    }

    /**
     * A Deployment deleted with each cascade (background, foreground, orphan), then the orphaned ReplicaSet scaled down
     * and deleted; watched all along, so the state at any moment can be checked against what was served. The replay
     * starts once the Deployments are ready: while they start, the ReplicaSet and Deployment controllers coalesce their
     * status patches by what has come back, which live depends on how long each hop took (hundreds of milliseconds on a
     * loaded machine), where the engine takes none.
     */
    @Test
    void deploymentCascadesAndAReplicaSetScaleDown() throws InterruptedException {
        Instant start = Instant.now();
        List<Watched> watches = List.of(
                new Watched(suite.apiserverUrl(), "/api/v1/pods"),
                new Watched(suite.apiserverUrl(), "/apis/apps/v1/deployments"),
                new Watched(suite.apiserverUrl(), "/apis/apps/v1/replicasets"));
        Instant mark;
        try {
            // One pod in the foreground cascade: the collector lifts the ReplicaSet's finalizer on the removal of its
            // last dependent, and of two pods ending at one instant in the engine either may be last live.
            workloads.deploy("rp-bg", 2);
            workloads.deploy("rp-fg", 1);
            workloads.deploy("rp-or", 2);
            mark = Instant.now();
            assertEquals(
                    200,
                    api.delete(workloads.path("deployments") + "/rp-bg", propagation("Background"))
                            .code());
            assertEquals(
                    200,
                    api.delete(workloads.path("deployments") + "/rp-fg", propagation("Foreground"))
                            .code());
            assertEquals(
                    200,
                    api.delete(workloads.path("deployments") + "/rp-or", propagation("Orphan"))
                            .code());
            workloads.awaitNone("rp-bg");
            workloads.awaitGone(workloads.path("deployments") + "/rp-fg", "rp-fg");
            workloads.awaitNone("rp-fg");
            workloads.awaitGone(workloads.path("deployments") + "/rp-or", "rp-or");

            String orphan = workloads
                    .replicaSets("rp-or")
                    .get(0)
                    .path("metadata")
                    .path("name")
                    .asText();
            assertEquals(
                    200,
                    api.patch(
                                    workloads.path("replicasets") + "/" + orphan,
                                    Json.read("{\"spec\":{\"replicas\":1}}".getBytes(StandardCharsets.UTF_8)))
                            .code());
            api.await(
                    workloads.path("pods") + "?labelSelector=app%3Drp-or",
                    r -> r.body().path("items").size() == 1,
                    WAIT,
                    "the orphaned ReplicaSet scaled down to 1");
            assertEquals(
                    200,
                    api.delete(workloads.path("replicasets") + "/" + orphan, propagation("Background"))
                            .code());
            workloads.awaitNone("rp-or");
            awaitSandboxesRemoved();
        } finally {
            watches.forEach(Watched::close);
        }

        List<Event> topic = ScenarioReplay.topic(suite, TOPIC, dir);
        ScenarioReplay.file("deployment-cascades-topic", topic);
        assertStateAtEveryMomentIsWhatTheWatchesServed(topic, watches);
        replay(topic, start, mark, "deployment-cascades");
    }

    /**
     * A pod of a Service deleted (its Endpoints updated in its deletion's flow) and a namespace deleted with its
     * content. The namespace holds one pod: the namespace controller finalizes on the last removal it sees, and two
     * pods of one template end at the same instant in the engine, where live either may be last.
     */
    @Test
    void aPodLeavingItsServicesEndpointsAndANamespaceDeletion() throws InterruptedException {
        Instant start = Instant.now();
        assertEquals(
                201,
                api.post(
                                "/api/v1/namespaces",
                                Json.read(
                                        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"rp-team\"}}"
                                                .getBytes(StandardCharsets.UTF_8)))
                        .code());
        Workloads team = new Workloads(api, "rp-team");
        team.deploy("rp-team-web", 1);
        assertEquals(
                201,
                api.post(team.path("services"), Workloads.service("rp-team-web"))
                        .code());
        workloads.deploy("rp-svc", 2);
        assertEquals(
                201,
                api.post(workloads.path("services"), Workloads.service("rp-svc"))
                        .code());
        api.await(
                workloads.path("endpoints") + "/rp-svc",
                r -> r.code() == 200
                        && r.body().path("subsets").path(0).path("addresses").size() == 2,
                WAIT,
                "both pods in the endpoints");

        Instant mark = Instant.now();
        String victim =
                workloads.pods("rp-svc").get(0).path("metadata").path("name").asText();
        pods.delete(victim, 10);
        workloads.awaitGone(PODS + "/" + victim, victim);
        workloads.awaitReady("rp-svc", 2);
        assertEquals(
                200,
                api.delete("/api/v1/namespaces/rp-team", new DeleteOptionsBuilder().build())
                        .code());
        workloads.awaitGone("/api/v1/namespaces/rp-team", "the namespace rp-team");
        assertEquals(
                200,
                api.delete(workloads.path("services") + "/rp-svc", new DeleteOptionsBuilder().build())
                        .code());
        assertEquals(
                200,
                api.delete(workloads.path("deployments") + "/rp-svc", propagation("Background"))
                        .code());
        workloads.awaitNone("rp-svc");
        workloads.awaitGone(workloads.path("endpoints") + "/rp-svc", "the Service's Endpoints");
        awaitSandboxesRemoved();

        replay(start, mark, "endpoints-and-namespace");
    }

    /**
     * The node's side: a preStop hook, a claim with a slow unmount, an inline CSI volume, a force deletion of a process
     * that ignores SIGTERM, a second delete that shortens the grace period, and the Eviction API.
     */
    @Test
    void preStopVolumesAForceDeletionAShortenedGraceAndAnEviction() throws InterruptedException {
        Instant mark = Instant.now();
        pods.createRunning(new PodBuilder(pod("rp-hooked"))
                .editSpec()
                .withTerminationGracePeriodSeconds(5L)
                .editFirstContainer()
                .withNewLifecycle()
                .withNewPreStop()
                .withNewSleep()
                .withSeconds(1L)
                .endSleep()
                .endPreStop()
                .endLifecycle()
                .endContainer()
                .endSpec()
                .build());
        pods.createRunning(new PodBuilder(pod("rp-claim"))
                .editMetadata()
                .addToAnnotations("podfall.io/unmount-seconds", "1")
                .endMetadata()
                .editSpec()
                .addNewVolume()
                .withName("data")
                .withNewPersistentVolumeClaim()
                .withClaimName("data-rp-claim")
                .endPersistentVolumeClaim()
                .endVolume()
                .endSpec()
                .build());
        pods.createRunning(new PodBuilder(pod("rp-inline"))
                .editSpec()
                .addNewVolume()
                .withName("scratch")
                .withNewCsi()
                .withDriver("csi.podfall.io")
                .endCsi()
                .endVolume()
                .endSpec()
                .build());
        pods.createRunning(ignoringSigterm("rp-forced"));
        pods.createRunning(ignoringSigterm("rp-shortened"));
        pods.createRunning(pod("rp-evicted"));

        pods.delete("rp-shortened", 10); // then 3: a released kubelet keeps the first 10 s
        pods.delete("rp-hooked", 5);
        pods.delete("rp-claim", 5);
        pods.delete("rp-inline", 5);
        pods.delete("rp-forced", 0);
        assertEquals(
                201,
                api.post(PODS + "/rp-evicted/eviction", Json.read("""
                {"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"rp-evicted"},
                 "deleteOptions":{"gracePeriodSeconds":2}}""".getBytes(StandardCharsets.UTF_8)))
                        .code());
        Thread.sleep(1000);
        pods.delete("rp-shortened", 3);
        for (String name : List.of("rp-hooked", "rp-claim", "rp-inline", "rp-forced", "rp-shortened", "rp-evicted")) {
            pods.eventsOf(name, SANDBOX_REMOVED, WAIT);
        }
        pods.eventsOf("rp-claim", VOLUME_UNSTAGED, WAIT);

        replay(mark, mark, "node-terminations");
    }

    /**
     * Processes that exit by themselves: a Never pod that completes, torn down and deleted; an Always pod that
     * crash-loops into CrashLoopBackOff, then deleted.
     */
    @Test
    void aCompletedPodAndACrashLoopThenDeleted() throws InterruptedException {
        Instant mark = Instant.now();
        assertEquals(
                201,
                api.post(PODS, RestartPolicyIT.job("rp-batch", "Never", "1", "0"))
                        .code());
        assertEquals(
                201,
                api.post(PODS, RestartPolicyIT.job("rp-crasher", "Always", "1", "1"))
                        .code());
        api.await(
                PODS + "/rp-batch",
                r -> "Succeeded".equals(r.body().path("status").path("phase").asText()),
                WAIT,
                "rp-batch Succeeded");
        pods.eventsOf("rp-batch", POD_TERMINATED, WAIT);
        api.await(
                PODS + "/rp-crasher",
                r -> {
                    JsonNode app =
                            r.body().path("status").path("containerStatuses").path(0);
                    return app.path("restartCount").asInt() >= 1
                            && "CrashLoopBackOff"
                                    .equals(app.path("state")
                                            .path("waiting")
                                            .path("reason")
                                            .asText());
                },
                WAIT,
                "rp-crasher in CrashLoopBackOff");
        pods.delete("rp-batch", 5);
        pods.delete("rp-crasher", 2);
        workloads.awaitGone(PODS + "/rp-batch", "rp-batch");
        workloads.awaitGone(PODS + "/rp-crasher", "rp-crasher");
        pods.eventsOf("rp-crasher", SANDBOX_REMOVED, WAIT);

        replay(mark, mark, "restart-policies");
    }

    /** node-1 under memory pressure (its podfall.io/pressure annotation): its kubelet evicts the pod; then deleted. */
    @Test
    void aPodEvictedUnderNodePressureThenDeleted() throws InterruptedException {
        Instant mark = Instant.now();
        pods.createRunning(pod("rp-pressured"));
        assertEquals(
                200,
                api.patch(
                                "/api/v1/nodes/node-1",
                                Json.read("{\"metadata\":{\"annotations\":{\"podfall.io/pressure\":\"memory\"}}}"
                                        .getBytes(StandardCharsets.UTF_8)))
                        .code());
        try {
            pods.eventsOf("rp-pressured", POD_EVICTED, WAIT);
            // the node lifecycle controller's taint first: it patches at the Node's resourceVersion, so a pressure
            // taken off before it lands makes it a Conflict live, where the engine, taking no time, has it before
            api.await(
                    "/api/v1/nodes/node-1",
                    r -> r.body().path("spec").path("taints").toString().contains("node.kubernetes.io/memory-pressure"),
                    WAIT,
                    "the memory-pressure taint");
        } finally {
            assertEquals(
                    200,
                    api.patch(
                                    "/api/v1/nodes/node-1",
                                    Json.read("{\"metadata\":{\"annotations\":{\"podfall.io/pressure\":null}}}"
                                            .getBytes(StandardCharsets.UTF_8)))
                            .code());
        }
        api.await(
                PODS + "/rp-pressured",
                r -> "Failed".equals(r.body().path("status").path("phase").asText()),
                WAIT,
                "Failed");
        // the kubelet's last status update (the sandbox stopped) first: on a loaded machine it can reach the API
        // server after a delete sent at once, where the engine, taking no time, always has it before
        pods.eventsOf("rp-pressured", SANDBOX_STOPPED, WAIT);
        Thread.sleep(1000);
        pods.delete("rp-pressured", 5);
        workloads.awaitGone(PODS + "/rp-pressured", "rp-pressured");
        pods.eventsOf("rp-pressured", SANDBOX_REMOVED, WAIT);

        replay(mark, mark, "node-pressure");
    }

    /**
     * Exports the topic and replays the scenario begun at {@code start} from its first request at or after
     * {@code from}.
     */
    private void replay(Instant start, Instant from, String name) throws InterruptedException {
        replay(ScenarioReplay.topic(suite, TOPIC, dir), start, from, name);
    }

    /**
     * Replays the scenario of the topic begun at {@code start} (its flows, with the suite's start) from {@code from}
     * on.
     */
    private static void replay(List<Event> topic, Instant start, Instant from, String name) {
        ScenarioReplay.assertReproduces(
                name,
                ScenarioReplay.scenario(topic, ScenarioReplay.since(topic, start)),
                ScenarioReplay.since(topic, from));
    }

    /** Every sandbox the runtime made is removed, and a moment passes so the last steps are on the topic. */
    private static void awaitSandboxesRemoved() throws InterruptedException {
        api.await(PODS, r -> r.body().path("items").isEmpty(), WAIT, "no pods in default");
        Thread.sleep(2000);
    }

    /**
     * For each moment a watch saw a change, just before it, and midway between changes: the API server's part of
     * {@code podfall state --at} over the whole export holds exactly the objects, with the uids and resourceVersions,
     * that the LIST and the watch events up to then had served. Each watch event's resourceVersion names the
     * ObjectChange on the log that made it, which gives its time.
     */
    private static void assertStateAtEveryMomentIsWhatTheWatchesServed(List<Event> topic, List<Watched> watches) {
        Map<String, Event> byResourceVersion = new HashMap<>();
        topic.stream()
                .filter(e -> EventTypes.OBJECT_CHANGES.contains(e.type()))
                .forEach(e -> byResourceVersion.put(
                        e.data()
                                .path("object")
                                .path("metadata")
                                .path("resourceVersion")
                                .asText(),
                        e));
        TreeSet<Instant> changed = new TreeSet<>();
        Instant from = Instant.MIN;
        for (Watched w : watches) {
            Event listed = byResourceVersion.get(w.listResourceVersion);
            assertNotNull(listed, "the list's resourceVersion " + w.listResourceVersion + " is a change on the log");
            from = later(from, listed.time());
            assertTrue(!w.changes().isEmpty(), w.collection + " saw changes");
            for (Watched.Change c : w.changes()) {
                Event fact = byResourceVersion.get(c.object().resourceVersion());
                assertNotNull(fact, c + " of " + w.collection + " is a change on the log");
                JsonNode meta = fact.data().path("object").path("metadata");
                assertEquals(
                        c.key(),
                        meta.path("namespace").asText() + "/"
                                + meta.path("name").asText(),
                        c.toString());
                assertEquals(c.type().equals("DELETED"), fact.is(OBJECT_REMOVED), c + " served as " + fact.type());
                assertEquals(c.type().equals("ADDED"), fact.is(OBJECT_CREATED), c + " served as " + fact.type());
                changed.add(fact.time());
            }
        }
        List<Instant> moments = new ArrayList<>(List.of(from));
        Instant previous = from;
        for (Instant t : changed.tailSet(from, false)) {
            moments.add(t.minusNanos(1000));
            moments.add(previous.plus(Duration.between(previous, t).dividedBy(2)));
            moments.add(t);
            previous = t;
        }
        List<String> mismatches = new ArrayList<>();
        StateReport.walk(topic, moments, (at, engine) -> {
            for (Watched w : watches) {
                Map<String, Watched.Served> served = servedAt(w, at, byResourceVersion);
                Map<String, Watched.Served> held = new LinkedHashMap<>();
                for (HasMetadata o : engine.apiServer().list(type(w), null)) {
                    held.put(
                            o.getMetadata().getNamespace() + "/"
                                    + o.getMetadata().getName(),
                            new Watched.Served(
                                    o.getMetadata().getUid(), o.getMetadata().getResourceVersion()));
                }
                if (!served.equals(held)) {
                    mismatches.add("at " + at + " " + w.collection + ": served " + served + ", state --at " + held);
                }
            }
        });
        assertTrue(
                mismatches.isEmpty(),
                mismatches.size() + " of " + moments.size() * watches.size() + " moments differ: "
                        + String.join("\n", mismatches.subList(0, Math.min(5, mismatches.size()))));
        assertTrue(moments.size() > 50, "many moments compared: " + moments.size());
    }

    /** The LIST, then every watch event whose change had happened by {@code at}. */
    private static Map<String, Watched.Served> servedAt(Watched w, Instant at, Map<String, Event> byResourceVersion) {
        Map<String, Watched.Served> served = new LinkedHashMap<>(w.listed);
        for (Watched.Change c : w.changes()) {
            if (!byResourceVersion.get(c.object().resourceVersion()).time().isAfter(at)) {
                if (c.type().equals("DELETED")) {
                    served.remove(c.key());
                } else {
                    served.put(c.key(), c.object());
                }
            }
        }
        return served;
    }

    private static ResourceType type(Watched w) {
        return w.collection.endsWith("/pods")
                ? ResourceType.PODS
                : w.collection.endsWith("/deployments") ? ResourceType.DEPLOYMENTS : ResourceType.REPLICASETS;
    }

    private static Instant later(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    private static Object propagation(String policy) {
        return new DeleteOptionsBuilder().withPropagationPolicy(policy).build();
    }

    private static Pod pod(String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .addToAnnotations("podfall.io/exit-delay-seconds", "0.5")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build();
    }

    private static Pod ignoringSigterm(String name) {
        return new PodBuilder(pod(name))
                .editMetadata()
                .addToAnnotations("podfall.io/on-sigterm", "ignore")
                .endMetadata()
                .editSpec()
                .withTerminationGracePeriodSeconds(30L)
                .endSpec()
                .build();
    }
}
