package io.podfall.controller.endpoint;

import static io.podfall.controller.testing.ApiServerFacts.T0;
import static io.podfall.model.k8s.ResourceType.ENDPOINTS;
import static io.podfall.model.k8s.ResourceType.PODS;
import static io.podfall.model.k8s.ResourceType.SERVICES;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.podfall.controller.testing.ApiServerFacts;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

class EndpointsControllerTest {
    private final EndpointsController controller = new EndpointsController();
    private final EndpointsControllerState state = controller.newState();
    private final ApiServerFacts api = new ApiServerFacts();
    /** The Endpoints objects as the simulated API server below stores them, by name. */
    private final Map<String, JsonNode> stored = new HashMap<>();

    // --- the controller, and an API server that applies its requests ---

    private Effects handle(Event event) {
        return controller.handle(state, event, T0);
    }

    /** Handles the event and returns the one request it caused. */
    private Event request(Event event) {
        Effects effects = handle(event);
        assertEquals(1, effects.events().size(), () -> "one request expected: " + effects.events());
        return effects.events().get(0);
    }

    /** The API server's fact for the request, as the registry would store it (a merge patch applied as RFC 7386). */
    private Event applied(Event request) {
        String name;
        JsonNode object;
        String type;
        if (request.is(EventTypes.CREATION_REQUESTED)) {
            object = request.data(CreationRequest.class).object();
            name = object.path("metadata").path("name").asText();
            type = EventTypes.OBJECT_CREATED;
        } else if (request.is(EventTypes.PATCH_REQUESTED)) {
            PatchRequest patch = request.data(PatchRequest.class);
            name = patch.name();
            object = mergePatch(stored.get(name), patch.patch());
            type = EventTypes.OBJECT_UPDATED;
        } else {
            name = request.data(DeletionRequest.class).name();
            object = stored.get(name);
            type = EventTypes.OBJECT_REMOVED;
        }
        Endpoints endpoints = Json.convert(object, Endpoints.class);
        Event fact = api.answer(request, type, ENDPOINTS, endpoints);
        if (type.equals(EventTypes.OBJECT_REMOVED)) {
            stored.remove(name);
        } else {
            stored.put(name, Json.tree(endpoints));
        }
        return fact;
    }

    /** Handles the request's answer; the controller must ask nothing more. */
    private void answer(Event request) {
        assertEquals(Effects.NONE, handle(applied(request)));
    }

