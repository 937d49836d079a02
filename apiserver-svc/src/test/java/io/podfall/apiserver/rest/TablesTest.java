package io.podfall.apiserver.rest;

import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.podfall.apiserver.registry.StatusError;
import io.podfall.model.Json;
import io.podfall.model.k8s.ResourceType;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class TablesTest {
    private static final Instant CREATED = Instant.parse("2025-03-01T10:00:00Z");
    private static final Instant NOW = CREATED.plusSeconds(5 * 60);
    private static final String KUBECTL_GET =
            "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

    @Nested
    class Age {
        @Test
        void ageHasAboutTwoSignificantFiguresLikeHumanDuration() {
            assertEquals("0s", Printers.humanDuration(Duration.ZERO));
            assertEquals("119s", Printers.humanDuration(Duration.ofSeconds(119)));
            assertEquals("2m", Printers.humanDuration(Duration.ofMinutes(2)));
            assertEquals("5m3s", Printers.humanDuration(Duration.ofSeconds(303)));
            assertEquals("47m", Printers.humanDuration(Duration.ofSeconds(47 * 60 + 59)));
            assertEquals("3h5m", Printers.humanDuration(Duration.ofMinutes(185)));
            assertEquals("10h", Printers.humanDuration(Duration.ofMinutes(10 * 60 + 30)));
            assertEquals("2d3h", Printers.humanDuration(Duration.ofHours(51)));
            assertEquals("9d", Printers.humanDuration(Duration.ofHours(9 * 24 + 5)));
            assertEquals("2y20d", Printers.humanDuration(Duration.ofDays(2 * 365 + 20)));
            assertEquals("9y", Printers.humanDuration(Duration.ofDays(9 * 365 + 20)));
        }

        @Test
        void upToTwoSecondsInTheFutureIsNowAndMoreIsInvalid() {
            assertEquals("0s", Printers.humanDuration(Duration.ofMillis(-1500)));
            assertEquals("<invalid>", Printers.humanDuration(Duration.ofSeconds(-3)));
        }

        @Test
        void ageIsFromTheCreationTimestampToTheServersNow() {
            assertEquals("5m", Printers.age(running(), NOW));
            assertEquals("<unknown>", Printers.age(Json.tree(aPod("x").build()), NOW));
        }
    }

    @Nested
    class PodRows {
        @Test
        void aRunningPodShowsReadyContainersStatusRestartsAgeAndTheWideColumns() {
            assertEquals(
                    List.of("web-1", "1/1", "Running", 0, "5m", "10.244.1.2", "node-1", "<none>", "<none>"),
                    Printers.podCells(running(), NOW));
        }

        @Test
        void aPodBeingDeletedIsTerminating() {
            ObjectNode pod = running();
            ((ObjectNode) pod.path("metadata")).put("deletionTimestamp", "2025-03-01T10:06:00Z");

            assertEquals("Terminating", Printers.podCells(pod, NOW).get(2));
        }

        @Test
        void aFinishedPodShowsHowItsContainerEndedEvenWhileBeingDeleted() {
            ObjectNode pod = running();
            ((ObjectNode) pod.path("metadata")).put("deletionTimestamp", "2025-03-01T10:06:00Z");
            ObjectNode status = (ObjectNode) pod.path("status");
            status.put("phase", "Failed");
            ObjectNode container = (ObjectNode) status.path("containerStatuses").get(0);
            container
                    .put("ready", false)
                    .putObject("state")
                    .putObject("terminated")
                    .put("exitCode", 143)
                    .put("reason", "Error");

            List<Object> cells = Printers.podCells(pod, NOW);
            assertEquals("0/1", cells.get(1));
            assertEquals("Error", cells.get(2));
        }

        @Test
        void aContainerWaitingGivesItsReasonAndRestartsAreSummed() {
            ObjectNode pod = running();
            ObjectNode container =
                    (ObjectNode) pod.path("status").path("containerStatuses").get(0);
            container
                    .put("ready", false)
                    .put("restartCount", 3)
                    .putObject("state")
                    .putObject("waiting")
                    .put("reason", "CrashLoopBackOff");

            List<Object> cells = Printers.podCells(pod, NOW);
            assertEquals("CrashLoopBackOff", cells.get(2));
            assertEquals(3, cells.get(3));
        }

        /** A pod with a regular init container, two sidecars and the main container, as the kubelet reports it. */
        private ObjectNode initializing(String setup, String proxy, boolean initialized) {
            ObjectNode pod = (ObjectNode) Json.tree(aPod("web-1")
                    .withInitContainer("setup")
                    .withSidecar("proxy")
                    .withSidecar("log")
                    .inPhase("Pending")
                    .build());
            ((ObjectNode) pod.path("metadata")).put("creationTimestamp", CREATED.toString());
            ObjectNode status = (ObjectNode) pod.path("status");
            status.putArray("conditions")
                    .addObject()
                    .put("type", "Initialized")
                    .put("status", initialized ? "True" : "False");
            var init = status.putArray("initContainerStatuses");
            init.add(containerStatus("setup", setup, false));
            init.add(containerStatus("proxy", proxy, proxy.equals("running")));
            init.add(containerStatus("log", "PodInitializing", false));
            status.putArray("containerStatuses").add(containerStatus("app", "PodInitializing", false));
            return pod;
        }

        private static ObjectNode containerStatus(String name, String state, boolean ready) {
            ObjectNode c = Json.MAPPER.createObjectNode().put("name", name).put("ready", ready);
            ObjectNode s = c.putObject("state");
            switch (state) {
                case "running" -> {
                    c.put("started", true);
                    s.putObject("running").put("startedAt", CREATED.toString());
                }
                case "Completed" -> s.putObject("terminated").put("exitCode", 0).put("reason", "Completed");
                case "Error" -> s.putObject("terminated").put("exitCode", 1).put("reason", "Error");
                default -> s.putObject("waiting").put("reason", state);
            }
            return c;
        }

        @Test
        void aPodInitializingShowsWhichInitContainerItIsAtAndCountsSidecarsAsContainers() {
            List<Object> first = Printers.podCells(initializing("running", "PodInitializing", false), NOW);
            assertEquals("0/3", first.get(1), "two sidecars and one main container");
            assertEquals("Init:0/3", first.get(2));

            List<Object> sidecar = Printers.podCells(initializing("Completed", "running", false), NOW);
            assertEquals("1/3", sidecar.get(1), "a started, ready sidecar is ready");
            assertEquals("Init:2/3", sidecar.get(2), "the next not done: log");
        }

        @Test
        void aFailedInitContainerOrOneInBackOffGivesItsReason() {
            assertEquals(
                    "Init:Error",
                    Printers.podCells(initializing("Error", "PodInitializing", false), NOW)
                            .get(2));
            assertEquals(
                    "Init:CrashLoopBackOff",
                    Printers.podCells(initializing("CrashLoopBackOff", "PodInitializing", false), NOW)
                            .get(2));
        }

        @Test
        void oncePodIsInitializedTheMainContainersDecide() {
            assertEquals(
                    "PodInitializing",
                    Printers.podCells(initializing("Completed", "running", true), NOW)
                            .get(2));
        }

        @Test
        void anUnscheduledPodIsPendingWithNoneForIpAndNode() {
            ObjectNode pod =
                    (ObjectNode) Json.tree(aPod("web-2").inPhase("Pending").build());
            ((ObjectNode) pod.path("metadata")).put("creationTimestamp", CREATED.toString());

            assertEquals(
                    List.of("web-2", "0/1", "Pending", 0, "5m", "<none>", "<none>", "<none>", "<none>"),
                    Printers.podCells(pod, NOW));
        }
    }

    @Nested
    class NodeRows {
        @Test
        void aReadyNodeShowsItsStatusRolesAgeVersionAndAddresses() {
            JsonNode node = Json.tree(new NodeBuilder()
                    .withNewMetadata()
                    .withName("node-1")
                    .withCreationTimestamp(CREATED.toString())
                    .addToLabels("node-role.kubernetes.io/worker", "")
                    .endMetadata()
                    .withNewStatus()
                    .addNewCondition()
                    .withType("Ready")
                    .withStatus("True")
                    .endCondition()
                    .addNewAddress()
                    .withType("InternalIP")
                    .withAddress("172.18.0.3")
                    .endAddress()
                    .withNewNodeInfo()
                    .withKubeletVersion("v1.32.0")
                    .endNodeInfo()
                    .endStatus()
                    .build());

            assertEquals(
                    List.of(
                            "node-1",
                            "Ready",
                            "worker",
                            "5m",
                            "v1.32.0",
                            "172.18.0.3",
                            "<none>",
                            "<unknown>",
                            "<unknown>",
                            "<unknown>"),
                    Printers.nodeCells(node, NOW));
        }

        @Test
        void aNodeWithoutReadyConditionOrRolesIsUnknownWithNone() {
            JsonNode node = Json.tree(new NodeBuilder()
                    .withNewMetadata()
                    .withName("node-2")
                    .endMetadata()
                    .build());

            List<Object> cells = Printers.nodeCells(node, NOW);
            assertEquals("Unknown", cells.get(1));
            assertEquals("<none>", cells.get(2));
        }
    }

    @Nested
    class TheTable {
        @Test
        void kubectlGetAsksForTheV1Table() {
            assertEquals(Optional.of("v1"), Tables.requestedVersion(KUBECTL_GET));
            assertEquals(
                    Optional.of("v1beta1"),
                    Tables.requestedVersion("application/json;as=Table;v=v1beta1;g=meta.k8s.io"));
            assertEquals(Optional.empty(), Tables.requestedVersion("application/json"));
            assertEquals(Optional.empty(), Tables.requestedVersion("application/json, */*"));
            assertEquals(Optional.empty(), Tables.requestedVersion(null));
        }

        @Test
        void rowsCarryPartialObjectMetadataByDefault() {
            ObjectNode table = Tables.table(ResourceType.PODS, List.of(running()), "12", NOW, format("Metadata"));

            assertEquals("Table", table.path("kind").asText());
            assertEquals("meta.k8s.io/v1", table.path("apiVersion").asText());
            assertEquals("12", table.path("metadata").path("resourceVersion").asText());
            assertEquals(
                    List.of(
                            "Name",
                            "Ready",
                            "Status",
                            "Restarts",
                            "Age",
                            "IP",
                            "Node",
                            "Nominated Node",
                            "Readiness Gates"),
                    table.path("columnDefinitions").findValuesAsText("name"));
            assertEquals(
                    List.of(0, 0, 0, 0, 0, 1, 1, 1, 1),
                    table.path("columnDefinitions").findValues("priority").stream()
                            .map(JsonNode::asInt)
                            .toList());
            JsonNode object = table.path("rows").get(0).path("object");
            assertEquals("PartialObjectMetadata", object.path("kind").asText());
            assertEquals("uid-1", object.path("metadata").path("uid").asText());
            assertFalse(object.has("spec"));
        }

        @Test
        void includeObjectChoosesTheWholeObjectOrNone() {
            assertEquals(
                    "Pod",
                    Tables.table(ResourceType.PODS, List.of(running()), "1", NOW, format("Object"))
                            .path("rows")
                            .get(0)
                            .path("object")
                            .path("kind")
                            .asText());
            assertFalse(Tables.table(ResourceType.PODS, List.of(running()), "1", NOW, format("None"))
                    .path("rows")
                    .get(0)
                    .has("object"));
            assertEquals(
                    400,
                    assertThrows(StatusError.class, () -> Tables.IncludeObject.parse("All"))
                            .status()
                            .getCode());
        }

        @Test
        void anEmptyListIsATableWithNoRows() {
            assertEquals(
                    0,
                    Tables.table(ResourceType.NODES, List.of(), "1", NOW, format(null))
                            .path("rows")
                            .size());
        }
    }

    private static Tables.Format format(String includeObject) {
        return new Tables.Format("v1", Tables.IncludeObject.parse(includeObject));
    }

    private static ObjectNode running() {
        ObjectNode pod = (ObjectNode) Json.tree(aPod("web-1")
                .withUid("uid-1")
                .onNode("node-1")
                .inPhase("Running")
                .build());
        ((ObjectNode) pod.path("metadata")).put("creationTimestamp", CREATED.toString());
        ObjectNode status = (ObjectNode) pod.path("status");
        status.put("podIP", "10.244.1.2").putArray("podIPs").addObject().put("ip", "10.244.1.2");
        status.putArray("conditions").addObject().put("type", "Ready").put("status", "True");
        status.putArray("containerStatuses")
                .addObject()
                .put("name", "app")
                .put("ready", true)
                .put("restartCount", 0)
                .putObject("state")
                .putObject("running")
                .put("startedAt", CREATED.toString());
        return pod;
    }
}
