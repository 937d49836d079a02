package io.podfall.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.broker.Broker;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.analysis.Check;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.log.EventLog;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.e2e.clients.Command;
import io.podfall.e2e.clients.Kubectl;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.RequestRejection;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A PodDisruptionBudget holding back {@code kubectl drain}: the three pods of a Deployment on one node, a budget of
 * minAvailable 2 created with {@code kubectl create pdb}, then the node drained. kubectl evicts the three at once; the
 * Eviction API lets one go and answers the others 429 until the disruption controller has seen its replacement Ready on
 * another node, so the pods leave one at a time and the drain still succeeds. On a suite of its own with three nodes,
 * and replayed in process with no divergence.
 */
@ExtendWith(KafkaBrokerExtension.class)
class DisruptionBudgetIT {
    private static final String TOPIC = "podfall.disruption";
    private static final String NS = "pdb-drain";
    private static final String PDB = "/apis/policy/v1/namespaces/" + NS + "/poddisruptionbudgets/web-pdb";

    private static Suite suite;
    private static ApiClient api;
    private static Kubectl kubectl;

    @TempDir
    Path dir;

    /** Three nodes, and a Deployment run through the suite first, so that no scenario meets its first seconds. */
    @BeforeAll
    static void threeNodes(Broker broker) throws IOException {
        assumeTrue(Kubectl.SYSTEM != null, "kubectl is not on this machine");
        suite = ScenarioReplay.start(
                broker.bootstrapServers(),
                TOPIC,
                new Suite.Tuning(Map.of("podfall.kubelet.nodes", "node-1,node-2,node-3"), List.of()));
        api = new ApiClient(suite.apiserverUrl());
        kubectl = new Kubectl(Kubectl.SYSTEM, suite.apiserverUrl());
        Workloads.inNewNamespace(api, "pdb-warm-up").warmUp();
    }

    @AfterAll
    static void stopTheSuite() {
        if (suite != null) {
            suite.close();
        }
    }

    @Test
    void drainEvictsOnePodAtATimeAsTheBudgetAllows() throws InterruptedException {
        Instant created = Instant.now();
        Workloads w = Workloads.inNewNamespace(api, NS);
        ok(kubectl.run("cordon", "node-2", "node-3"));
        w.deploy("web", 3);
        ok(kubectl.run("uncordon", "node-2", "node-3"));
        assertEquals(
                Set.of("node-1"),
                w.pods("web").stream()
                        .map(p -> p.path("spec").path("nodeName").asText())
                        .collect(Collectors.toSet()));
        ok(kubectl.run("create", "pdb", "web-pdb", "--selector=app=web", "--min-available=2", "-n", NS));
        api.await(
                PDB,
                r -> r.code() == 200
                        && r.body().path("status").path("disruptionsAllowed").asInt() == 1,
                Workloads.WAIT,
                "the budget allows one disruption");

        Instant mark = Instant.now();
        Command.Result drained =
                kubectl.run("drain", "node-1", "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=100s");
        assertEquals(0, drained.exitCode(), drained.toString());
        w.awaitReady("web", 3);
        assertTrue(
                w.pods("web").stream()
                        .noneMatch(p ->
                                "node-1".equals(p.path("spec").path("nodeName").asText())),
                "no pod of the Deployment left on node-1");

        List<Event> topic = awaitBudgetSettled();
        oneAtATime(topic, mark);
        // kubectl get pdb: upstream's columns, the budget back at one allowed disruption.
        Command.Result got = kubectl.run("get", "pdb", "web-pdb", "-n", NS);
        ok(got);
        List<String> lines = got.stdout().lines().toList();
        assertEquals(
                List.of("NAME", "MIN", "AVAILABLE", "MAX", "UNAVAILABLE", "ALLOWED", "DISRUPTIONS", "AGE"),
                Arrays.asList(lines.get(0).trim().split("\\s+")));
        assertEquals(
                List.of("web-pdb", "2", "N/A", "1"),
                Arrays.asList(lines.get(1).trim().split("\\s+")).subList(0, 4));
        ok(kubectl.run("uncordon", "node-1"));

        List<Event> recorded = ScenarioReplay.topic(suite, TOPIC, dir);
        // podfall check names the refusals, each pod refused at least once evicted in the end
        List<Check.Finding> findings = Check.of(recorded);
        assertFalse(Check.hasErrors(findings), findings.toString());
        List<Check.Finding> refused = findings.stream()
                .filter(f -> f.rule().equals("eviction-refused"))
                .toList();
        assertFalse(refused.isEmpty(), findings.toString());
        assertTrue(
                refused.stream()
                        .allMatch(f -> f.subject().startsWith("namespaces/" + NS + "/pods/")
                                && f.message().contains("The disruption budget web-pdb needs 2 healthy pods")
                                && f.message().contains("after the first refusal")),
                refused.toString());
        Instant since = ScenarioReplay.since(recorded, mark);
        ScenarioReplay.assertReproduces(
                "disruption-budget-drain",
                ScenarioReplay.scenario(recorded, ScenarioReplay.since(recorded, created)),
                since);

        ok(kubectl.run("delete", "pdb", "web-pdb", "-n", NS));
        w.awaitGone(PDB, "the budget");
    }

