package io.podfall.apiserver.rest;

import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.podfall.apiserver.registry.Registry;
import io.podfall.apiserver.registry.RegistryState;
import io.podfall.apiserver.registry.Selectors;
import io.podfall.apiserver.registry.StatusError;
import io.podfall.apiserver.registry.SystemNamespaces;
import io.podfall.model.CompressedAtRest;
import io.podfall.model.Json;
import io.podfall.model.apiserver.BindingRequest;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.StatusUpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import io.podfall.model.runtime.SandboxRef;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Watch events from the registry's facts, the history a watch starts from, and what each watcher is sent. The registry
 * starts with the system namespaces; resourceVersions in assertions count from after them.
 */
class WatchTest {
    private static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");

    private final Registry registry = new Registry();
    private final RegistryState state = registry.newState();
    private final WatchHub hub = new WatchHub();
    private final long base;
    private int requests;
    /** When the registry handles the next request. */
    private Instant now = T0;

    WatchTest() {
        SystemNamespaces.missing(state, T0).forEach(this::handle);
        base = state.resourceVersion();
    }

    @Nested
    class FromFacts {
        @Test
        void aPodsLifeIsAddedThenModifiedThenDeletedWithTheResourceVersionOfEachWrite() {
            Recorder all = watchFrom(0, new WatchFilter(ResourceType.PODS, "default", none()));
            String uid = uidOf(create("web-1"));
            bind("web-1", uid);
            updateStatus("web-1", uid, "Running");
            delete("web-1", 30, null);
            updateStatus("web-1", uid, "Failed");
            delete("web-1", 0, uid); // the kubelet's final delete: grace 0 stored, then removed

            assertEquals(
                    List.of(
                            "ADDED 1",
                            "MODIFIED 2",
                            "MODIFIED 3",
                            "MODIFIED 4",
                            "MODIFIED 5",
                            "MODIFIED 6",
                            "DELETED 7"),
                    all.seen());
        }

        @Test
        void theDeletedObjectIsTheLastStateWithTheResourceVersionOfTheRemoval() {
            Recorder all = watchFrom(0, new WatchFilter(ResourceType.PODS, null, none()));
            String uid = uidOf(create("web-1"));
            delete("web-1", 0, uid);

            // An unscheduled pod is marked (grace 0) and removed at once: two writes, two resourceVersions.
            assertEquals(List.of("MODIFIED 2", "DELETED 3"), all.seen().subList(1, 3));
            WatchEvent deleted = all.events.get(2);
            assertEquals(
                    rv(3),
                    deleted.object().path("metadata").path("resourceVersion").asText());
            assertEquals(
                    "0",
                    deleted.object()
                            .path("metadata")
                            .path("deletionGracePeriodSeconds")
                            .asText());
            assertEquals(uid, deleted.object().path("metadata").path("uid").asText());
        }

        @Test
        void rejectedRequestsAndOtherServicesEventsAreNoChange() {
            create("web-1");
            Effects rejected = create("web-1");
            Event runtimeEvent = Event.request(
                    "r-1",
                    "/kubelet/node-1",
                    EventTypes.STOP_POD_SANDBOX_REQUESTED,
                    "namespaces/default/pods/web-1",
                    T0,
                    null,
                    new SandboxRef("node-1", "uid-1"));

            assertEquals(EventTypes.REQUEST_REJECTED, rejected.events().get(0).type());
            assertTrue(WatchEvent.of(rejected.events().get(0), k -> null).isEmpty());
            assertTrue(WatchEvent.of(runtimeEvent, k -> null).isEmpty());
        }
    }

    @Nested
    class Starting {
        @Test
        void fromTheResourceVersionOfAListOnlyLaterChangesAreSent() {
            String uid = uidOf(create("web-1"));
            bind("web-1", uid);
            long listed = state.resourceVersion();

            Recorder w = watchFrom(listed, new WatchFilter(ResourceType.PODS, "default", none()));
            updateStatus("web-1", uid, "Running");

            assertTrue(w.start.events().isEmpty());
            assertEquals(List.of("MODIFIED 3"), w.seen());
        }

