package io.podfall.apiserver.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.apiserver.UpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The registry's rules for the kinds beside pods and nodes: workloads, their /status and /scale, namespaces, services,
 * endpoints.
 */
class KindsRegistryTest extends RegistryFixture {
    private static final String DEPLOYMENT = """
            {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"}},
             "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
                     "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}}}""";
    private static final String REPLICASET = """
            {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-1","ownerReferences":[{"apiVersion":"apps/v1",
              "kind":"Deployment","name":"web","uid":"u-1","controller":true,"blockOwnerDeletion":true}]},
             "spec":{"selector":{"matchLabels":{"app":"web"}},
                     "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}}}""";

    @Nested
    class Workloads {
        @Test
        void aCreatedDeploymentGetsUpstreamsDefaultsGenerationOneAndAnEmptyStatus() {
            JsonNode d = created(create("deployments", DEPLOYMENT));

            assertEquals(1, d.path("metadata").path("generation").asInt());
            assertEquals(2, d.path("spec").path("replicas").asInt());
            assertEquals(
                    "{\"rollingUpdate\":{\"maxSurge\":\"25%\",\"maxUnavailable\":\"25%\"},\"type\":\"RollingUpdate\"}",
                    d.path("spec").path("strategy").toString());
            assertEquals(10, d.path("spec").path("revisionHistoryLimit").asInt());
            assertEquals(600, d.path("spec").path("progressDeadlineSeconds").asInt());
            assertEquals(
                    30,
                    d.path("spec")
                            .path("template")
                            .path("spec")
                            .path("terminationGracePeriodSeconds")
                            .asInt(),
                    "pod defaults in the template");
            assertEquals("{}", d.path("status").toString());
        }

        @Test
        void aReplicaSetDefaultsToOneReplicaAlwaysShowsStatusReplicasAndKeepsItsOwnerReferences() {
            JsonNode rs = created(create("replicasets", REPLICASET));

            assertEquals(1, rs.path("spec").path("replicas").asInt());
            assertEquals(0, rs.path("status").path("replicas").asInt());
            assertTrue(rs.path("status").has("replicas"), "ReplicaSetStatus.replicas is not omitempty");
            assertEquals(
                    "u-1",
                    rs.path("metadata")
                            .path("ownerReferences")
                            .get(0)
                            .path("uid")
                            .asText());
            assertTrue(rs.path("metadata")
                    .path("ownerReferences")
                    .get(0)
                    .path("blockOwnerDeletion")
                    .asBoolean());
        }

        @Test
        void aSelectorThatDoesNotSelectTheTemplateIsInvalid() {
            Status s = rejection(create(
                    "deployments",
                    DEPLOYMENT.replace("\"matchLabels\":{\"app\":\"web\"}", "\"matchLabels\":{\"app\":\"db\"}")));

            assertEquals(422, s.getCode());
            assertEquals(
                    "Deployment.apps \"web\" is invalid: spec.template.metadata.labels: Invalid value: "
                            + "map[string]string{\"app\":\"web\"}: `selector` does not match template `labels`",
                    s.getMessage());
        }

        @Test
        void aSpecChangeIsANewGenerationAMetadataOnlyChangeOfAReplicaSetIsNot() {
            create("deployments", DEPLOYMENT);
            create("replicasets", REPLICASET);

            assertEquals(
                    2,
                    object(patch("deployments", "web", null, "{\"spec\":{\"replicas\":5}}"))
                            .path("metadata")
                            .path("generation")
                            .asInt());
            assertEquals(
                    3,
                    object(patch("deployments", "web", null, "{\"metadata\":{\"annotations\":{\"a\":\"b\"}}}"))
                            .path("metadata")
                            .path("generation")
                            .asInt(),
                    "a Deployment's annotations are copied to its ReplicaSets");
            assertEquals(
                    1,
                    object(patch("replicasets", "web-1", null, "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}"))
                            .path("metadata")
                            .path("generation")
                            .asInt());
            assertEquals(
                    2,
                    object(patch("replicasets", "web-1", null, "{\"spec\":{\"replicas\":3}}"))
                            .path("metadata")
                            .path("generation")
                            .asInt());
        }

