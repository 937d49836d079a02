package io.podfall.apiserver.rest;

import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.podfall.apiserver.registry.Selectors;
import io.podfall.apiserver.registry.StatusError;
import io.podfall.model.Json;
import io.podfall.model.k8s.ResourceType;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class RestPiecesTest {

    @Nested
    class FieldAndLabelSelectors {
        private final JsonNode web1 = Json.tree(
                aPod("web-1").onNode("node-1").withAnnotation("a", "b").build());
        private final JsonNode unscheduled = Json.tree(aPod("web-2").build());

        {
            ((ObjectNode) web1.path("metadata"))
                    .putObject("labels")
                    .put("app", "web")
                    .put("tier", "front");
        }

        @Test
        void metadataNameSelectsTheOnePodKubectlWaitsFor() {
            Selectors s = Selectors.parse(ResourceType.PODS, "metadata.name=web-1", null);

            assertTrue(s.matches(web1));
            assertFalse(s.matches(unscheduled));
        }

        @Test
        void anEmptyNodeNameSelectsUnscheduledPods() {
            Selectors s = Selectors.parse(ResourceType.PODS, "spec.nodeName=", null);

            assertFalse(s.matches(web1));
            assertTrue(s.matches(unscheduled));
        }

        @Test
        void termsAreAndedAndSupportDoubleEqualsAndNotEquals() {
            assertTrue(Selectors.parse(ResourceType.PODS, "metadata.namespace==default,spec.nodeName!=node-2", null)
                    .matches(web1));
            assertFalse(Selectors.parse(ResourceType.PODS, "metadata.namespace=default,spec.nodeName!=node-1", null)
                    .matches(web1));
        }

        @Test
        void labelSelectorsMatchByEqualityAndExistence() {
            assertTrue(Selectors.parse(ResourceType.PODS, null, "app=web,tier!=back")
                    .matches(web1));
            assertFalse(Selectors.parse(ResourceType.PODS, null, "app=db").matches(web1));
            assertTrue(Selectors.parse(ResourceType.PODS, null, "app").matches(web1));
            assertFalse(Selectors.parse(ResourceType.PODS, null, "!app").matches(web1));
            assertTrue(
                    Selectors.parse(ResourceType.PODS, null, "app!=web").matches(unscheduled),
                    "a missing label is not equal");
            assertFalse(Selectors.parse(ResourceType.PODS, null, "app=web").matches(unscheduled));
        }

        @Test
        void anUnknownFieldIsRefusedAsUpstreamRefusesIt() {
            StatusError e =
                    assertThrows(StatusError.class, () -> Selectors.parse(ResourceType.PODS, "spec.color=red", null));

            assertEquals(400, e.status().getCode());
            assertEquals("BadRequest", e.status().getReason());
            assertEquals("field label not supported: spec.color", e.status().getMessage());
        }

        @Test
        void nodesOnlySelectByName() {
            assertThrows(StatusError.class, () -> Selectors.parse(ResourceType.NODES, "spec.nodeName=x", null));
            assertTrue(Selectors.parse(ResourceType.NODES, "metadata.name=node-1", null)
                    .matches(Json.MAPPER
                            .createObjectNode()
                            .set("metadata", Json.MAPPER.createObjectNode().put("name", "node-1"))));
        }

        @Test
        void setBasedOrMalformedSelectorsAreBadRequests() {
            assertEquals(
                    400,
                    assertThrows(StatusError.class, () -> Selectors.parse(ResourceType.PODS, null, "app in (a,b)"))
                            .status()
                            .getCode());
            assertEquals(
                    400,
                    assertThrows(StatusError.class, () -> Selectors.parse(ResourceType.PODS, "metadata.name", null))
                            .status()
                            .getCode());
        }

        /** An empty term is refused, as labels.Parse refuses it: dropped, "," was a selector of everything. */
        @Test
        void emptyTermsAreBadRequestsNotSelectorsOfEverything() {
            for (String selector : List.of(",", "app=web,", ",app=web", "app=web,,tier=db")) {
                assertEquals(
                        400,
                        assertThrows(
                                        StatusError.class,
                                        () -> Selectors.parse(ResourceType.PODS, null, selector),
                                        selector)
                                .status()
                                .getCode());
                assertEquals(
                        400,
                        assertThrows(
                                        StatusError.class,
                                        () -> Selectors.parse(
                                                ResourceType.PODS, selector.replace("app", "metadata.name"), null),
                                        selector)
                                .status()
                                .getCode());
            }
        }
    }

    @Nested
    class Bodies {
        @Test
        void aPostWithoutKindAndApiVersionGetsThemFromTheUrl() {
            ObjectNode object = RequestBodies.object(
                    ResourceType.PODS,
                    "application/json",
                    "{\"metadata\":{\"name\":\"pyp\"},\"spec\":{}}".getBytes(StandardCharsets.UTF_8));

            assertEquals("Pod", object.path("kind").asText());
            assertEquals("v1", object.path("apiVersion").asText());
            assertEquals("pyp", object.path("metadata").path("name").asText());
        }

        @Test
        void unreadableJsonIsABadRequest() {
            StatusError e = assertThrows(
                    StatusError.class,
                    () -> RequestBodies.object(
                            ResourceType.PODS, null, "{\"metadata\":".getBytes(StandardCharsets.UTF_8)));

            assertEquals(400, e.status().getCode());
            assertEquals("BadRequest", e.status().getReason());
        }

        @Test
        void aBodyInAnotherMediaTypeIsUnsupported() {
            StatusError e = assertThrows(
                    StatusError.class,
                    () -> RequestBodies.object(
                            ResourceType.PODS, "application/yaml", "kind: Pod".getBytes(StandardCharsets.UTF_8)));

            assertEquals(415, e.status().getCode());
            assertEquals("UnsupportedMediaType", e.status().getReason());
        }

        @Test
        void aPatchIsOneOfTheThreePatchTypesElse415() {
            assertEquals(
                    "application/strategic-merge-patch+json",
                    RequestBodies.patchType("application/strategic-merge-patch+json"));
            assertEquals(
                    "application/merge-patch+json",
                    RequestBodies.patchType("application/merge-patch+json; charset=utf-8"));
            assertEquals("application/json-patch+json", RequestBodies.patchType("application/json-patch+json"));
            for (String other : new String[] {"application/json", "application/apply-patch+yaml", null}) {
                StatusError e = assertThrows(StatusError.class, () -> RequestBodies.patchType(other));
                assertEquals(415, e.status().getCode());
                assertEquals("UnsupportedMediaType", e.status().getReason());
            }
        }

        @Test
        void jsonWithACharsetOrNoContentTypeIsAccepted() {
            RequestBodies.requireJson("application/json; charset=utf-8");
            RequestBodies.requireJson(null);
        }

        @Test
        void deleteOptionsComeFromTheBodyWhenThereIsOne() {
            DeleteOptions o = RequestBodies.deleteOptions(
                    "application/json",
                    "{\"gracePeriodSeconds\":5,\"propagationPolicy\":\"Background\"}".getBytes(StandardCharsets.UTF_8),
                    "9",
                    "Orphan",
                    List.of());

            assertEquals(5L, o.getGracePeriodSeconds());
            assertEquals("Background", o.getPropagationPolicy());
        }

        @Test
        void deleteOptionsComeFromTheQueryWithoutABody() {
            DeleteOptions o =
                    RequestBodies.deleteOptions("application/json", new byte[0], "0", "Foreground", List.of("All"));

            assertEquals(0L, o.getGracePeriodSeconds());
            assertEquals("Foreground", o.getPropagationPolicy());
            assertEquals(List.of("All"), o.getDryRun());
        }

        @Test
        void anEmptyBodyAndQueryGiveEmptyOptions() {
            DeleteOptions o = RequestBodies.deleteOptions(null, null, null, null, List.of());

            assertNull(o.getGracePeriodSeconds());
            assertNull(o.getPropagationPolicy());
        }

        @Test
        void aGracePeriodThatIsNoNumberIsABadRequest() {
            assertEquals(
                    400,
                    assertThrows(
                                    StatusError.class,
                                    () -> RequestBodies.deleteOptions(null, new byte[0], "soon", null, List.of()))
                            .status()
                            .getCode());
        }

        /** len(body) > 0, as delete.go reads it: whitespace is a body that is no DeleteOptions, not an absent one. */
        @Test
        void aWhitespaceBodyIsNoDeleteOptions() {
            assertEquals(
                    400,
                    assertThrows(
                                    StatusError.class,
                                    () -> RequestBodies.deleteOptions(
                                            "application/json",
                                            " ".getBytes(StandardCharsets.UTF_8),
                                            null,
                                            null,
                                            List.of()))
                            .status()
                            .getCode());
        }

        @Test
        void everyDryRunValueCountsAnEmptyOneToo() {
            assertEquals(List.of(""), RequestBodies.dryRun("/api/v1/namespaces/x?dryRun="));
            assertEquals(List.of("All", "x"), RequestBodies.dryRun("/api/v1/namespaces/x?a=b&dryRun=All&dryRun=x"));
            assertEquals(List.of(), RequestBodies.dryRun("/api/v1/namespaces/x?dryRunX=All"));
        }

        /** strconv.ParseInt refuses spaces: "5 " was read as 5 and the object deleted. An empty value is no value. */
        @Test
        void aGracePeriodWithSpacesIsABadRequestAndAnEmptyOneIsUnset() {
            for (String grace : List.of(" 5", "5 ", " ")) {
                assertEquals(
                        400,
                        assertThrows(
                                        StatusError.class,
                                        () -> RequestBodies.deleteOptions(null, null, grace, null, List.of()),
                                        grace)
                                .status()
                                .getCode());
            }
            assertNull(
                    RequestBodies.deleteOptions(null, null, "", null, List.of()).getGracePeriodSeconds());
            assertEquals(
                    " ",
                    RequestBodies.deleteOptions(null, null, null, " ", List.of())
                            .getPropagationPolicy(),
                    "kept for the registry's validation to refuse");
        }

        /** Go's decoder puts no string, fraction or bool into DeleteOptions.gracePeriodSeconds (an int64). */
        @Test
        void aBodyGracePeriodOfAnotherJsonTypeIsABadRequest() {
            for (String value : List.of("\"30\"", "1.5", "true", "2.0", "[]")) {
                byte[] body = ("{\"gracePeriodSeconds\":" + value + "}").getBytes(StandardCharsets.UTF_8);
                StatusError e = assertThrows(
                        StatusError.class,
                        () -> RequestBodies.deleteOptions("application/json", body, null, null, List.of()),
                        value);
                assertEquals(400, e.status().getCode(), value);
                assertTrue(
                        e.getMessage()
                                .startsWith("DeleteOptions in version \"v1\" cannot be handled as a DeleteOptions"),
                        e.getMessage());
            }
            byte[] orphan = "{\"orphanDependents\":\"true\"}".getBytes(StandardCharsets.UTF_8);
            assertEquals(
                    400,
                    assertThrows(
                                    StatusError.class,
                                    () -> RequestBodies.deleteOptions(
                                            "application/json", orphan, null, null, List.of()))
                            .status()
                            .getCode());
        }
    }

    @Nested
    class StatusObjects {
        @Test
        void aNotFoundStatusRendersAsTheApiServerWritesIt() {
            JsonNode json =
                    Json.tree(StatusError.notFound(ResourceType.PODS, "x").status());

            assertEquals(
                    Json.read(("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                                    + "\"message\":\"pods \\\"x\\\" not found\",\"reason\":\"NotFound\","
                                    + "\"details\":{\"name\":\"x\",\"group\":\"\",\"kind\":\"pods\"},\"code\":404}")
                            .getBytes(StandardCharsets.UTF_8)),
                    json);
        }

        @Test
        void unknownPathsTimeoutsAndUnavailabilityHaveTheirCodesAndReasons() {
            assertEquals(
                    "the server could not find the requested resource",
                    StatusError.pathNotFound().status().getMessage());
            assertEquals(404, StatusError.pathNotFound().status().getCode());
            assertEquals("Timeout", StatusError.timeout().status().getReason());
            assertEquals(504, StatusError.timeout().status().getCode());
            assertEquals(
                    "ServiceUnavailable",
                    StatusError.serviceUnavailable("later", 1).status().getReason());
            assertEquals(
                    503, StatusError.serviceUnavailable("later", 1).status().getCode());
            assertEquals(405, ErrorResponses.forCode(405, "x").status().getCode());
        }

        /**
         * A client that comes while the state is rebuilt from the log is told when to try again, in the Status
         * (client-go reads {@code details.retryAfterSeconds}) and in the header (any HTTP client).
         */
        @Test
        void theRebuilding503SaysWhenToTryAgainInItsStatusAndItsHeader() {
            Response response = Responses.status(ApiResource.rebuilding());

            assertEquals(503, response.getStatus());
            assertEquals("1", response.getHeaderString("Retry-After"));
            JsonNode status = Json.read((byte[]) response.getEntity());
            assertEquals("ServiceUnavailable", status.path("reason").asText());
            assertEquals(
                    "the API server is rebuilding its state from the log; try again shortly",
                    status.path("message").asText());
            assertEquals(1, status.path("details").path("retryAfterSeconds").asInt());
            assertEquals(1, status.path("details").size(), "no name, group or kind: no object is concerned");
        }

        @Test
        void aRefusalWithoutRetryAfterSecondsSendsNoRetryAfterHeader() {
            Response response = Responses.status(StatusError.pathNotFound());

            assertEquals(404, response.getStatus());
            assertNull(response.getHeaderString("Retry-After"));
        }

        /** What the router refuses before a handler answers: a chunked body past the limit, a path it cannot decode. */
        @Test
        void theFrameworksOwnRefusalsAreStatusesOfTheirCode() {
            assertEquals(
                    "RequestEntityTooLarge",
                    ErrorResponses.forCode(413, null).status().getReason());
            assertEquals(413, ErrorResponses.forCode(413, null).status().getCode());
            assertEquals(
                    "BadRequest",
                    ErrorResponses.forCode(400, "bad escape").status().getReason());
            assertEquals(
                    400,
                    ErrorResponses.forCode(406, "not acceptable").status().getCode(),
                    "a 4xx without a reason of its own");
            assertEquals(500, ErrorResponses.forCode(-1, "boom").status().getCode(), "an exception, no code");
        }
    }

    @Nested
    class DiscoveryDocuments {
        @Test
        void coreV1ListsPodsAndNodesWithWhatKubectlAndThePythonClientNeed() {
            JsonNode resources = Discovery.resources("").path("resources");

            JsonNode pods = named(resources, "pods");
            assertEquals("", pods.path("singularName").asText());
            assertTrue(pods.path("singularName").isTextual());
            assertTrue(pods.path("namespaced").asBoolean());
            assertEquals("Pod", pods.path("kind").asText());
            assertEquals(
                    "[\"create\",\"delete\",\"deletecollection\",\"get\",\"list\",\"patch\",\"update\",\"watch\"]",
                    pods.path("verbs").toString());
            assertEquals("[\"po\"]", pods.path("shortNames").toString());
            assertEquals("[\"all\"]", pods.path("categories").toString());
            JsonNode nodes = named(resources, "nodes");
            assertFalse(nodes.path("namespaced").asBoolean());
            assertEquals("[\"no\"]", nodes.path("shortNames").toString());
            assertFalse(nodes.has("categories"), "nodes are not in kubectl get all");
        }

        @Test
        void coreV1ListsTheKindsOfADeploymentsLifeWithShortNamesAndStatusSubresources() {
            JsonNode resources = Discovery.resources("").path("resources");

            assertEquals(
                    "[\"ns\"]",
                    named(resources, "namespaces").path("shortNames").toString());
            assertFalse(named(resources, "namespaces").path("namespaced").asBoolean());
            assertEquals(
                    "[\"create\",\"delete\",\"get\",\"list\",\"patch\",\"update\",\"watch\"]",
                    named(resources, "namespaces").path("verbs").toString(),
                    "namespaces are deleted one by one: no deletecollection");
            assertEquals(
                    "[\"update\"]",
                    named(resources, "namespaces/finalize").path("verbs").toString());
            assertEquals(
                    "[\"get\",\"patch\",\"update\"]",
                    named(resources, "namespaces/status").path("verbs").toString());
            assertEquals(
                    "[\"svc\"]", named(resources, "services").path("shortNames").toString());
            assertEquals(
                    "[\"all\"]", named(resources, "services").path("categories").toString());
            assertEquals(
                    "[\"ep\"]", named(resources, "endpoints").path("shortNames").toString());
            assertEquals(
                    "[\"ev\"]", named(resources, "events").path("shortNames").toString());
            assertEquals(
                    "[\"get\",\"patch\",\"update\"]",
                    named(resources, "pods/status").path("verbs").toString());
            assertEquals("Pod", named(resources, "pods/status").path("kind").asText());
            assertEquals(null, named(resources, "events/status"), "events have no status subresource");
            assertEquals(null, named(resources, "deployments"), "apps is a group of its own");
        }

        @Test
        void coreV1ListsThePolicyEvictionOfPodsThatKubectlDrainLooksFor() {
            JsonNode eviction = named(Discovery.resources("").path("resources"), "pods/eviction");

            assertEquals("Eviction", eviction.path("kind").asText());
            assertEquals("policy", eviction.path("group").asText());
            assertEquals("v1", eviction.path("version").asText());
            assertEquals("[\"create\"]", eviction.path("verbs").toString());
        }

        @Test
        void appsV1ListsDeploymentsAndReplicaSetsWithStatusAndAnAutoscalingScale() {
            JsonNode doc = Discovery.resources("apps");
            JsonNode resources = doc.path("resources");

            assertEquals("apps/v1", doc.path("groupVersion").asText());
            assertEquals(
                    "Deployment", named(resources, "deployments").path("kind").asText());
            assertEquals(
                    "[\"deploy\"]",
                    named(resources, "deployments").path("shortNames").toString());
            assertEquals(
                    "[\"all\"]",
                    named(resources, "deployments").path("categories").toString());
            assertEquals(
                    "[\"rs\"]",
                    named(resources, "replicasets").path("shortNames").toString());
            JsonNode scale = named(resources, "deployments/scale");
            assertEquals("Scale", scale.path("kind").asText());
            assertEquals("autoscaling", scale.path("group").asText());
            assertEquals("v1", scale.path("version").asText());
            assertEquals(
                    "ReplicaSet",
                    named(resources, "replicasets/status").path("kind").asText());
            assertEquals(
                    "Scale", named(resources, "replicasets/scale").path("kind").asText());
            assertEquals(null, named(resources, "pods"));
        }

        @Test
        void policyV1ListsPodDisruptionBudgetsAsPdbWithTheirStatus() {
            JsonNode resources = Discovery.resources("policy").path("resources");

            JsonNode pdbs = named(resources, "poddisruptionbudgets");
            assertEquals("PodDisruptionBudget", pdbs.path("kind").asText());
            assertEquals(true, pdbs.path("namespaced").asBoolean());
            assertEquals("[\"pdb\"]", pdbs.path("shortNames").toString());
            assertEquals(
                    "PodDisruptionBudget",
                    named(resources, "poddisruptionbudgets/status").path("kind").asText());
            assertEquals(2, resources.size());
        }

        @Test
        void coordinationV1ListsNamespacedLeasesWithEveryVerbAndNoSubresource() {
            JsonNode doc = Discovery.resources("coordination.k8s.io");
            JsonNode resources = doc.path("resources");

            assertEquals("coordination.k8s.io/v1", doc.path("groupVersion").asText());
            assertEquals(1, resources.size(), "leases, and no leases/status");
            JsonNode leases = named(resources, "leases");
            assertEquals("Lease", leases.path("kind").asText());
            assertEquals(true, leases.path("namespaced").asBoolean());
            assertEquals(
                    "[\"create\",\"delete\",\"deletecollection\",\"get\",\"list\",\"patch\",\"update\",\"watch\"]",
                    leases.path("verbs").toString());
        }

        @Test
        void apiAnswersV1AndApisTheAppsGroupWithItsPreferredVersion() {
            assertEquals(
                    "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],\"serverAddressByClientCIDRs\":[]}",
                    Discovery.apiVersions().toString());
            JsonNode groups = Discovery.apiGroupList().path("groups");
            assertEquals(3, groups.size());
            assertEquals("coordination.k8s.io", groups.get(1).path("name").asText());
            assertEquals("policy", groups.get(2).path("name").asText());
            assertEquals("apps", groups.get(0).path("name").asText());
            assertEquals(
                    "[{\"groupVersion\":\"apps/v1\",\"version\":\"v1\"}]",
                    groups.get(0).path("versions").toString());
            assertEquals(
                    "{\"groupVersion\":\"apps/v1\",\"version\":\"v1\"}",
                    groups.get(0).path("preferredVersion").toString());
            assertEquals("APIGroup", Discovery.apiGroup("apps").path("kind").asText());
            assertEquals("v1.32.0", Discovery.version().path("gitVersion").asText());
        }

        private static JsonNode named(JsonNode resources, String name) {
            for (JsonNode r : resources) {
                if (r.path("name").asText().equals(name)) {
                    return r;
                }
            }
            return null;
        }
    }
}
