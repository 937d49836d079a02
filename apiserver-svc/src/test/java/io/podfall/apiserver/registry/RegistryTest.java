package io.podfall.apiserver.registry;

import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.podfall.model.Json;
import io.podfall.model.apiserver.BindingRequest;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.RequestRejection;
import io.podfall.model.apiserver.StatusUpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Ids;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.MetaTimes;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class RegistryTest extends RegistryFixture {

    // --- create ---

    @Test
    void createdPodGetsUidResourceVersionCreationTimestampAndDefaults() {
        Effects effects = create(aPod("web-1").inPhase("Running").build());

        assertEquals(List.of(EventTypes.OBJECT_CREATED), types(effects));
        Event fact = effects.events().get(0);
        assertEquals(Registry.SOURCE, fact.source());
        assertEquals("namespaces/default/pods/web-1", fact.subject());
        Pod pod = fact.data(ObjectChange.class).object(Pod.class);
        assertEquals(Ids.derived("uid", lastRequest.id()), pod.getMetadata().getUid());
        assertEquals(rv(1), pod.getMetadata().getResourceVersion());
        assertEquals("2025-03-01T10:00:00Z", pod.getMetadata().getCreationTimestamp());
        assertEquals(30L, pod.getSpec().getTerminationGracePeriodSeconds());
        assertEquals("Always", pod.getSpec().getRestartPolicy());
        assertEquals("ClusterFirst", pod.getSpec().getDnsPolicy());
        assertEquals("default-scheduler", pod.getSpec().getSchedulerName());
        assertEquals("IfNotPresent", pod.getSpec().getContainers().get(0).getImagePullPolicy());
        assertEquals("Pending", pod.getStatus().getPhase(), "a client's status is replaced on create");
        assertEquals(Json.tree(pod), Json.tree(stored("web-1")));
    }

    @Test
    void creationTimestampIsInWholeSecondsLikeMetav1Time() {
        Effects effects = handle(creation(aPod("web-1").build(), "default"), T0.plusMillis(1700));

        assertEquals("2025-03-01T10:00:01Z", pod(effects, 0).getMetadata().getCreationTimestamp());
    }

    @Test
    void storedTimesAreTheRequestsTimeOnTheLogNotWhenItIsReadSoARebuildStoresTheSame() {
        Event created = creation(aPod("web-1").build(), "default");
        Effects live = registry.handle(state, created, T0.plusMillis(1700));
        assertEquals("2025-03-01T10:00:00Z", pod(live, 0).getMetadata().getCreationTimestamp(), "the request's T0");
        assertEquals(T0.plusMillis(1700), live.events().get(0).time(), "the fact: when it was written");
    }

    @Test
    void anObjectUnwrittenForHalfAMinuteIsHeldCompressedAndReadsBackTheSame() {
        create(aPod("web-1").onNode("node-1").inPhase("Running").build());
        Pod written = stored("web-1");
        int namespaces = SystemNamespaces.NAMES.size();

        handle(
                creation(aPod("web-2").build(), "default"),
                T0.plus(RegistryState.AT_REST).minusSeconds(1));
        assertEquals(0, state.compressed(), "nothing rested half a minute yet");

        handle(creation(aPod("web-3").build(), "default"), T0.plus(RegistryState.AT_REST));
        assertEquals(namespaces + 1, state.compressed(), "the namespaces and web-1, written at T0");
        assertEquals(Json.tree(written), Json.tree(stored("web-1")), "read back as it was written");

        Effects marked =
                delete("web-1", grace(30), T0.plus(RegistryState.AT_REST).plusSeconds(1));
        assertEquals(
                List.of(EventTypes.OBJECT_MARKED_TERMINATING),
                types(marked),
                "its change read from the compressed JSON");
        assertEquals(namespaces, state.compressed(), "written again, web-1 is held plain until it rests");
        assertEquals(pod(marked, 0), stored("web-1"));
    }

    @Test
    void aBodyWithoutKindAndApiVersionIsStoredAsThePodOfTheUrl() {
        ObjectNode body = (ObjectNode) Json.tree(aPod("py").build());
        body.remove("kind");
        body.remove("apiVersion");
        Effects effects = handle(
                request(
                        EventTypes.CREATION_REQUESTED,
                        "namespaces/default/pods/py",
                        new CreationRequest("pods", "default", body)),
                T0);

        JsonNode object = effects.events().get(0).data(ObjectChange.class).object();
        assertEquals("Pod", object.path("kind").asText());
        assertEquals("v1", object.path("apiVersion").asText());
    }

    @Test
    void everyWriteTakesTheNextResourceVersionOfOneGlobalCounter() {
        createNamespace("other");
        create(aPod("a").build());
        create(aPod("b").inNamespace("other").build());
        Effects node = createNode("node-1");

        assertEquals(
                rv(4),
                node.events()
                        .get(0)
                        .data(ObjectChange.class)
                        .object()
                        .path("metadata")
                        .path("resourceVersion")
                        .asText());
        assertEquals(4, writes());
    }

    @Test
    void aNameThatIsNoDns1123SubdomainIsInvalidWithItsCause() {
        Status status = rejection(create(aPod("Web_1").build()));

        assertEquals(422, status.getCode());
        assertEquals("Invalid", status.getReason());
        assertEquals(
                "Pod \"Web_1\" is invalid: metadata.name: Invalid value: \"Web_1\": a lowercase RFC 1123 subdomain must "
                        + "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
                        + "character (e.g. 'example.com', regex used for validation is "
                        + "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                status.getMessage());
        assertEquals("metadata.name", status.getDetails().getCauses().get(0).getField());
        assertEquals("FieldValueInvalid", status.getDetails().getCauses().get(0).getReason());
        assertEquals("Pod", status.getDetails().getKind());
        assertEquals(0, objects());
    }

    @Test
    void aNameLongerThan253CharactersIsInvalid() {
        Status status = rejection(create(aPod("a".repeat(254)).build()));

        assertTrue(status.getMessage().contains("must be no more than 253 characters"), status.getMessage());
    }

    @Test
    void aPodWithoutNameIsInvalid() {
        Pod pod = aPod("x").build();
        pod.getMetadata().setName(null);

        Status status = rejection(create(pod));

        assertEquals(422, status.getCode());
        assertEquals(
                "Pod \"\" is invalid: metadata.name: Required value: name or generateName is required",
                status.getMessage());
    }

    @Test
    void generateNameGivesANameDerivedFromTheRequest() {
        Pod pod = aPod("x").build();
        pod.getMetadata().setName(null);
        pod.getMetadata().setGenerateName("web-");

        String name = pod(create(pod), 0).getMetadata().getName();

        assertTrue(name.matches("web-[bcdfghjklmnpqrstvwxz2456789]{5}"), name);
        assertEquals(Names.generate("web-", lastRequest.id()), name);
    }

    @Test
    void aGeneratedNameAlreadyTakenIsGeneratedAgain() {
        // The next request is the test's third: its first two attempts give names already taken.
        create(aPod(Names.generate("web-", "request-3")).build());
        create(aPod(Names.generate("web-", "request-3", 1)).build());
        Pod pod = aPod("x").build();
        pod.getMetadata().setName(null);
        pod.getMetadata().setGenerateName("web-");

        Effects created = create(pod);

        assertEquals("request-3", lastRequest.id());
        assertEquals(List.of(EventTypes.OBJECT_CREATED), types(created));
        assertEquals(
                Names.generate("web-", "request-3", 2),
                pod(created, 0).getMetadata().getName());
    }

    @Test
    void aGeneratedNameTakenAtEveryAttemptIsAlreadyExists() {
        for (int attempt = 0; attempt < Store.GENERATE_NAME_ATTEMPTS; attempt++) {
            create(aPod(Names.generate("web-", "request-9", attempt)).build());
        }
        Pod pod = aPod("x").build();
        pod.getMetadata().setName(null);
        pod.getMetadata().setGenerateName("web-");

        Status status = rejection(create(pod));

        assertEquals("request-9", lastRequest.id());
        assertEquals(409, status.getCode());
        assertEquals("AlreadyExists", status.getReason());
        assertEquals(Store.GENERATE_NAME_ATTEMPTS, objects());
    }

    @Test
    void aPodWithoutContainersIsInvalid() {
        Pod pod = aPod("web-1").build();
        pod.getSpec().setContainers(List.of());

        Status status = rejection(create(pod));

        assertEquals(422, status.getCode());
        assertEquals("Pod \"web-1\" is invalid: spec.containers: Required value", status.getMessage());
    }

    @Test
    void severalFieldErrorsAreListedTogether() {
        Pod pod = aPod("web-1").build();
        pod.getSpec().getContainers().get(0).setImage(null);
        pod.getSpec().getContainers().get(0).setName(null);

        assertEquals(
                "Pod \"web-1\" is invalid: [spec.containers[0].name: Required value, spec.containers[0].image: Required value]",
                rejection(create(pod)).getMessage());
    }

    @Test
    void anObjectOfAnotherNamespaceThanTheUrlIsABadRequest() {
        Effects effects = handle(creation(aPod("web-1").inNamespace("prod").build(), "default"), T0);

        Status status = rejection(effects);
        assertEquals(400, status.getCode());
        assertEquals("BadRequest", status.getReason());
        assertEquals(
                "the namespace of the provided object does not match the namespace sent on the request",
                status.getMessage());
    }

    @Test
    void anObjectOfAnotherKindIsABadRequest() {
        Effects effects = handle(
                request(
                        EventTypes.CREATION_REQUESTED,
                        "namespaces/default/pods/n",
                        new CreationRequest(
                                "pods",
                                "default",
                                Json.tree(new NodeBuilder()
                                        .withNewMetadata()
                                        .withName("n")
                                        .endMetadata()
                                        .build()))),
                T0);

        assertEquals(400, rejection(effects).getCode());
    }

    @Test
    void creatingAnExistingNameIsAlreadyExistsAndKeepsTheStoredObject() {
        create(aPod("web-1").build());
        Pod before = stored("web-1");

        Status status = rejection(create(aPod("web-1").withGrace(5).build()));

        assertEquals(409, status.getCode());
        assertEquals("AlreadyExists", status.getReason());
        assertEquals("pods \"web-1\" already exists", status.getMessage());
        assertEquals("pods", status.getDetails().getKind());
        assertEquals("", status.getDetails().getGroup());
        assertEquals("web-1", status.getDetails().getName());
        assertEquals(before, stored("web-1"), "the stored pod is unchanged");
        assertEquals(1, writes(), "a rejection is no write");
    }

    @Test
    void aRejectionIsOneEventWithTheRequestsSubjectAndAKubernetesStatus() {
        Effects effects = create(aPod("Bad").build());

        assertEquals(List.of(EventTypes.REQUEST_REJECTED), types(effects));
        Event rejected = effects.events().get(0);
        assertEquals(Registry.SOURCE, rejected.source());
        assertEquals(lastRequest.subject(), rejected.subject());
        assertEquals(lastRequest.id(), rejected.causationId());
        Status status = rejected.data(RequestRejection.class).status();
        assertEquals("Status", status.getKind());
        assertEquals("v1", status.getApiVersion());
        assertEquals("Failure", status.getStatus());
    }

    @Test
    void aNodeFromAKubeletIsStoredClusterScoped() {
        Effects effects = createNode("node-1");

        Event fact = effects.events().get(0);
        assertEquals("nodes/node-1", fact.subject());
        Node node = fact.data(ObjectChange.class).object(Node.class);
        assertNull(node.getMetadata().getNamespace());
        assertTrue(state.get(ResourceType.NODES, "", "node-1").isPresent());
    }

    @Test
    void aRequestSeenAgainOnTheLogChangesNothing() {
        Event creation = creation(aPod("web-1").build(), "default");
        handle(creation, T0);

        assertSame(Effects.NONE, handle(creation, T0.plusSeconds(1)));
        assertEquals(1, writes());
    }

    @Test
    void eventsThatAreNoRequestsAreIgnored() {
        create(aPod("web-1").build());
        Event fact = Event.request(
                "x",
                Registry.SOURCE,
                EventTypes.OBJECT_CREATED,
                "namespaces/default/pods/web-2",
                T0,
                null,
                ObjectChange.of(ResourceType.PODS, aPod("web-2").build()));

        assertSame(Effects.NONE, handle(fact, T0));
        assertEquals(1, objects());
    }

    // --- binding ---

    @Nested
    class Binding {
        @Test
        void bindingSetsTheNodeAndThePodScheduledCondition() {
            String uid = uidOf(create(aPod("web-1").build()));

            Effects effects = bind("web-1", uid, "node-1");

            assertEquals(List.of(EventTypes.POD_BOUND), types(effects));
            Pod pod = pod(effects, 0);
            assertEquals("node-1", pod.getSpec().getNodeName());
            assertEquals(rv(2), pod.getMetadata().getResourceVersion());
            assertEquals(
                    "True",
                    pod.getStatus().getConditions().stream()
                            .filter(c -> c.getType().equals("PodScheduled"))
                            .findFirst()
                            .orElseThrow()
                            .getStatus());
            assertEquals("node-1", stored("web-1").getSpec().getNodeName());
        }

        @Test
        void bindingAPodThatDoesNotExistIsNotFound() {
            Status status = rejection(bind("ghost", null, "node-1"));

            assertEquals(404, status.getCode());
            assertEquals("pods \"ghost\" not found", status.getMessage());
        }

        @Test
        void bindingWithAnotherUidIsAConflict() {
            create(aPod("web-1").build());

            Status status = rejection(bind("web-1", "other-uid", "node-1"));

            assertEquals(409, status.getCode());
            assertEquals("Conflict", status.getReason());
            assertTrue(
                    status.getMessage()
                            .startsWith(
                                    "Operation cannot be fulfilled on pods \"web-1\": Precondition failed: UID in precondition: other-uid"),
                    status.getMessage());
        }

        @Test
        void bindingABoundPodIsAConflict() {
            String uid = uidOf(create(aPod("web-1").build()));
            bind("web-1", uid, "node-1");

            Status status = rejection(bind("web-1", uid, "node-2"));

            assertEquals(409, status.getCode());
            assertEquals(
                    "Operation cannot be fulfilled on pods/binding \"web-1\": pod web-1 is already assigned to node \"node-1\"",
                    status.getMessage());
            assertEquals("node-1", stored("web-1").getSpec().getNodeName());
        }

        @Test
        void bindingAPodBeingDeletedIsAConflict() {
            String uid =
                    uidOf(create(aPod("web-1").withFinalizer("example.com/hold").build()));
            delete("web-1", new DeleteOptions(), T0);

            Status status = rejection(bind("web-1", uid, "node-1"));

            assertEquals(409, status.getCode());
            assertEquals(
                    "Operation cannot be fulfilled on pods/binding \"web-1\": pod web-1 is being deleted, cannot be assigned to a host",
                    status.getMessage());
        }
    }

    // --- status ---

    @Nested
    class StatusUpdate {
        @Test
        void aStatusUpdateReplacesTheStatus() {
            String uid = uidOf(create(aPod("web-1").onNode("node-1").build()));

            Effects effects = updateStatus(
                    "web-1",
                    uid,
                    new PodStatusBuilder()
                            .withPhase("Running")
                            .withPodIP("10.244.1.2")
                            .build());

            assertEquals(List.of(EventTypes.POD_STATUS_UPDATED), types(effects));
            assertEquals("Running", stored("web-1").getStatus().getPhase());
            assertEquals("10.244.1.2", stored("web-1").getStatus().getPodIP());
            assertEquals("node-1", stored("web-1").getSpec().getNodeName(), "the spec is kept");
        }

        @Test
        void aStatusUpdateForAnotherUidIsAConflict() {
            create(aPod("web-1").build());

            assertEquals(
                    409,
                    rejection(updateStatus(
                                    "web-1",
                                    "old-uid",
                                    new PodStatusBuilder().withPhase("Running").build()))
                            .getCode());
            assertEquals("Pending", stored("web-1").getStatus().getPhase());
        }

        @Test
        void aStatusUpdateForAMissingPodIsNotFound() {
            assertEquals(
                    404, rejection(updateStatus("ghost", null, new PodStatus())).getCode());
        }

        @Test
        void aStatusUpdateThatChangesNothingWritesNothing() {
            String uid = uidOf(create(aPod("web-1").build()));

            assertSame(
                    Effects.NONE,
                    updateStatus(
                            "web-1",
                            uid,
                            new PodStatusBuilder().withPhase("Pending").build()));
            assertEquals(1, writes());
        }
    }

    // --- delete ---

    @Nested
    class Delete {
        @Test
        void aScheduledPodIsMarkedTerminatingWithTheSpecsGracePeriod() {
            create(aPod("web-1").onNode("node-1").build());

            Effects effects = delete(
                    "web-1",
                    new DeleteOptionsBuilder()
                            .withPropagationPolicy("Background")
                            .build(),
                    T0.plusSeconds(10));

            assertEquals(List.of(EventTypes.OBJECT_MARKED_TERMINATING), types(effects));
            Pod pod = pod(effects, 0);
            assertEquals("2025-03-01T10:00:40Z", pod.getMetadata().getDeletionTimestamp());
            assertEquals(30L, pod.getMetadata().getDeletionGracePeriodSeconds());
            assertEquals(rv(2), pod.getMetadata().getResourceVersion());
            assertTrue(pod.getMetadata().getFinalizers().isEmpty(), "Background adds no finalizer");
            assertEquals(Json.tree(pod), Json.tree(stored("web-1")));
        }

        @Test
        void theRequestedGracePeriodWinsOverTheSpecs() {
            create(aPod("web-1").onNode("node-1").withGrace(60).build());

            Pod pod = pod(delete("web-1", grace(5), T0), 0);

            assertEquals(5L, pod.getMetadata().getDeletionGracePeriodSeconds());
            assertEquals("2025-03-01T10:00:05Z", pod.getMetadata().getDeletionTimestamp());
        }

        @Test
        void aNegativeGracePeriodIsTreatedAsOneSecond() {
            create(aPod("web-1").onNode("node-1").build());

            Pod pod = pod(delete("web-1", grace(-5), T0), 0);

            assertEquals(1L, pod.getMetadata().getDeletionGracePeriodSeconds());
        }

        /**
         * An absurd grace period is accepted as upstream accepts it: the deadline is now plus an int64 of nanoseconds
         * that wraps (Long.MAX_VALUE seconds is one second before now), not an overflow that fails.
         */
        @Test
        void anAbsurdGracePeriodGivesTheDeadlineGosWrappingArithmeticGives() {
            create(aPod("web-1").onNode("node-1").build());

            Pod pod = pod(delete("web-1", grace(Long.MAX_VALUE), T0), 0);

            assertEquals(Long.MAX_VALUE, pod.getMetadata().getDeletionGracePeriodSeconds());
            assertEquals(MetaTimes.format(T0.minusSeconds(1)), pod.getMetadata().getDeletionTimestamp());
            assertEquals(
                    EventTypes.OBJECT_MARKED_TERMINATING,
                    types(delete("web-1", grace(Long.MIN_VALUE + 1), T0)).get(0),
                    "and a shorter one moves the deadline by the same arithmetic");
        }

        @Test
        void anUnscheduledPodIsMarkedThenRemovedAtOnce() {
            create(aPod("web-1").build());

            Effects effects = delete("web-1", new DeleteOptions(), T0);

            assertEquals(List.of(EventTypes.OBJECT_MARKED_TERMINATING, EventTypes.OBJECT_REMOVED), types(effects));
            assertEquals(0L, pod(effects, 0).getMetadata().getDeletionGracePeriodSeconds());
            assertEquals(rv(2), pod(effects, 0).getMetadata().getResourceVersion());
            assertEquals(rv(3), pod(effects, 1).getMetadata().getResourceVersion(), "the removal is a revision too");
            assertEquals(0, objects());
        }

        @Test
        void aFinishedPodIsRemovedAtOnce() {
            String uid = uidOf(create(aPod("job-1").onNode("node-1").build()));
            updateStatus(
                    "job-1", uid, new PodStatusBuilder().withPhase("Succeeded").build());

            Effects effects = delete("job-1", grace(30), T0);

            assertEquals(List.of(EventTypes.OBJECT_MARKED_TERMINATING, EventTypes.OBJECT_REMOVED), types(effects));
        }

        @Test
        void forceDeletionOfARunningPodIsMarkedThenRemoved() {
            create(aPod("web-1").onNode("node-1").build());

            Effects effects = delete("web-1", grace(0), T0);

            assertEquals(List.of(EventTypes.OBJECT_MARKED_TERMINATING, EventTypes.OBJECT_REMOVED), types(effects));
            assertEquals("2025-03-01T10:00:00Z", pod(effects, 1).getMetadata().getDeletionTimestamp());
            assertEquals(0L, pod(effects, 1).getMetadata().getDeletionGracePeriodSeconds());
        }

        @Test
        void aShorterGracePeriodMovesTheDeadlineEarlierByTheDifference() {
            create(aPod("web-1").onNode("node-1").build());
            delete("web-1", grace(30), T0);

            Effects effects = delete("web-1", grace(10), T0.plusSeconds(5));

            assertEquals(List.of(EventTypes.OBJECT_MARKED_TERMINATING), types(effects));
            assertEquals("2025-03-01T10:00:10Z", pod(effects, 0).getMetadata().getDeletionTimestamp());
            assertEquals(10L, pod(effects, 0).getMetadata().getDeletionGracePeriodSeconds());
        }

        @Test
        void aLongerOrEqualGracePeriodOrNoneWritesNothingAndAnswersThePod() {
            create(aPod("web-1").onNode("node-1").build());
            delete("web-1", grace(10), T0);
            Pod terminating = stored("web-1");

            for (DeleteOptions options : List.of(grace(10), grace(60), new DeleteOptions())) {
                Effects effects = delete("web-1", options, T0.plusSeconds(1));

                assertSame(Effects.NONE, effects);
                assertEquals(terminating, stored("web-1"));
                Outcome outcome = Outcome.of(state, lastRequest, effects).orElseThrow();
                assertEquals(200, outcome.code());
                assertEquals(Json.string(terminating), Json.string(outcome.body()), "the pod as stored");
            }
        }

        @Test
        void pendingDeletionCannotChangeFinalizers() {
            create(aPod("web-1").onNode("node-1").build());
            delete("web-1", grace(30), T0);

            assertSame(
                    Effects.NONE,
                    delete(
                            "web-1",
                            new DeleteOptionsBuilder()
                                    .withPropagationPolicy("Orphan")
                                    .build(),
                            T0));
            assertTrue(stored("web-1").getMetadata().getFinalizers().isEmpty());
        }

        @Test
        void theKubeletsFinalDeleteOfATerminatingPodShortensItsGraceToZeroThenRemovesIt() {
            String uid = uidOf(create(aPod("web-1").onNode("node-1").build()));
            delete("web-1", grace(30), T0);

            Effects effects = handle(
                    request(
                            "/kubelet/node-1",
                            EventTypes.DELETION_REQUESTED,
                            "namespaces/default/pods/web-1",
                            new DeletionRequest(
                                    "pods",
                                    "default",
                                    "web-1",
                                    new DeleteOptionsBuilder()
                                            .withGracePeriodSeconds(0L)
                                            .withNewPreconditions()
                                            .withUid(uid)
                                            .endPreconditions()
                                            .build())),
                    T0.plusSeconds(12));

            // store.go: the update to grace 0 (watch MODIFIED), then the removal of that state (watch DELETED).
            assertEquals(List.of(EventTypes.OBJECT_MARKED_TERMINATING, EventTypes.OBJECT_REMOVED), types(effects));
            Pod shortened = pod(effects, 0);
            assertEquals(
                    "2025-03-01T10:00:00Z",
                    shortened.getMetadata().getDeletionTimestamp(),
                    "the deadline moves earlier by the whole grace period: T0 + 30 s - (30 - 0) s");
            assertEquals(0L, shortened.getMetadata().getDeletionGracePeriodSeconds());
            Pod last = pod(effects, 1);
            assertEquals(
                    Long.parseLong(shortened.getMetadata().getResourceVersion()) + 1,
                    Long.parseLong(last.getMetadata().getResourceVersion()),
                    "the removal is a revision of its own");
            last.getMetadata().setResourceVersion(shortened.getMetadata().getResourceVersion());
            assertEquals(shortened, last, "the last state is the one just written");
            assertEquals(Registry.SOURCE, effects.events().get(0).source());
            assertEquals(Registry.SOURCE, effects.events().get(1).source());
            assertFalse(state.get(ResourceType.PODS, "default", "web-1").isPresent());
        }

        @Test
        void aUidPreconditionThatDoesNotMatchIsAConflict() {
            create(aPod("web-1").onNode("node-1").build());

            Status status = rejection(delete(
                    "web-1",
                    new DeleteOptionsBuilder()
                            .withGracePeriodSeconds(0L)
                            .withNewPreconditions()
                            .withUid("old")
                            .endPreconditions()
                            .build(),
                    T0));

            assertEquals(409, status.getCode());
            assertEquals("Conflict", status.getReason());
            assertEquals(
                    "Operation cannot be fulfilled on Pod \"web-1\": the UID in the precondition (old) does not match the UID in "
                            + "record (" + stored("web-1").getMetadata().getUid()
                            + "). The object might have been deleted and then recreated",
                    status.getMessage());
            assertTrue(state.get(ResourceType.PODS, "default", "web-1").isPresent());
        }

        @Test
        void aResourceVersionPreconditionThatDoesNotMatchIsAConflict() {
            create(aPod("web-1").onNode("node-1").build());

            Status status = rejection(delete(
                    "web-1",
                    new DeleteOptionsBuilder()
                            .withNewPreconditions()
                            .withResourceVersion("99")
                            .endPreconditions()
                            .build(),
                    T0));

            assertEquals(409, status.getCode());
            assertTrue(status.getMessage()
                    .contains(
                            "the ResourceVersion in the precondition (99) does not match the ResourceVersion in record ("
                                    + rv(1) + ")"));
        }

        @Test
        void matchingPreconditionsAllowTheDelete() {
            String uid = uidOf(create(aPod("web-1").onNode("node-1").build()));

            Effects effects = delete(
                    "web-1",
                    new DeleteOptionsBuilder()
                            .withNewPreconditions()
                            .withUid(uid)
                            .withResourceVersion(rv(1))
                            .endPreconditions()
                            .build(),
                    T0);

            assertEquals(List.of(EventTypes.OBJECT_MARKED_TERMINATING), types(effects));
        }

        @Test
        void deletingAMissingPodIsNotFound() {
            Status status = rejection(delete("ghost", new DeleteOptions(), T0));

            assertEquals(404, status.getCode());
            assertEquals("NotFound", status.getReason());
            assertEquals("pods \"ghost\" not found", status.getMessage());
            assertEquals("ghost", status.getDetails().getName());
            assertEquals("pods", status.getDetails().getKind());
        }

        @Test
        void anObjectWithFinalizersIsNeverRemoved() {
            create(aPod("web-1").withFinalizer("example.com/hold").build());

            Effects first = delete("web-1", grace(0), T0);
            Effects again = delete("web-1", grace(0), T0.plusSeconds(3));

            assertEquals(List.of(EventTypes.OBJECT_MARKED_TERMINATING), types(first));
            assertSame(Effects.NONE, again, "grace 0 again on a held object changes nothing");
            Pod held = stored("web-1");
            assertEquals("2025-03-01T10:00:00Z", held.getMetadata().getDeletionTimestamp());
            assertEquals(0L, held.getMetadata().getDeletionGracePeriodSeconds());
        }

        @Test
        void aFinalizerHoldsATerminatingPodAfterItsGracePeriodIsShortenedToZero() {
            create(aPod("web-1")
                    .onNode("node-1")
                    .withFinalizer("example.com/hold")
                    .build());
            delete("web-1", grace(30), T0);

            Effects effects = delete("web-1", grace(0), T0.plusSeconds(5));

            assertEquals(List.of(EventTypes.OBJECT_MARKED_TERMINATING), types(effects));
            assertEquals(0L, stored("web-1").getMetadata().getDeletionGracePeriodSeconds());
            assertEquals("2025-03-01T10:00:00Z", stored("web-1").getMetadata().getDeletionTimestamp());
        }

        @Test
        void propagationPoliciesSetTheGarbageCollectorsFinalizers() {
            create(aPod("orphan").onNode("node-1").build());
            create(aPod("fg").onNode("node-1").build());

            delete(
                    "orphan",
                    new DeleteOptionsBuilder().withPropagationPolicy("Orphan").build(),
                    T0);
            delete(
                    "fg",
                    new DeleteOptionsBuilder()
                            .withPropagationPolicy("Foreground")
                            .build(),
                    T0);

            assertEquals(List.of("orphan"), stored("orphan").getMetadata().getFinalizers());
            assertEquals(
                    List.of("foregroundDeletion"), stored("fg").getMetadata().getFinalizers());
        }

        @Test
        void backgroundRemovesTheGarbageCollectorsFinalizersAndKeepsOthers() {
            DeleteOptions background = new DeleteOptionsBuilder()
                    .withPropagationPolicy("Background")
                    .build();

            assertEquals(
                    List.of("example.com/hold"),
                    Store.deletionFinalizers(List.of("orphan", "example.com/hold"), background));
            assertEquals(
                    List.of("example.com/hold", "orphan"),
                    Store.deletionFinalizers(List.of("example.com/hold", "orphan"), new DeleteOptions()),
                    "without a policy the finalizers already there stay");
        }

        @Test
        void anUnsupportedPropagationPolicyIsInvalid() {
            create(aPod("web-1").onNode("node-1").build());

            Status status = rejection(delete(
                    "web-1",
                    new DeleteOptionsBuilder().withPropagationPolicy("Sideways").build(),
                    T0));

            assertEquals(422, status.getCode());
            assertEquals(
                    "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"Sideways\": supported values: "
                            + "\"Foreground\", \"Background\", \"Orphan\", \"nil\"",
                    status.getMessage());
        }

        @Test
        void aDryRunIsRefusedAndChangesNothing() {
            create(aPod("web-1").onNode("node-1").build());

            Status status = rejection(
                    delete("web-1", new DeleteOptionsBuilder().withDryRun("All").build(), T0));

            assertEquals(400, status.getCode());
            assertNull(stored("web-1").getMetadata().getDeletionTimestamp());
        }

        @Test
        void aNodeIsRemovedAtOnceAndAnsweredWithAStatusSuccess() {
            createNode("node-1");
            String uid = state.get(ResourceType.NODES, "", "node-1")
                    .orElseThrow()
                    .getMetadata()
                    .getUid();

            Effects effects = handle(
                    request(
                            EventTypes.DELETION_REQUESTED,
                            "nodes/node-1",
                            new DeletionRequest("nodes", "", "node-1", grace(30))),
                    T0);

            assertEquals(List.of(EventTypes.OBJECT_REMOVED), types(effects));
            assertFalse(state.get(ResourceType.NODES, "", "node-1").isPresent());
            Outcome outcome = Outcome.of(state, lastRequest, effects).orElseThrow();
            assertEquals(200, outcome.code());
            assertEquals("Success", outcome.body().path("status").asText());
            assertEquals(uid, outcome.body().path("details").path("uid").asText());
            assertEquals("nodes", outcome.body().path("details").path("kind").asText());
        }
    }

    // --- outcome ---

    @Test
    void theOutcomeOfACreateIs201WithTheStoredObject() {
        Effects effects = create(aPod("web-1").build());

        Outcome outcome = Outcome.of(state, lastRequest, effects).orElseThrow();

        assertEquals(201, outcome.code());
        assertEquals(Json.read(Json.bytes(stored("web-1"))), outcome.body(), "the object as the fact wrote it");
    }

    @Test
    void theOutcomeOfARejectionIsItsStatusWithItsCode() {
        create(aPod("web-1").build());
        Effects effects = create(aPod("web-1").build());

        Outcome outcome = Outcome.of(state, lastRequest, effects).orElseThrow();

        assertEquals(409, outcome.code());
        assertEquals("Status", outcome.body().path("kind").asText());
        assertEquals("AlreadyExists", outcome.body().path("reason").asText());
    }

    @Test
    void theOutcomeOfARemovalIsThePodsLastState() {
        create(aPod("web-1").build());
        Effects effects = delete("web-1", new DeleteOptions(), T0);

        Outcome outcome = Outcome.of(state, lastRequest, effects).orElseThrow();

        assertEquals(200, outcome.code());
        assertEquals(
                rv(3), outcome.body().path("metadata").path("resourceVersion").asText());
        assertEquals(
                "0",
                outcome.body()
                        .path("metadata")
                        .path("deletionGracePeriodSeconds")
                        .asText());
    }

    @Test
    void eventsThatAreNoRequestsHaveNoOutcome() {
        Event fact = Event.request(
                "x",
                Registry.SOURCE,
                EventTypes.POD_BOUND,
                "namespaces/default/pods/web-1",
                T0,
                null,
                ObjectChange.of(ResourceType.PODS, aPod("web-1").build()));

        assertTrue(Outcome.of(state, fact, Effects.NONE).isEmpty());
    }

    // --- helpers ---

    private Event request(String type, String subject, Object data) {
        return request(Registry.SOURCE, type, subject, data);
    }

    private Event creation(Pod pod, String namespace) {
        return request(
                EventTypes.CREATION_REQUESTED,
                Subjects.of(namespace, "pods", String.valueOf(pod.getMetadata().getName())),
                new CreationRequest("pods", namespace, Json.tree(pod)));
    }

    private Effects create(Pod pod) {
        return handle(creation(pod, pod.getMetadata().getNamespace()), T0);
    }

    private Effects createNode(String name) {
        Node node =
                new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
        return handle(
                request(
                        "/kubelet/" + name,
                        EventTypes.CREATION_REQUESTED,
                        "nodes/" + name,
                        new CreationRequest("nodes", "", Json.tree(node))),
                T0);
    }

    private Effects bind(String name, String uid, String node) {
        return handle(
                request(
                        "/controller/scheduler",
                        EventTypes.BINDING_REQUESTED,
                        "namespaces/default/pods/" + name,
                        new BindingRequest("default", name, uid, node)),
                T0);
    }

    private Effects updateStatus(String name, String uid, PodStatus status) {
        return handle(
                request(
                        "/kubelet/node-1",
                        EventTypes.STATUS_UPDATE_REQUESTED,
                        "namespaces/default/pods/" + name,
                        new StatusUpdateRequest("default", name, uid, status)),
                T0);
    }

    private Effects delete(String name, DeleteOptions options, Instant now) {
        return handle(
                request(
                        EventTypes.DELETION_REQUESTED,
                        "namespaces/default/pods/" + name,
                        new DeletionRequest("pods", "default", name, options)),
                now);
    }

    private static DeleteOptions grace(long seconds) {
        return new DeleteOptionsBuilder().withGracePeriodSeconds(seconds).build();
    }

    private static Pod pod(Effects effects, int i) {
        return effects.events().get(i).data(ObjectChange.class).object(Pod.class);
    }

    private static String uidOf(Effects creation) {
        return pod(creation, 0).getMetadata().getUid();
    }
}