        @Test
        void theStatusSubresourceWritesOnlyTheStatusAndTheMainResourceNeverTheStatus() {
            create("deployments", DEPLOYMENT);

            JsonNode afterStatus = object(
                    patch(
                            "deployments",
                            "web",
                            "status",
                            "{\"spec\":{\"replicas\":9},\"status\":{\"replicas\":2,\"readyReplicas\":2,\"observedGeneration\":1}}"));
            assertEquals(2, afterStatus.path("spec").path("replicas").asInt());
            assertEquals(2, afterStatus.path("status").path("readyReplicas").asInt());
            assertEquals(
                    1, afterStatus.path("metadata").path("generation").asInt(), "a status write is no new generation");

            assertEquals(
                    List.of(),
                    types(patch("deployments", "web", null, "{\"status\":{\"readyReplicas\":0}}")),
                    "the status in a write of the main resource is the stored one: nothing changed");
            assertEquals(
                    2,
                    Json.tree(state.get(ResourceType.DEPLOYMENTS, "default", "web")
                                    .orElseThrow())
                            .path("status")
                            .path("readyReplicas")
                            .asInt());
        }

        @Test
        void theSelectorOfAWorkloadIsImmutable() {
            create("deployments", DEPLOYMENT);

            Status s = rejection(
                    patch(
                            "deployments",
                            "web",
                            null,
                            "{\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\",\"v\":\"2\"}},\"template\":{\"metadata\":{\"labels\":{\"v\":\"2\"}}}}}"));
            assertTrue(
                    s.getMessage().contains("spec.selector: Invalid value: ")
                            && s.getMessage().endsWith("field is immutable"),
                    s.getMessage());
        }
    }

    @Nested
    class Scale {
        @Test
        void aMergePatchOfScaleSetsTheReplicasBumpsTheGenerationAndAnswersAScale() {
            create("deployments", DEPLOYMENT);
            Event request = request(
                    EventTypes.PATCH_REQUESTED,
                    new PatchRequest(
                            "deployments",
                            "default",
                            "web",
                            "scale",
                            PatchRequest.MERGE,
                            json("{\"spec\":{\"replicas\":3}}")));
            Effects effects = handle(request);

            JsonNode d = object(effects);
            assertEquals(3, d.path("spec").path("replicas").asInt());
            assertEquals(2, d.path("metadata").path("generation").asInt());
            JsonNode scale = Outcome.of(state, request, effects).orElseThrow().body();
            assertEquals("Scale", scale.path("kind").asText());
            assertEquals("autoscaling/v1", scale.path("apiVersion").asText());
            assertEquals(3, scale.path("spec").path("replicas").asInt());
            assertEquals(
                    "{\"replicas\":0,\"selector\":\"app=web\"}",
                    scale.path("status").toString());
            assertEquals(
                    d.path("metadata").path("resourceVersion"),
                    scale.path("metadata").path("resourceVersion"));
        }

        @Test
        void aPutOfScaleWithAStaleResourceVersionIsAConflictOnTheWorkload() {
            create("replicasets", REPLICASET);
            JsonNode scale = WorkloadStrategy.scale(Json.tree(
                    state.get(ResourceType.REPLICASETS, "default", "web-1").orElseThrow()));
            ((ObjectNode) scale.path("spec")).put("replicas", 4);
            ((ObjectNode) scale.path("metadata")).put("resourceVersion", "999");

            Status s = rejection(handle(request(
                    EventTypes.UPDATE_REQUESTED,
                    new UpdateRequest("replicasets", "default", "web-1", "scale", scale))));
            assertEquals(409, s.getCode());
            assertTrue(
                    s.getMessage().startsWith("Operation cannot be fulfilled on replicasets.apps \"web-1\""),
                    s.getMessage());

            ((ObjectNode) scale.path("metadata")).remove("resourceVersion");
            assertEquals(
                    4,
                    object(handle(request(
                                    EventTypes.UPDATE_REQUESTED,
                                    new UpdateRequest("replicasets", "default", "web-1", "scale", scale))))
                            .path("spec")
                            .path("replicas")
                            .asInt());
        }

