package io.podfall.apiserver.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.Json;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Table rows of the kinds beside pods and nodes, with upstream's cells (pkg/printers/internalversion/printers.go). */
class KindTablesTest {
    private static final Instant NOW = Instant.parse("2025-03-01T10:05:00Z");
    private static final String META = "\"metadata\":{\"name\":\"web\",\"creationTimestamp\":\"2025-03-01T10:00:00Z\"}";

    @Test
    void deploymentShowsReadyOfDesiredUpToDateAvailableThenContainersImagesSelector() {
        JsonNode d = json("{" + META
                + ",\"spec\":{\"replicas\":2,\"selector\":{\"matchLabels\":{\"tier\":\"front\",\"app\":\"web\"}},"
                + "\"template\":{\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"nginx:1.27\"},{\"name\":\"log\",\"image\":\"busybox\"}]}}},"
                + "\"status\":{\"readyReplicas\":1,\"updatedReplicas\":2,\"availableReplicas\":1}}");

        assertEquals(
                List.of("web", "1/2", 2, 1, "5m", "app,log", "nginx:1.27,busybox", "app=web,tier=front"),
                Printers.cells(ResourceType.DEPLOYMENTS, d, NOW));
    }

    @Test
    void podDisruptionBudgetShowsMinAvailableMaxUnavailableAndAllowedDisruptions() {
        assertEquals(
                List.of("web", "2", "N/A", 1, "5m"),
                Printers.cells(
                        ResourceType.PODDISRUPTIONBUDGETS,
                        json("{" + META + ",\"spec\":{\"minAvailable\":2},\"status\":{\"disruptionsAllowed\":1}}"),
                        NOW));
        assertEquals(
                List.of("web", "N/A", "25%", 0, "5m"),
                Printers.cells(
                        ResourceType.PODDISRUPTIONBUDGETS,
                        json("{" + META + ",\"spec\":{\"maxUnavailable\":\"25%\"}}"),
                        NOW));
    }

    @Test
    void replicaSetShowsDesiredCurrentReady() {
        JsonNode rs = json("{" + META
                + ",\"spec\":{\"replicas\":3,\"selector\":{\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"In\","
                + "\"values\":[\"web\",\"api\"]}]},\"template\":{\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"nginx\"}]}}},"
                + "\"status\":{\"replicas\":2}}");

        assertEquals(
                List.of("web", 3, 2, 0, "5m", "app", "nginx", "app in (api,web)"),
                Printers.cells(ResourceType.REPLICASETS, rs, NOW));
    }

    @Test
    void serviceShowsTypeClusterIpPortsAndSelector() {
        JsonNode svc = json(
                "{" + META
                        + ",\"spec\":{\"type\":\"NodePort\",\"clusterIP\":\"10.96.0.10\",\"selector\":{\"app\":\"web\"},"
                        + "\"ports\":[{\"port\":80,\"nodePort\":30080,\"protocol\":\"TCP\"},{\"port\":53,\"protocol\":\"UDP\"}]}}");

        assertEquals(
                List.of("web", "NodePort", "10.96.0.10", "<none>", "80:30080/TCP,53/UDP", "5m", "app=web"),
                Printers.cells(ResourceType.SERVICES, svc, NOW));
    }

    @Test
    void endpointsShowTheFirstThreeAddressesAndHowManyMore() {
        assertEquals("<none>", Printers.endpoints(json("{" + META + "}")));
        JsonNode ep = json("{" + META
                + ",\"subsets\":[{\"addresses\":[{\"ip\":\"10.244.1.2\"},{\"ip\":\"10.244.1.3\"},{\"ip\":\"10.244.2.2\"}],"
                + "\"ports\":[{\"port\":80},{\"port\":443}]}]}");
        assertEquals("10.244.1.2:80,10.244.1.3:80,10.244.2.2:80 + 3 more...", Printers.endpoints(ep));
    }

    @Test
    void eventShowsLastSeenTypeReasonObjectAndMessageWithTheWideColumnsInTheirPlaces() {
        JsonNode ev =
                json("{\"metadata\":{\"name\":\"web-1.17f\"},\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"web-1\","
                        + "\"fieldPath\":\"spec.containers{app}\"},\"reason\":\"Killing\",\"message\":\"Stopping container app \",\"type\":\"Normal\","
                        + "\"source\":{\"component\":\"kubelet\",\"host\":\"node-1\"},\"firstTimestamp\":\"2025-03-01T10:03:00Z\","
                        + "\"lastTimestamp\":\"2025-03-01T10:04:00Z\",\"count\":2}");

        assertEquals(
                List.of(
                        "60s",
                        "Normal",
                        "Killing",
                        "pod/web-1",
                        "spec.containers{app}",
                        "kubelet, node-1",
                        "Stopping container app",
                        "2m",
                        2,
                        "web-1.17f"),
                Printers.cells(ResourceType.EVENTS, ev, NOW));
    }

    @Test
    void namespaceShowsItsPhase() {
        assertEquals(
                List.of("web", "Active", "5m"),
                Printers.cells(ResourceType.NAMESPACES, json("{" + META + ",\"status\":{\"phase\":\"Active\"}}"), NOW));
    }

    @Test
    void leaseShowsItsHolder() {
        assertEquals(
                List.of("web", "node-1", "5m"),
                Printers.cells(
                        ResourceType.LEASES, json("{" + META + ",\"spec\":{\"holderIdentity\":\"node-1\"}}"), NOW));
    }

    @Test
    void everyKindHasAsManyColumnsAsCells() {
        for (ResourceType type : ResourceType.values()) {
            JsonNode table = Tables.table(
                    type,
                    List.of(json("{" + META + "}")),
                    "1",
                    NOW,
                    new Tables.Format("v1", Tables.IncludeObject.NONE));
            assertEquals(
                    table.path("columnDefinitions").size(),
                    table.path("rows").get(0).path("cells").size(),
                    type.plural());
        }
    }

    private static JsonNode json(String text) {
        try {
            return Json.MAPPER.readTree(text);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