        @Test
        void fromAnOlderResourceVersionTheRetainedChangesAfterItComeFirst() {
            String uid = uidOf(create("web-1"));
            bind("web-1", uid);

            Recorder w = watchFrom(base + 1, new WatchFilter(ResourceType.PODS, "default", none()));

            assertEquals(List.of("MODIFIED 2"), w.started());
        }

        @Test
        void withoutAResourceVersionEveryObjectIsAddedOldestResourceVersionFirstThenLiveChanges() {
            String a = uidOf(create("a"));
            create("b");
            bind("a", a); // a is now newer than b

            Recorder w = watchFrom(0, new WatchFilter(ResourceType.PODS, "default", none()));
            updateStatus("a", a, "Running");

            assertEquals(List.of("ADDED 2", "ADDED 3"), w.started());
            assertEquals("b", w.start.events().get(0).name());
            assertEquals(List.of("MODIFIED 4"), w.seen());
        }

        @Test
        void aWatchOfOneNamespaceSeesNothingOfAnother() {
            Recorder w = watchFrom(0, new WatchFilter(ResourceType.PODS, "default", none()));
            handle(request(
                    Registry.SOURCE,
                    EventTypes.CREATION_REQUESTED,
                    "namespaces/other",
                    new CreationRequest(
                            "namespaces",
                            "",
                            Json.tree(new NamespaceBuilder()
                                    .withNewMetadata()
                                    .withName("other")
                                    .endMetadata()
                                    .build()))));
            handle(creation(aPod("db-1").inNamespace("other").build(), "other"));
            Recorder nodes = watchFrom(0, new WatchFilter(ResourceType.NODES, null, none()));

            assertEquals(List.of(), w.seen());
            assertEquals(List.of(), nodes.started());
        }
    }

    @Nested
    class History {
        @Test
        void aResourceVersionOlderThanTheRetainedChangesIsExpired() {
            WatchHistory history = historyOfFiveChanges(3);

            StatusError e = assertThrows(StatusError.class, () -> history.since(base + 1));
            assertEquals(410, e.status().getCode());
            assertEquals("Expired", e.status().getReason());
            assertEquals(
                    "too old resource version: " + rv(1) + " (" + rv(2) + ")",
                    e.status().getMessage());
        }

        @Test
        void theNewestDroppedResourceVersionIsStillServedCompletely() {
            WatchHistory history = historyOfFiveChanges(3);

            assertEquals(
                    List.of(base + 3, base + 4, base + 5),
                    history.since(base + 2).stream()
                            .map(WatchEvent::resourceVersion)
                            .toList());
        }

        @Test
        void theResourceVersionOfTheLatestListIsNeverExpired() {
            WatchHistory history = historyOfFiveChanges(1);

            assertEquals(List.of(), history.since(state.resourceVersion()));
        }

        @Test
        void aTooOldResourceVersionStartsNoWatch() {
            for (int i = 0; i < WatchHub.RETAINED_CHANGES + 2; i++) {
                create("web-" + i);
            }

            Recorder w = watchFrom(base + 1, new WatchFilter(ResourceType.PODS, null, none()));
            create("later");

            assertEquals(410, w.start.expired().getCode());
            assertEquals(List.of(), w.seen());
        }

        @Test
        void aWatchStartedBeforeRetainedChangesGetsThemAsALiveWatchSawThem() {
            long before = state.resourceVersion();
            WatchFilter running = new WatchFilter(
                    ResourceType.PODS, null, Selectors.parse(ResourceType.PODS, "status.phase=Running", null));
            Recorder live = watchFrom(before, running);
            String uid = uidOf(create("web-1"));
            updateStatus("web-1", uid, "Running");
            updateStatus("web-1", uid, "Failed"); // leaves the selection: DELETED with its content before
            create("web-2");

            Recorder late = watchFrom(before, running);

            assertEquals(List.of("ADDED 2", "DELETED 3"), late.started());
            assertEquals(
                    live.events.stream().map(WatchEvent::object).toList(),
                    late.start.events().stream().map(WatchEvent::object).toList());
            assertEquals(
                    "Running",
                    late.start
                            .events()
                            .get(1)
                            .object()
                            .path("status")
                            .path("phase")
                            .asText());
        }