        @Test
        void negativeReplicasAreAnInvalidScale() {
            create("deployments", DEPLOYMENT);

            Status s = rejection(patch("deployments", "web", "scale", "{\"spec\":{\"replicas\":-1}}"));
            assertEquals(
                    "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0",
                    s.getMessage());
        }

        /**
         * The Scale is decoded whole as autoscaling/v1, an int32 of replicas: another version, or a fraction, is
         * refused.
         */
        @Test
        void aScaleOfAnotherVersionFractionalReplicasOrUndecodableMetadataIsABadRequestAndChangesNothing() {
            create("deployments", DEPLOYMENT);

            Status version = rejection(
                    patch("deployments", "web", "scale", "{\"apiVersion\":\"v9\",\"spec\":{\"replicas\":3}}"));
            assertEquals(400, version.getCode());
            assertEquals("no kind \"Scale\" is registered for version \"v9\"", version.getMessage());
            assertEquals(
                    400,
                    rejection(patch("deployments", "web", "scale", "{\"spec\":{\"replicas\":1.5}}"))
                            .getCode());
            assertEquals(
                    400,
                    rejection(patch("deployments", "web", "scale", "{\"metadata\":{\"finalizers\":{\"a\":1}}}"))
                            .getCode(),
                    "metadata that does not decode");
            assertEquals(1, writes());
        }

        @Test
        void podsHaveNoScale() {
            Status s = rejection(handle(request(
                    EventTypes.PATCH_REQUESTED,
                    new PatchRequest("services", "default", "x", "scale", PatchRequest.MERGE, json("{}")))));
            assertEquals(404, s.getCode());
        }
    }

    @Nested
    class Deletion {
        @Test
        void backgroundAndTheDefaultRemoveADeploymentAtOnceWithAStatusSuccess() {
            create("deployments", DEPLOYMENT);
            Event request = deletion("deployments", "web", new DeleteOptions());
            Effects effects = handle(request);

            assertEquals(List.of(EventTypes.OBJECT_REMOVED), types(effects));
            assertTrue(state.get(ResourceType.DEPLOYMENTS, "default", "web").isEmpty());
            JsonNode answer = Outcome.of(state, request, effects).orElseThrow().body();
            assertEquals("Success", answer.path("status").asText());
            assertEquals("deployments", answer.path("details").path("kind").asText());
            assertEquals("apps", answer.path("details").path("group").asText());

            create("deployments", DEPLOYMENT);
            assertEquals(
                    List.of(EventTypes.OBJECT_REMOVED),
                    types(handle(deletion(
                            "deployments",
                            "web",
                            new DeleteOptionsBuilder()
                                    .withPropagationPolicy("Background")
                                    .build()))));
        }

        @Test
        void foregroundKeepsTheDeploymentWithDeletionTimestampAndTheForegroundFinalizer() {
            create("deployments", DEPLOYMENT);
            JsonNode d = object(handle(deletion(
                    "deployments",
                    "web",
                    new DeleteOptionsBuilder()
                            .withPropagationPolicy("Foreground")
                            .build())));

            assertEquals(
                    "2025-03-01T10:00:00Z",
                    d.path("metadata").path("deletionTimestamp").asText());
            assertEquals(
                    0, d.path("metadata").path("deletionGracePeriodSeconds").asInt());
            assertEquals(
                    "[\"foregroundDeletion\"]",
                    d.path("metadata").path("finalizers").toString());
            assertTrue(state.get(ResourceType.DEPLOYMENTS, "default", "web").isPresent());
        }

        @Test
        void orphanAddsTheOrphanFinalizerAndTheUpdateThatRemovesItRemovesTheObject() {
            create("deployments", DEPLOYMENT);
            JsonNode d = object(handle(deletion(
                    "deployments",
                    "web",
                    new DeleteOptionsBuilder().withPropagationPolicy("Orphan").build())));
            assertEquals("[\"orphan\"]", d.path("metadata").path("finalizers").toString());

            Effects released = patch("deployments", "web", null, "{\"metadata\":{\"finalizers\":null}}");
            assertEquals(List.of(EventTypes.OBJECT_REMOVED), types(released));
            assertFalse(state.get(ResourceType.DEPLOYMENTS, "default", "web").isPresent());
        }
    }