    /**
     * The evictions on the log: at least one refused with 429 (with upstream's message and cause), three allowed, each
     * of them writing the budget (one disruption fewer) before the pod's deletion, and each allowed one after the
     * replacement of the one before it became Ready.
     */
    private static void oneAtATime(List<Event> topic, Instant mark) {
        Map<String, List<Event>> answers = new HashMap<>();
        topic.forEach(e -> {
            if (e.causationId() != null) {
                answers.computeIfAbsent(e.causationId(), k -> new ArrayList<>()).add(e);
            }
        });
        List<Event> allowed = new ArrayList<>();
        int refused = 0;
        for (Event e : topic) {
            if (!e.is(EventTypes.EVICTION_REQUESTED) || !NS.equals(Subjects.namespaceOf(e.subject()))) {
                continue;
            }
            List<Event> caused = answers.getOrDefault(e.id(), List.of());
            if (caused.size() == 1 && caused.get(0).is(EventTypes.REQUEST_REJECTED)) {
                var status = caused.get(0).data(RequestRejection.class).status();
                assertEquals(429, status.getCode());
                assertEquals("Cannot evict pod as it would violate the pod's disruption budget.", status.getMessage());
                // 3 while the status still counts the pod just evicted (checkAndDecrement leaves currentHealthy).
                String cause = status.getDetails().getCauses().get(0).getMessage();
                assertTrue(
                        cause.matches("The disruption budget web-pdb needs 2 healthy pods and has [23] currently"),
                        cause);
                refused++;
            } else {
                assertEquals(
                        List.of(
                                EventTypes.OBJECT_UPDATED,
                                EventTypes.POD_STATUS_UPDATED,
                                EventTypes.OBJECT_MARKED_TERMINATING),
                        caused.stream().map(Event::type).toList().subList(0, 3),
                        "the budget written, then the DisruptionTarget, then the deletion");
                assertEquals(
                        "poddisruptionbudgets",
                        caused.get(0).data(ObjectChange.class).resource());
                allowed.add(e);
            }
        }
        assertEquals(3, allowed.size(), "three pods evicted");
        assertTrue(refused >= 2, "the two other pods refused while the first was replaced: " + refused);
        List<Instant> ready = replacementsReady(topic, mark);
        for (int i = 1; i < allowed.size(); i++) {
            assertTrue(
                    ready.size() >= i
                            && ready.get(i - 1).isBefore(allowed.get(i).time()),
                    "eviction " + (i + 1) + " at " + allowed.get(i).time() + " after " + i + " replacements Ready: "
                            + ready);
        }
    }

    /** When each pod of the namespace created after {@code mark} (a replacement) first became Ready, in order. */
    private static List<Instant> replacementsReady(List<Event> topic, Instant mark) {
        Set<String> replacements = topic.stream()
                .filter(e -> e.is(EventTypes.OBJECT_CREATED)
                        && !e.time().isBefore(mark)
                        && NS.equals(Subjects.namespaceOf(e.subject()))
                        && e.subject().contains("/pods/"))
                .map(Event::subject)
                .collect(Collectors.toSet());
        Map<String, Instant> ready = new HashMap<>();
        for (Event e : topic) {
            if (e.is(EventTypes.POD_STATUS_UPDATED) && replacements.contains(e.subject()) && isReady(e)) {
                ready.putIfAbsent(e.subject(), e.time());
            }
        }
        return ready.values().stream().sorted().toList();
    }

    private static boolean isReady(Event statusUpdated) {
        for (JsonNode c : statusUpdated.data().path("object").path("status").path("conditions")) {
            if ("Ready".equals(c.path("type").asText())
                    && "True".equals(c.path("status").asText())) {
                return true;
            }
        }
        return false;
    }

    /** The topic once the disruption controller has written the budget back to one allowed disruption. */
    private static List<Event> awaitBudgetSettled() {
        api.await(
                PDB,
                r -> r.code() == 200
                        && r.body().path("status").path("disruptionsAllowed").asInt() == 1
                        && r.body().path("status").path("currentHealthy").asInt() == 3,
                Workloads.WAIT,
                "the budget back at one allowed disruption");
        try (EventLog log = new EventLog(suite.bootstrapServers(), TOPIC)) {
            return log.readToEnd(java.time.Duration.ofSeconds(10));
        }
    }

    private static void ok(Command.Result result) {
        assertEquals(0, result.exitCode(), result.toString());
    }
}