        @Test
        void anObjectsCurrentContentIsTheRegistrysHolderOfItSoItRestsCompressedOnce() {
            WatchHistory history = new WatchHistory(10);
            Effects created = record(history, create("web-1"));
            byte[] written = created.events().get(0).dataJson();
            CompressedAtRest.Held stored = state.holding(ResourceType.PODS, "default", "web-1", written)
                    .orElseThrow();
            assertSame(stored, history.current("pods/default/web-1"));

            now = T0.plus(RegistryState.AT_REST);
            record(history, create("web-2"));

            assertTrue(stored.isCompressed(), "rested, compressed by the registry");
            assertSame(stored, history.current("pods/default/web-1"));
        }

        @Test
        void aWriteItsOwnRequestReplacesIsTheNextChangesPrevious() {
            WatchHistory history = new WatchHistory(10);
            record(history, create("web-1"));
            Effects deleted = record(history, delete("web-1", 30, null)); // unscheduled: marked, then removed at once
            byte[] marked = deleted.events().get(0).dataJson();

            assertTrue(
                    state.holding(ResourceType.PODS, "default", "web-1", marked).isEmpty(),
                    "the registry holds it no more");
            List<WatchEvent> changes = history.since(base + 1);
            assertEquals(
                    List.of(WatchEvent.MODIFIED, WatchEvent.DELETED),
                    changes.stream().map(WatchEvent::type).toList());
            assertArrayEquals(marked, changes.get(1).previous());
            assertNull(history.current("pods/default/web-1"));
        }

        private WatchHistory historyOfFiveChanges(int capacity) {
            WatchHistory history = new WatchHistory(capacity);
            String uid = uidOf(record(history, create("web-1")));
            record(history, bind("web-1", uid));
            record(history, updateStatus("web-1", uid, "Running"));
            record(history, delete("web-1", 30, null));
            record(history, updateStatus("web-1", uid, "Failed"));
            return history;
        }

        private Effects record(WatchHistory history, Effects effects) {
            effects.events().forEach(fact -> history.record(fact, state));
            return effects;
        }
    }

    @Nested
    class Selections {
        private static final WatchFilter RUNNING_PODS = new WatchFilter(
                ResourceType.PODS, null, Selectors.parse(ResourceType.PODS, "status.phase=Running", null));

        @Test
        void anObjectLeavingTheSelectionIsDeletedWithItsPreviousContentAtTheNewResourceVersion() {
            String uid = uidOf(create("web-1"));
            updateStatus("web-1", uid, "Running");
            Recorder running = watchFrom(0, RUNNING_PODS);
            updateStatus("web-1", uid, "Failed");

            assertEquals(List.of("ADDED 2"), running.started());
            assertLeftAsItRan(running, 3);
        }

        @Test
        void itsPreviousContentComesBackTheSameAfterTheObjectRestedCompressed() {
            String uid = uidOf(create("web-1"));
            updateStatus("web-1", uid, "Running");
            Recorder running = watchFrom(0, RUNNING_PODS);
            now = T0.plus(RegistryState.AT_REST);
            create("web-2"); // a write: what has rested since is compressed, web-1 among it

            updateStatus("web-1", uid, "Failed");

            assertLeftAsItRan(running, 4);
        }

        /** The watch saw the pod leave, DELETED with its content while it ran, at the resourceVersion of the write. */
        private void assertLeftAsItRan(Recorder running, long write) {
            assertEquals(List.of("DELETED " + write), running.seen());
            JsonNode last = running.events.get(0).object();
            assertEquals("Running", last.path("status").path("phase").asText());
            assertEquals(
                    rv(write), last.path("metadata").path("resourceVersion").asText());
        }