    @Test
    void aNamespaceIsActiveCarriesTheKubernetesFinalizerAndItsNameLabel() {
        JsonNode ns = created(handle(request(
                EventTypes.CREATION_REQUESTED,
                new CreationRequest("namespaces", "", json("{\"metadata\":{\"name\":\"team-a\"}}")))));

        assertEquals("Active", ns.path("status").path("phase").asText());
        assertEquals("[\"kubernetes\"]", ns.path("spec").path("finalizers").toString());
        assertEquals(
                "team-a",
                ns.path("metadata")
                        .path("labels")
                        .path("kubernetes.io/metadata.name")
                        .asText());
        assertFalse(ns.path("metadata").has("namespace"));
    }

    @Nested
    class Services {
        private static final String WEB =
                "{\"metadata\":{\"name\":\"web\"},\"spec\":{\"selector\":{\"app\":\"web\"},\"ports\":[{\"port\":80}]}}";

        @Test
        void aServiceGetsTypePortProtocolAndTargetPortDefaults() {
            JsonNode svc = created(create("services", WEB));

            assertEquals("ClusterIP", svc.path("spec").path("type").asText());
            assertEquals("None", svc.path("spec").path("sessionAffinity").asText());
            assertEquals(
                    "{\"port\":80,\"protocol\":\"TCP\",\"targetPort\":80}",
                    svc.path("spec").path("ports").get(0).toString());
        }

        @Test
        void aServiceGetsTheLowestFreeClusterIpAndARemovedServiceReleasesIt() {
            JsonNode web = created(create("services", WEB));
            assertEquals("10.96.0.1", web.path("spec").path("clusterIP").asText());
            assertEquals("[\"10.96.0.1\"]", web.path("spec").path("clusterIPs").toString());
            assertEquals("[\"IPv4\"]", web.path("spec").path("ipFamilies").toString());
            assertEquals("SingleStack", web.path("spec").path("ipFamilyPolicy").asText());
            assertEquals(
                    "10.96.0.2",
                    created(create("services", WEB.replace("{\"name\":\"web\"}", "{\"name\":\"db\"}")))
                            .path("spec")
                            .path("clusterIP")
                            .asText());

            assertEquals(
                    List.of(EventTypes.OBJECT_REMOVED),
                    types(handle(deletion("services", "web", new DeleteOptions()))));
            assertTrue(state.get(ResourceType.SERVICES, "default", "web").isEmpty());
            assertEquals(
                    "10.96.0.1",
                    created(create("services", WEB))
                            .path("spec")
                            .path("clusterIP")
                            .asText());
        }

        @Test
        void aHeadlessServiceKeepsNoneAndAnExternalNameServiceGetsNoIp() {
            assertEquals(
                    "[\"None\"]",
                    created(create("services", WEB.replace("\"ports\"", "\"clusterIP\":\"None\",\"ports\"")))
                            .path("spec")
                            .path("clusterIPs")
                            .toString());
            assertFalse(created(
                            create(
                                    "services",
                                    "{\"metadata\":{\"name\":\"ext\"},\"spec\":{\"type\":\"ExternalName\",\"externalName\":\"example.com\"}}"))
                    .path("spec")
                    .has("clusterIP"));
        }

        @Test
        void aRequestedClusterIpMustBeValidInTheRangeAndFree() {
            String asked = WEB.replace("\"ports\"", "\"clusterIP\":\"10.96.0.10\",\"ports\"");
            assertEquals(
                    "10.96.0.10",
                    created(create("services", asked))
                            .path("spec")
                            .path("clusterIP")
                            .asText());

            assertEquals(
                    "Service \"db\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.96.0.10\"}: failed to allocate IP 10.96.0.10: "
                            + "provided IP is already allocated",
                    rejection(create("services", asked.replace("{\"name\":\"web\"}", "{\"name\":\"db\"}")))
                            .getMessage());
            assertEquals(
                    "Service \"db\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.0.0.1\"}: failed to allocate IP 10.0.0.1: "
                            + "the provided IP (10.0.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12",
                    rejection(create(
                                    "services",
                                    asked.replace("{\"name\":\"web\"}", "{\"name\":\"db\"}")
                                            .replace("10.96.0.10", "10.0.0.1")))
                            .getMessage());
            assertEquals(
                    422,
                    rejection(create(
                                    "services",
                                    asked.replace("{\"name\":\"web\"}", "{\"name\":\"db\"}")
                                            .replace("10.96.0.10", "10.96.0.300")))
                            .getCode());
        }