    private static JsonNode mergePatch(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch;
        }
        ObjectNode out = target != null && target.isObject() ? target.deepCopy() : Json.MAPPER.createObjectNode();
        patch.fields().forEachRemaining(f -> {
            if (f.getValue().isNull()) {
                out.remove(f.getKey());
            } else {
                out.set(f.getKey(), mergePatch(out.get(f.getKey()), f.getValue()));
            }
        });
        return out;
    }

    // --- test data ---

    /** Service web selecting app=web, cluster IP 10.96.0.10, port http 80 → 8080/TCP. */
    private static ServiceBuilder web() {
        return new ServiceBuilder()
                .withNewMetadata()
                .withName("web")
                .withNamespace("default")
                .addToLabels("tier", "front")
                .endMetadata()
                .withNewSpec()
                .withSelector(Map.of("app", "web"))
                .withClusterIP("10.96.0.10")
                .addNewPort()
                .withName("http")
                .withPort(80)
                .withProtocol("TCP")
                .withTargetPort(new IntOrString(8080))
                .endPort()
                .endSpec();
    }

    /** A pod labelled app=web on node-1 with that IP, Running, Ready or not. */
    private static PodBuilder pod(String name, String ip, boolean ready) {
        return new PodBuilder(aPod(name).onNode("node-1").build())
                .editMetadata()
                .addToLabels("app", "web")
                .endMetadata()
                .withNewStatus()
                .withPhase("Running")
                .withPodIP(ip)
                .withPodIPs(new PodIP(ip))
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready ? "True" : "False")
                .endCondition()
                .endStatus();
    }

    private static Pod terminating(PodBuilder pod) {
        return pod.editMetadata()
                .withDeletionTimestamp("2026-11-29T10:00:30Z")
                .withDeletionGracePeriodSeconds(30L)
                .endMetadata()
                .build();
    }

    /** The body the request writes: the object of a create, the patch of a patch. */
    private static JsonNode written(Event request) {
        return request.is(EventTypes.CREATION_REQUESTED)
                ? request.data(CreationRequest.class).object()
                : request.data(PatchRequest.class).patch();
    }

    /** The subsets a request writes, one string each: {@code ready IPs | not-ready IPs | ports}. */
    private static List<String> subsets(Event request) {
        List<String> out = new ArrayList<>();
        for (JsonNode subset : written(request).path("subsets")) {
            out.add(list(subset.path("addresses"), a -> a.path("ip").asText()) + " | "
                    + list(subset.path("notReadyAddresses"), a -> a.path("ip").asText()) + " | "
                    + list(
                            subset.path("ports"),
                            p -> p.path("name").asText() + ":" + p.path("port").asInt() + "/"
                                    + p.path("protocol").asText()));
        }
        return out;
    }

    private static String list(JsonNode array, Function<JsonNode, String> item) {
        return StreamSupport.stream(array.spliterator(), false).map(item).collect(Collectors.joining(","));
    }

    /** A service web with pods web-1 (10.244.1.2, ready) and web-2 (10.244.1.3, ready) whose Endpoints are stored. */
    private void webWithTwoReadyPods() {
        handle(api.created(PODS, pod("web-1", "10.244.1.2", true).build()));
        handle(api.created(PODS, pod("web-2", "10.244.1.3", true).build()));
        answer(request(api.created(SERVICES, web().build())));
    }

    // --- syncService ---

    @Test
    void aNewServiceGetsEndpointsListingItsReadyPods() {
        handle(api.created(PODS, pod("web-2", "10.244.1.3", true).build()));
        handle(api.created(PODS, pod("web-1", "10.244.1.2", true).build()));

        Event service = api.created(SERVICES, web().build());
        Event create = request(service);

        assertEquals(EventTypes.CREATION_REQUESTED, create.type());
        assertEquals("/controller/endpoint", create.source());
        assertEquals("namespaces/default/endpoints/web", create.subject());
        assertEquals(service.id(), create.causationId());
        assertEquals(service.correlationId(), create.correlationId());
        assertEquals("endpoints", create.data(CreationRequest.class).resource());
        JsonNode object = written(create);
        assertEquals("Endpoints", object.path("kind").asText());
        assertEquals("web", object.path("metadata").path("name").asText());
        assertEquals(
                "{\"endpoints.kubernetes.io/managed-by\":\"endpoint-controller\",\"tier\":\"front\"}",
                object.path("metadata").path("labels").toString(),
                "the service's labels and the controller's");
        assertEquals(
                "2026-11-29T10:00:00Z",
                object.path("metadata")
                        .path("annotations")
                        .path("endpoints.kubernetes.io/last-change-trigger-time")
                        .asText());
        assertEquals(List.of("10.244.1.2,10.244.1.3 |  | http:8080/TCP"), subsets(create), "sorted by IP");
        assertEquals(
                "{\"ip\":\"10.244.1.2\",\"nodeName\":\"node-1\",\"targetRef\":{\"kind\":\"Pod\",\"namespace\":\"default\",\"name\":\"web-1\",\"uid\":\"uid-web-1\"}}",
                object.path("subsets").get(0).path("addresses").get(0).toString());
        assertFalse(object.path("subsets").get(0).has("notReadyAddresses"), "an empty list is left out");
    }

    @Test
    void aServiceWithoutPodsGetsEmptyEndpoints() {
        Event create = request(api.created(SERVICES, web().build()));

        assertEquals("[]", written(create).path("subsets").toString());
    }

    @Test
    void notReadyPodsAreListedAsNotReadyAddresses() {
        handle(api.created(PODS, pod("web-1", "10.244.1.2", true).build()));
        handle(api.created(PODS, pod("web-2", "10.244.1.3", false).build()));

        assertEquals(
                List.of("10.244.1.2 | 10.244.1.3 | http:8080/TCP"),
                subsets(request(api.created(SERVICES, web().build()))));
    }

    @Test
    void aPodThatBecomesReadyMovesToTheReadyAddresses() {
        handle(api.created(PODS, pod("web-1", "10.244.1.2", false).build()));
        answer(request(api.created(SERVICES, web().build())));

        Event ready = api.statusUpdated(pod("web-1", "10.244.1.2", true).build());
        Event patch = request(ready);

        assertEquals(EventTypes.PATCH_REQUESTED, patch.type());
        PatchRequest data = patch.data(PatchRequest.class);
        assertEquals(PatchRequest.MERGE, data.patchType());
        assertEquals("web", data.name());
        assertEquals(List.of("10.244.1.2 |  | http:8080/TCP"), subsets(patch));
        assertEquals(ready.id(), patch.causationId());
        answer(patch);
        assertEquals(
                Effects.NONE,
                handle(api.statusUpdated(pod("web-1", "10.244.1.2", true).build())),
                "nothing new");
    }

    @Test
    void aRunningPodThatTurnsUnreadyMovesToTheNotReadyAddressesInTheFlowOfItsStatus() {
        // A readiness probe that fails (a process that stops accepting on SIGTERM): the kubelet writes Ready False,
        // and upstream's endpoints controller lists the pod under notReadyAddresses (podToEndpointAddressForService).
        webWithTwoReadyPods();

        Event unready = api.statusUpdated(pod("web-1", "10.244.1.2", false).build());
        Event patch = request(unready);

        assertEquals(List.of("10.244.1.3 | 10.244.1.2 | http:8080/TCP"), subsets(patch));
        assertEquals(unready.id(), patch.causationId());
        assertEquals(unready.correlationId(), patch.correlationId());
    }

    @Test
    void aPodMarkedTerminatingLeavesTheEndpointsAtOnceInTheFlowOfItsDeletion() {
        webWithTwoReadyPods();
        Event deletion = Event.request(
                "kubectl-delete-web-1",
                "/apiserver",
                EventTypes.DELETION_REQUESTED,
                "namespaces/default/pods/web-1",
                T0,
                null,
                new DeletionRequest("pods", "default", "web-1", null));
        Event markedTerminating = api.answer(
                deletion, EventTypes.OBJECT_MARKED_TERMINATING, PODS, terminating(pod("web-1", "10.244.1.2", true)));

        Event patch = request(markedTerminating);

        assertEquals(
                List.of("10.244.1.3 |  | http:8080/TCP"),
                subsets(patch),
                "gone, though still Ready, and not listed as not ready");
        assertEquals(markedTerminating.id(), patch.causationId());
        assertEquals("kubectl-delete-web-1", patch.correlationId());
        Event endpointsChanged = applied(patch);
        assertEquals(EventTypes.OBJECT_UPDATED, endpointsChanged.type());
        assertEquals(
                "kubectl-delete-web-1", endpointsChanged.correlationId(), "the moment traffic stops, in the same flow");
        assertEquals(Effects.NONE, handle(endpointsChanged));
    }

    @Test
    void theFinalDeletesGraceZeroThenTheRemovalOfAPodAlreadyOutChangeNothing() {
        webWithTwoReadyPods();
        answer(request(api.markedTerminating(PODS, terminating(pod("web-1", "10.244.1.2", true)))));

        // store.go: the kubelet's final delete writes grace 0 (watch MODIFIED), then deletes the pod (DELETED).
        Pod atGraceZero = new PodBuilder(terminating(pod("web-1", "10.244.1.2", true)))
                .editMetadata()
                .withDeletionGracePeriodSeconds(0L)
                .endMetadata()
                .build();
        assertEquals(Effects.NONE, handle(api.markedTerminating(PODS, atGraceZero)));
        assertEquals(Effects.NONE, handle(api.removed(PODS, atGraceZero)));
    }

    @Test
    void podsMarkedTerminatingBackToBackEachGetAPatchOfTheirOwn() {
        webWithTwoReadyPods();
        Event first = api.markedTerminating(PODS, terminating(pod("web-1", "10.244.1.2", true)));
        Event second = api.markedTerminating(PODS, terminating(pod("web-2", "10.244.1.3", true)));

        Event firstPatch = request(first);
        Event secondPatch = request(second);

        assertEquals(first.id(), firstPatch.causationId());
        assertEquals(second.id(), secondPatch.causationId(), "not held back until the first patch is answered");
        assertEquals(List.of(), subsets(secondPatch));
        assertEquals("[]", written(secondPatch).path("subsets").toString(), "a merge patch must say the list is empty");
        answer(firstPatch);
        answer(secondPatch);
    }

    @Test
    void aTerminatingPodIsKeptWhenTheServicePublishesNotReadyAddresses() {
        handle(api.created(PODS, pod("web-1", "10.244.1.2", false).build()));
        Event create = request(api.created(
                SERVICES,
                web().editSpec().withPublishNotReadyAddresses(true).endSpec().build()));
        assertEquals(List.of("10.244.1.2 |  | http:8080/TCP"), subsets(create), "not ready, yet published as ready");
        answer(create);

        assertEquals(Effects.NONE, handle(api.markedTerminating(PODS, terminating(pod("web-1", "10.244.1.2", false)))));
    }

    @Test
    void podsWithoutAnIpFinishedOrOutsideTheSelectorAreLeftOut() {
        handle(api.created(PODS, pod("web-1", "10.244.1.2", true).build()));
        handle(api.created(
                PODS,
                new PodBuilder(aPod("pending").build())
                        .editMetadata()
                        .addToLabels("app", "web")
                        .endMetadata()
                        .build()));
        handle(api.created(
                PODS,
                pod("done", "10.244.1.4", false)
                        .editStatus()
                        .withPhase("Succeeded")
                        .endStatus()
                        .build()));
        handle(api.created(
                PODS,
                pod("other", "10.244.1.5", true)
                        .editMetadata()
                        .addToLabels("app", "db")
                        .endMetadata()
                        .build()));
        handle(api.created(
                PODS,
                pod("elsewhere", "10.244.1.6", true)
                        .editMetadata()
                        .withNamespace("team-a")
                        .endMetadata()
                        .build()));

        assertEquals(List.of("10.244.1.2 |  | http:8080/TCP"), subsets(request(api.created(SERVICES, web().build()))));
    }

    @Test
    void aPodGettingItsIpJoinsAndAFinishedPodLeaves() {
        handle(api.created(
                PODS,
                new PodBuilder(aPod("web-1").onNode("node-1").build())
                        .editMetadata()
                        .addToLabels("app", "web")
                        .endMetadata()
                        .build()));
        answer(request(api.created(SERVICES, web().build())));

        Event started =
                request(api.statusUpdated(pod("web-1", "10.244.1.2", true).build()));
        assertEquals(List.of("10.244.1.2 |  | http:8080/TCP"), subsets(started));
        answer(started);

        Event finished = request(api.statusUpdated(pod("web-1", "10.244.1.2", false)
                .editStatus()
                .withPhase("Failed")
                .endStatus()
                .build()));
        assertEquals(List.of(), subsets(finished));
    }

    @Test
    void aPodRelabelledOutOfTheSelectorLeavesAndARemovedPodToo() {
        webWithTwoReadyPods();

        Event relabelled = request(api.updated(
                PODS,
                pod("web-1", "10.244.1.2", true)
                        .editMetadata()
                        .addToLabels("app", "canary")
                        .endMetadata()
                        .build()));
        assertEquals(List.of("10.244.1.3 |  | http:8080/TCP"), subsets(relabelled));
        answer(relabelled);

        assertEquals(
                List.of(),
                subsets(request(
                        api.removed(PODS, pod("web-2", "10.244.1.3", true).build()))));
    }

    @Test
    void aNamedTargetPortIsTheContainerPortOfThatNameAndProtocol() {
        handle(api.created(
                PODS,
                pod("web-1", "10.244.1.2", true)
                        .editSpec()
                        .editFirstContainer()
                        .addNewPort()
                        .withName("web")
                        .withContainerPort(8080)
                        .withProtocol("TCP")
                        .endPort()
                        .endContainer()
                        .endSpec()
                        .build()));
        handle(api.created(
                PODS,
                pod("web-2", "10.244.1.3", true)
                        .editSpec()
                        .editFirstContainer()
                        .addNewPort()
                        .withName("web")
                        .withContainerPort(9090)
                        .endPort()
                        .endContainer()
                        .endSpec()
                        .build()));
        handle(api.created(
                PODS,
                pod("web-3", "10.244.1.4", true)
                        .editSpec()
                        .editFirstContainer()
                        .addNewPort()
                        .withName("web")
                        .withContainerPort(7070)
                        .withProtocol("UDP")
                        .endPort()
                        .endContainer()
                        .endSpec()
                        .build()));
        Service named = web().editSpec()
                .editFirstPort()
                .withTargetPort(new IntOrString("web"))
                .endPort()
                .addNewPort()
                .withName("metrics")
                .withPort(9100)
                .withProtocol("TCP")
                .withTargetPort(new IntOrString(9100))
                .endPort()
                .endSpec()
                .build();

        Event create = request(api.created(SERVICES, named));

        assertEquals(
                List.of(
                        "10.244.1.2 |  | http:8080/TCP",
                        "10.244.1.2,10.244.1.3,10.244.1.4 |  | metrics:9100/TCP",
                        "10.244.1.3 |  | http:9090/TCP"),
                subsets(create),
                "each pod's own port (a port without protocol is TCP), a pod without it only the other; one subset per set of addresses");
    }

    @Test
    void aHeadlessServiceIsLabelledAndWithoutPortsListsItsPodsWithNoPort() {
        handle(api.created(PODS, pod("web-1", "10.244.1.2", true).build()));

        Event create = request(api.created(
                SERVICES,
                web().editSpec()
                        .withClusterIP("None")
                        .withPorts(List.of())
                        .endSpec()
                        .build()));

        assertEquals(List.of("10.244.1.2 |  | "), subsets(create));
        assertEquals(
                "",
                written(create)
                        .path("metadata")
                        .path("labels")
                        .path("service.kubernetes.io/headless")
                        .asText(null));
    }

    @Test
    void servicesWithoutSelectorOrOfTypeExternalNameGetNoEndpoints() {
        handle(api.created(PODS, pod("web-1", "10.244.1.2", true).build()));

        assertEquals(
                Effects.NONE,
                handle(api.created(
                        SERVICES,
                        web().editSpec().withSelector(Map.of()).endSpec().build())));
        assertEquals(
                Effects.NONE,
                handle(api.created(
                        SERVICES,
                        web().editMetadata()
                                .withName("ext")
                                .endMetadata()
                                .editSpec()
                                .withType("ExternalName")
                                .withExternalName("example.com")
                                .endSpec()
                                .build())));
        assertEquals(
                Effects.NONE,
                handle(api.statusUpdated(pod("web-1", "10.244.1.2", false).build())));
    }

    @Test
    void aChangeOfTheServicesLabelsIsWrittenAndDroppedLabelsRemoved() {
        webWithTwoReadyPods();

        Event patch = request(api.updated(
                SERVICES,
                web().editMetadata()
                        .withLabels(Map.of("tier", "back", "team", "a"))
                        .endMetadata()
                        .build()));

        assertEquals(
                "{\"endpoints.kubernetes.io/managed-by\":\"endpoint-controller\",\"team\":\"a\",\"tier\":\"back\"}",
                written(patch).path("metadata").path("labels").toString());
        answer(patch);
        Event dropped = request(api.updated(
                SERVICES,
                web().editMetadata().withLabels(Map.of()).endMetadata().build()));
        assertEquals(
                "{\"endpoints.kubernetes.io/managed-by\":\"endpoint-controller\",\"team\":null,\"tier\":null}",
                written(dropped).path("metadata").path("labels").toString());
        answer(dropped);
        assertEquals(
                Map.of(EndpointsController.LABEL_MANAGED_BY, EndpointsController.CONTROLLER_NAME),
                state.endpoints("default", "web").orElseThrow().content().labels());
    }

    @Test
    void theTriggerTimeIsTheTimeOfTheChangeInRfc3339Nano() {
        webWithTwoReadyPods();

        Event patch = request(api.at(Instant.parse("2026-11-29T10:00:07.250Z"))
                .markedTerminating(PODS, terminating(pod("web-1", "10.244.1.2", true))));

        assertEquals(
                "2026-11-29T10:00:07.25Z",
                written(patch)
                        .path("metadata")
                        .path("annotations")
                        .path("endpoints.kubernetes.io/last-change-trigger-time")
                        .asText());
    }

    @Test
    void aRemovedServiceHasItsEndpointsDeleted() {
        webWithTwoReadyPods();

        Event removed = api.removed(SERVICES, web().build());
        Event delete = request(removed);

        assertEquals(EventTypes.DELETION_REQUESTED, delete.type());
        assertEquals(new DeletionRequest("endpoints", "default", "web", null), delete.data(DeletionRequest.class));
        assertEquals(removed.correlationId(), delete.correlationId());
        answer(delete);
        assertTrue(state.endpoints("default", "web").isEmpty());
        assertEquals(
                Effects.NONE,
                handle(api.statusUpdated(pod("web-1", "10.244.1.2", false).build())),
                "no service selects it now");
    }

    @Test
    void endpointsRemovedBySomeoneElseAreCreatedAgain() {
        webWithTwoReadyPods();

        Event create = request(api.removed(ENDPOINTS, Json.convert(stored.remove("web"), Endpoints.class)));

        assertEquals(EventTypes.CREATION_REQUESTED, create.type());
        assertEquals(List.of("10.244.1.2,10.244.1.3 |  | http:8080/TCP"), subsets(create));
    }

    // --- requests in flight, duplicates, replay ---

    @Test
    void noRequestIsRepeatedWhileOneIsInFlight() {
        handle(api.created(PODS, pod("web-1", "10.244.1.2", true).build()));
        Pod pending = new PodBuilder(aPod("web-2").build())
                .editMetadata()
                .addToLabels("app", "web")
                .endMetadata()
                .build();
        handle(api.created(PODS, pending));
        Event create = request(api.created(SERVICES, web().build()));

        assertEquals(
                Effects.NONE, handle(api.bound(pending, "node-1")), "a selected pod changed, the Endpoints did not");
        assertEquals(
                Effects.NONE,
                handle(api.updated(
                        PODS,
                        pod("web-1", "10.244.1.2", true)
                                .editMetadata()
                                .addToAnnotations("note", "irrelevant")
                                .endMetadata()
                                .build())),
                "nothing that matters changed");
        assertEquals(1, state.inFlight("default", "web").size());
        answer(create);
        assertTrue(state.inFlight("default", "web").isEmpty());

        Event patch =
                request(api.statusUpdated(pod("web-1", "10.244.1.2", false).build()));
        assertEquals(
                Effects.NONE,
                handle(api.statusUpdated(new PodBuilder(pending)
                        .editSpec()
                        .withNodeName("node-1")
                        .endSpec()
                        .withNewStatus()
                        .withPhase("Pending")
                        .endStatus()
                        .build())),
                "the patch in flight already says it");
        answer(patch);
    }

    @Test
    void aDuplicateOrStaleFactEmitsNothing() {
        Event created = api.created(PODS, pod("web-1", "10.244.1.2", false).build());
        handle(created);
        Event createEndpoints = request(api.created(SERVICES, web().build()));
        Event endpointsCreated = applied(createEndpoints);
        handle(endpointsCreated);
        Event ready = api.statusUpdated(pod("web-1", "10.244.1.2", true).build());
        answer(request(ready));

        assertEquals(Effects.NONE, handle(ready), "duplicate");
        assertEquals(Effects.NONE, handle(created), "stale: the pod not ready");
        assertEquals(Effects.NONE, handle(endpointsCreated), "stale answer");
        assertTrue(state.inFlight("default", "web").isEmpty());
    }

    @Test
    void aRemovedPodRedeliveredDoesNotComeBack() {
        handle(api.created(PODS, pod("web-1", "10.244.1.2", true).build()));
        Event ready = api.statusUpdated(pod("web-1", "10.244.1.2", true).build());
        handle(ready);
        answer(request(api.created(SERVICES, web().build())));
        answer(request(api.removed(PODS, pod("web-1", "10.244.1.2", true).build())));

        assertEquals(Effects.NONE, handle(ready));
    }

    @Test
    void replayingTheSameFactsGivesTheSameRequests() {
        List<Event> facts = new ArrayList<>();
        List<Event> requests = new ArrayList<>();
        for (Supplier<Event> next : List.<Supplier<Event>>of(
                () -> api.created(PODS, pod("web-1", "10.244.1.2", false).build()),
                () -> api.created(SERVICES, web().build()),
                () -> api.statusUpdated(pod("web-1", "10.244.1.2", true).build()),
                () -> api.markedTerminating(PODS, terminating(pod("web-1", "10.244.1.2", true))),
                () -> api.removed(SERVICES, web().build()))) {
            Event fact = next.get();
            facts.add(fact);
            for (Event request : handle(fact).events()) {
                requests.add(request);
                Event answer = applied(request);
                facts.add(answer);
                assertEquals(Effects.NONE, handle(answer));
            }
        }
        assertEquals(4, requests.size());

        EndpointsControllerState replayed = controller.newState();
        List<Event> again = facts.stream()
                .flatMap(f -> controller.handle(replayed, f, T0).events().stream())
                .toList();

        assertEquals(requests, again);
    }

    @Test
    void aCreateRefusedBecauseSomeoneElseCreatedTheEndpointsBecomesAPatchAtOnce() {
        handle(api.created(PODS, pod("web-1", "10.244.1.2", true).build()));
        Event create = request(api.created(SERVICES, web().build()));
        Endpoints theirs = new EndpointsBuilder()
                .withNewMetadata()
                .withName("web")
                .withNamespace("default")
                .endMetadata()
                .build();
        assertEquals(Effects.NONE, handle(api.created(ENDPOINTS, theirs)), "a create is in flight");
        stored.put("web", Json.tree(theirs));

        Event rejection = api.rejected(create, 409, "AlreadyExists", "endpoints \"web\" already exists");
        Event patch = request(rejection);

        assertEquals(EventTypes.PATCH_REQUESTED, patch.type());
        assertEquals(List.of("10.244.1.2 |  | http:8080/TCP"), subsets(patch));
        assertEquals(rejection.id(), patch.causationId());
        assertEquals(Effects.NONE, handle(rejection), "duplicate rejection");
        answer(patch);
    }

    @Test
    void aRequestRefusedAsInvalidIsNotRetriedUntilTheNextChange() {
        handle(api.created(PODS, pod("web-1", "10.244.1.2", true).build()));
        Event create = request(api.created(SERVICES, web().build()));

        assertEquals(Effects.NONE, handle(api.rejected(create, 422, "Invalid", "Endpoints \"web\" is invalid")));
        assertTrue(state.inFlight("default", "web").isEmpty());

        Event retry =
                request(api.statusUpdated(pod("web-1", "10.244.1.2", false).build()));
        assertEquals(EventTypes.CREATION_REQUESTED, retry.type());
        assertEquals(List.of(" | 10.244.1.2 | http:8080/TCP"), subsets(retry));
    }

    @Test
    void aPatchRefusedBecauseTheEndpointsWereDeletedBecomesACreate() {
        webWithTwoReadyPods();
        Event patch = request(api.markedTerminating(PODS, terminating(pod("web-1", "10.244.1.2", true))));
        assertEquals(
                Effects.NONE,
                handle(api.removed(ENDPOINTS, Json.convert(stored.remove("web"), Endpoints.class))),
                "the patch in flight already says what they must hold");

        Event create = request(api.rejected(patch, 404, "NotFound", "endpoints \"web\" not found"));

        assertEquals(EventTypes.CREATION_REQUESTED, create.type());
        assertEquals(List.of("10.244.1.3 |  | http:8080/TCP"), subsets(create));
    }

    @Test
    void aRejectionOfSomeoneElsesRequestChangesNothing() {
        Event unrelated = Event.request(
                "other",
                "/apiserver",
                EventTypes.DELETION_REQUESTED,
                "namespaces/default/pods/x",
                T0,
                null,
                new DeletionRequest("pods", "default", "x", null));

        assertEquals(Effects.NONE, handle(api.rejected(unrelated, 404, "NotFound", "pods \"x\" not found")));
    }

    @Test
    void aPodIsListedByTheIpOfTheServicesFamily() {
        handle(api.created(
                PODS,
                pod("web-1", "10.244.1.2", true)
                        .editStatus()
                        .withPodIPs(new PodIP("10.244.1.2"), new PodIP("fd00::2"))
                        .endStatus()
                        .build()));

        assertEquals(
                List.of("fd00::2 |  | http:8080/TCP"),
                subsets(request(api.created(
                        SERVICES,
                        web().editSpec().withIpFamilies("IPv6").endSpec().build()))));
    }

    @Test
    void resourceTypesItDoesNotWatchAreIgnored() {
        assertEquals(
                Effects.NONE,
                handle(api.created(
                        ResourceType.NAMESPACES,
                        new NamespaceBuilder()
                                .withNewMetadata()
                                .withName("team-a")
                                .endMetadata()
                                .build())));
    }
}