        @Test
        void anObjectEnteringTheSelectionIsAdded() {
            String uid = uidOf(create("web-1"));
            Recorder onNode = watchFrom(
                    0,
                    new WatchFilter(
                            ResourceType.PODS, null, Selectors.parse(ResourceType.PODS, "spec.nodeName=node-1", null)));
            bind("web-1", uid);
            updateStatus("web-1", uid, "Running");

            assertEquals(List.of(), onNode.started());
            assertEquals(List.of("ADDED 2", "MODIFIED 3"), onNode.seen());
        }

        @Test
        void kubectlsDeleteWaitSeesOnlyItsPodAndItsRemoval() {
            String uid = uidOf(create("web-1"));
            create("web-2");
            Recorder wait = watchFrom(
                    state.resourceVersion(),
                    new WatchFilter(
                            ResourceType.PODS,
                            "default",
                            Selectors.parse(ResourceType.PODS, "metadata.name=web-1", null)));
            delete("web-2", 0, null);
            delete("web-1", 0, uid);

            assertEquals(List.of("MODIFIED 5", "DELETED 6"), wait.seen());
        }

        @Test
        void aLabelSelectorThatMatchesNothingSendsNothing() {
            Recorder w = watchFrom(
                    0, new WatchFilter(ResourceType.PODS, null, Selectors.parse(ResourceType.PODS, null, "app=db")));
            create("web-1");

            assertEquals(List.of(), w.seen());
        }
    }

    @Nested
    class Lines {
        private final WatchEvent added = new WatchEvent(
                WatchEvent.ADDED,
                ResourceType.PODS,
                "default",
                "web-1",
                7,
                withRv(Json.tree(aPod("web-1").build()), "7"),
                null);
        private final Tables.Format table = new Tables.Format("v1", Tables.IncludeObject.METADATA);

        @Test
        void anEventIsOneCompactJsonLine() {
            String line = WatchStream.line(added, Optional.empty(), T0, true);

            assertTrue(line.endsWith("}\n"));
            assertEquals(1, line.split("\n").length);
            assertFalse(line.contains("\n "));
            JsonNode read = Json.read(line.getBytes());
            assertEquals("ADDED", read.path("type").asText());
            assertEquals(
                    "web-1", read.path("object").path("metadata").path("name").asText());
        }

        @Test
        void inTableModeTheObjectIsAOneRowTableAndOnlyTheFirstCarriesTheColumns() {
            JsonNode first = Json.read(WatchStream.line(added, Optional.of(table), T0, true)
                            .getBytes())
                    .path("object");
            JsonNode later = Json.read(WatchStream.line(added, Optional.of(table), T0, false)
                            .getBytes())
                    .path("object");

            assertEquals("Table", first.path("kind").asText());
            assertEquals("7", first.path("metadata").path("resourceVersion").asText());
            assertEquals(1, first.path("rows").size());
            assertEquals(9, first.path("columnDefinitions").size());
            assertEquals(0, later.path("columnDefinitions").size());
            assertEquals("web-1", later.path("rows").get(0).path("cells").get(0).asText());
        }

        @Test
        void anExpiredWatchIsAnErrorEventWithTheStatus() {
            JsonNode read = Json.read(
                    WatchStream.errorLine(StatusError.expired(1, 2).status()).getBytes());

            assertEquals("ERROR", read.path("type").asText());
            assertEquals(410, read.path("object").path("code").asInt());
            assertEquals("Status", read.path("object").path("kind").asText());
        }
    }

    @Nested
    class Parameters {
        @Test
        void noResourceVersionOrZeroMeansStartFromTheState() {
            assertEquals(0, WatchRoute.resourceVersion(null));
            assertEquals(0, WatchRoute.resourceVersion("0"));
            assertEquals(42, WatchRoute.resourceVersion("42"));
            assertEquals(
                    400,
                    assertThrows(StatusError.class, () -> WatchRoute.resourceVersion("abc"))
                            .status()
                            .getCode());
        }