        @Test
        void anUpdateKeepsTheClusterIpAndMayNotChangeIt() {
            create("services", WEB);

            JsonNode updated = object(handle(request(
                    EventTypes.UPDATE_REQUESTED,
                    new UpdateRequest(
                            "services",
                            "default",
                            "web",
                            null,
                            json(WEB.replace(
                                    "{\"name\":\"web\"}", "{\"name\":\"web\",\"labels\":{\"tier\":\"front\"}}"))))));
            assertEquals(
                    "front",
                    updated.path("metadata").path("labels").path("tier").asText());
            assertEquals(
                    "10.96.0.1",
                    updated.path("spec").path("clusterIP").asText(),
                    "a body without an IP keeps the stored one");

            Status s = rejection(patch(
                    "services",
                    "web",
                    null,
                    "{\"spec\":{\"clusterIP\":\"10.96.0.7\",\"clusterIPs\":[\"10.96.0.7\"]}}"));
            assertEquals(
                    "Service \"web\" is invalid: spec.clusterIPs[0]: Invalid value: []string{\"10.96.0.7\"}: may not change once set",
                    s.getMessage());
        }
    }

    @Nested
    class EndpointsObjects {
        private static final String WEB = "{\"metadata\":{\"name\":\"web\",\"labels\":{\"app\":\"web\"}},"
                + "\"subsets\":[{\"addresses\":[{\"ip\":\"10.244.1.2\"}],\"ports\":[{\"port\":80}]}]}";

        @Test
        void aPortWithoutProtocolIsTcp() {
            assertEquals(
                    "{\"port\":80,\"protocol\":\"TCP\"}",
                    created(create("endpoints", WEB))
                            .path("subsets")
                            .get(0)
                            .path("ports")
                            .get(0)
                            .toString());
        }

        @Test
        void addressesMustBeIpsAndPortsValid() {
            Status s = rejection(
                    create(
                            "endpoints",
                            "{\"metadata\":{\"name\":\"web\"},\"subsets\":[{\"addresses\":[{\"ip\":\"web-1\"}],"
                                    + "\"notReadyAddresses\":[{\"ip\":\"fd00::2\"}],\"ports\":[{\"name\":\"http\",\"port\":0},{\"port\":81,\"protocol\":\"HTTP\"}]}]}"));

            assertEquals(422, s.getCode());
            assertEquals(
                    "Endpoints \"web\" is invalid: [subsets[0].addresses[0].ip: Invalid value: \"web-1\": must be a valid IP address, "
                            + "(e.g. 10.9.8.7 or 2001:db8::ffff), subsets[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, "
                            + "subsets[0].ports[1].name: Required value, subsets[0].ports[1].protocol: Unsupported value: \"HTTP\": "
                            + "supported values: \"SCTP\", \"TCP\", \"UDP\"]",
                    s.getMessage());
        }

        @Test
        void aMergePatchReplacesTheSubsetsWholeAndRemovesALabelSetToNull() {
            create("endpoints", WEB);

            JsonNode patched = object(
                    patch(
                            "endpoints",
                            "web",
                            null,
                            "{\"metadata\":{\"labels\":{\"app\":null,\"x\":\"y\"}},"
                                    + "\"subsets\":[{\"notReadyAddresses\":[{\"ip\":\"10.244.1.3\"}],\"ports\":[{\"port\":8080}]}]}"));
            assertEquals(
                    "{\"x\":\"y\"}", patched.path("metadata").path("labels").toString());
            assertEquals(
                    "[{\"notReadyAddresses\":[{\"ip\":\"10.244.1.3\"}],\"ports\":[{\"port\":8080,\"protocol\":\"TCP\"}]}]",
                    patched.path("subsets").toString());

            assertEquals(
                    0,
                    object(patch("endpoints", "web", null, "{\"subsets\":[]}"))
                            .path("subsets")
                            .size(),
                    "no subsets left");
            assertEquals(
                    List.of(EventTypes.OBJECT_REMOVED),
                    types(handle(deletion("endpoints", "web", new DeleteOptions()))));
        }
    }