        @Test
        void withoutTimeoutSecondsAWatchLastsBetweenThirtyAndSixtyMinutes() {
            Duration d = WatchRoute.timeout(null);

            assertTrue(
                    d.compareTo(Duration.ofMinutes(30)) >= 0 && d.compareTo(Duration.ofMinutes(60)) < 0, d.toString());
            assertEquals(Duration.ofSeconds(5), WatchRoute.timeout("5"));
            assertEquals(
                    400,
                    assertThrows(StatusError.class, () -> WatchRoute.timeout("-1"))
                            .status()
                            .getCode());
        }
    }

    // --- helpers ---

    /** A watcher that records what it is offered through its filter, as the stream would send it. */
    private final class Recorder implements WatchHub.Watcher {
        final WatchFilter filter;
        final List<WatchEvent> events = new ArrayList<>();
        WatchRoute.Start start;

        Recorder(WatchFilter filter) {
            this.filter = filter;
        }

        @Override
        public boolean offer(WatchEvent event) {
            event.seenThrough(filter).ifPresent(events::add);
            return true;
        }

        List<String> seen() {
            return events.stream()
                    .map(e -> e.type() + " " + (e.resourceVersion() - base))
                    .toList();
        }

        List<String> started() {
            return start.events().stream()
                    .map(e -> e.type() + " " + (e.resourceVersion() - base))
                    .toList();
        }
    }

    private Recorder watchFrom(long resourceVersion, WatchFilter filter) {
        Recorder r = new Recorder(filter);
        r.start = WatchRoute.begin(state, resourceVersion, filter, hub, r);
        return r;
    }

    /** The resourceVersion of the test's {@code n}th write. */
    private String rv(long n) {
        return Long.toString(base + n);
    }

    private static Selectors none() {
        return Selectors.parse(ResourceType.PODS, null, null);
    }

    private static JsonNode withRv(JsonNode object, String rv) {
        ((com.fasterxml.jackson.databind.node.ObjectNode) object.path("metadata")).put("resourceVersion", rv);
        return object;
    }

    private Effects handle(Event request) {
        Effects effects = registry.handle(state, request, now);
        hub.record(effects, state);
        return effects;
    }

    private Event request(String source, String type, String subject, Object data) {
        return Event.request("request-" + ++requests, source, type, subject, T0, null, data);
    }

    private Event creation(Pod pod, String namespace) {
        return request(
                Registry.SOURCE,
                EventTypes.CREATION_REQUESTED,
                Subjects.of(namespace, "pods", pod.getMetadata().getName()),
                new CreationRequest("pods", namespace, Json.tree(pod)));
    }

    private Effects create(String name) {
        return handle(creation(aPod(name).build(), "default"));
    }

    private Effects bind(String name, String uid) {
        return handle(request(
                "/controller/scheduler",
                EventTypes.BINDING_REQUESTED,
                "namespaces/default/pods/" + name,
                new BindingRequest("default", name, uid, "node-1")));
    }

    private Effects updateStatus(String name, String uid, String phase) {
        return handle(request(
                "/kubelet/node-1",
                EventTypes.STATUS_UPDATE_REQUESTED,
                "namespaces/default/pods/" + name,
                new StatusUpdateRequest(
                        "default",
                        name,
                        uid,
                        new PodStatusBuilder().withPhase(phase).build())));
    }

    private Effects delete(String name, long grace, String uid) {
        DeleteOptionsBuilder options = new DeleteOptionsBuilder().withGracePeriodSeconds(grace);
        if (uid != null) {
            options.withNewPreconditions().withUid(uid).endPreconditions();
        }
        return handle(request(
                Registry.SOURCE,
                EventTypes.DELETION_REQUESTED,
                "namespaces/default/pods/" + name,
                new DeletionRequest("pods", "default", name, options.build())));
    }

    private static String uidOf(Effects creation) {
        return creation.events()
                .get(0)
                .data(io.podfall.model.apiserver.ObjectChange.class)
                .object(Pod.class)
                .getMetadata()
                .getUid();
    }
}