    @Nested
    class Leases {
        private static final String NODE_LEASE =
                "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":\"node-1\"},"
                        + "\"spec\":{\"holderIdentity\":\"node-1\",\"leaseDurationSeconds\":40,\"renewTime\":\"2025-03-01T10:00:00.000000Z\"}}";

        @Test
        void aNodeLeaseIsStoredAndItsRenewalIsAnUpdateOfRenewTime() {
            JsonNode lease = created(create("leases", NODE_LEASE));
            assertEquals("Lease", lease.path("kind").asText());
            assertEquals("coordination.k8s.io/v1", lease.path("apiVersion").asText());
            assertEquals("node-1", lease.path("spec").path("holderIdentity").asText());

            ObjectNode renewed = (ObjectNode) json(NODE_LEASE);
            ((ObjectNode) renewed.path("spec")).put("renewTime", "2025-03-01T10:00:10.000000Z");
            Effects updated = handle(request(
                    EventTypes.UPDATE_REQUESTED, new UpdateRequest("leases", "default", "node-1", null, renewed)));
            assertEquals(List.of(EventTypes.OBJECT_UPDATED), types(updated));
            assertEquals(
                    "2025-03-01T10:00:10.000000Z",
                    object(updated).path("spec").path("renewTime").asText());
            assertEquals(
                    lease.path("metadata").path("uid"),
                    object(updated).path("metadata").path("uid"));
        }

        @Test
        void aLeaseHasNoStatusSubresource() {
            create("leases", NODE_LEASE);
            assertEquals(
                    404,
                    rejection(patch("leases", "node-1", "status", "{\"spec\":{}}"))
                            .getCode());
        }

        @Test
        void aLeaseDurationMustBePositiveAndItsTransitionsNotNegative() {
            Status s = rejection(create(
                    "leases",
                    "{\"metadata\":{\"name\":\"l\"},\"spec\":{\"leaseDurationSeconds\":0,\"leaseTransitions\":-1,"
                            + "\"preferredHolder\":\"node-2\"}}"));

            assertEquals(422, s.getCode());
            assertEquals(
                    "Lease.coordination.k8s.io \"l\" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, "
                            + "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0, "
                            + "spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined]",
                    s.getMessage());
            assertEquals(404, rejection(patch("leases", "l", null, "{}")).getCode(), "nothing was stored");
        }
    }

    @Test
    void eventsAreStoredAsGiven() {
        JsonNode ev = created(
                create(
                        "events",
                        "{\"metadata\":{\"name\":\"web.1\"},\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"web-1\"},\"reason\":\"Killing\"}"));
        assertEquals("Killing", ev.path("reason").asText());
    }

    private Effects create(String resource, String object) {
        return handle(request(EventTypes.CREATION_REQUESTED, new CreationRequest(resource, "default", json(object))));
    }

    private Effects patch(String resource, String name, String subresource, String patch) {
        return handle(request(
                EventTypes.PATCH_REQUESTED,
                new PatchRequest(resource, "default", name, subresource, PatchRequest.MERGE, json(patch))));
    }

    private Event deletion(String resource, String name, DeleteOptions options) {
        return request(EventTypes.DELETION_REQUESTED, new DeletionRequest(resource, "default", name, options));
    }

    private Event request(String type, Object data) {
        return request(Registry.SOURCE, type, "namespaces/default/x/y", data);
    }

    private static JsonNode created(Effects effects) {
        assertEquals(
                List.of(EventTypes.OBJECT_CREATED),
                types(effects),
                () -> effects.events().toString());
        return object(effects);
    }

    private static JsonNode object(Effects effects) {
        return effects.events()
                .get(effects.events().size() - 1)
                .data(ObjectChange.class)
                .object();
    }
}
