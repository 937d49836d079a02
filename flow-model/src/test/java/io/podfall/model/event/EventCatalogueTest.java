package io.podfall.model.event;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventCatalogueTest {
    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");

    private static Event event(String source, String type) {
        return Event.request("id-1", source, type, "namespaces/default/pods/web-1", T0, null, Map.of());
    }

    private static UnreadableEventException refused(String source, String type) {
        return assertThrows(UnreadableEventException.class, () -> EventCatalogue.check(event(source, type)));
    }

    @Test
    void everyTypeOfTheCatalogueIsKnownAndNothingElse() {
        assertTrue(EventCatalogue.TYPES.contains(EventTypes.CONTAINER_EXITED));
        assertTrue(EventCatalogue.TYPES.contains(EventTypes.VOLUME_UNSTAGED));
        var e = refused("/apiserver", "apiserver.PodTeleported");
        assertEquals(UnreadableEventException.Kind.UNKNOWN_TYPE, e.kind());
        assertTrue(e.getMessage().contains("apiserver.PodTeleported"));
    }

    @Test
    void aFactComesOnlyFromTheComponentThatOwnsIt() {
        assertDoesNotThrow(() -> EventCatalogue.check(event("/runtime/node-1", EventTypes.CONTAINER_EXITED)));
        assertDoesNotThrow(() -> EventCatalogue.check(event("/apiserver", EventTypes.OBJECT_REMOVED)));
        assertDoesNotThrow(() -> EventCatalogue.check(event("/kubelet/node-1", EventTypes.POD_TERMINATED)));
        assertDoesNotThrow(() -> EventCatalogue.check(event("/csi/node-1", EventTypes.VOLUME_UNPUBLISHED)));
        assertDoesNotThrow(
                () -> EventCatalogue.check(event("/kubelet/node-1", EventTypes.POD_RESTART_REQUESTED)),
                "the kubelet's own record of a request, not a request to another component");

        var e = refused("/kubelet/node-1", EventTypes.CONTAINER_EXITED);
        assertEquals(UnreadableEventException.Kind.WRONG_SOURCE, e.kind());
        assertEquals(
                "runtime.ContainerExited may not come from /kubelet/node-1 (only the runtime appends it)",
                e.getMessage());
        assertEquals(
                UnreadableEventException.Kind.WRONG_SOURCE,
                refused("/controller/garbagecollector", EventTypes.OBJECT_REMOVED)
                        .kind());
        assertEquals(
                UnreadableEventException.Kind.WRONG_SOURCE,
                refused("runtime", EventTypes.CONTAINER_EXITED).kind());
    }

    @Test
    void aRequestComesFromWhoeverMayAskThatComponent() {
        assertDoesNotThrow(() -> EventCatalogue.check(event("/apiserver", EventTypes.DELETION_REQUESTED)));
        assertDoesNotThrow(() -> EventCatalogue.check(event("/controller/replicaset", EventTypes.CREATION_REQUESTED)));
        assertDoesNotThrow(() -> EventCatalogue.check(event("/kubelet/node-1", EventTypes.STATUS_UPDATE_REQUESTED)));
        assertDoesNotThrow(() -> EventCatalogue.check(event("/kubelet/node-1", EventTypes.STOP_CONTAINER_REQUESTED)));
        assertDoesNotThrow(
                () -> EventCatalogue.check(event("/kubelet/node-1", EventTypes.NODE_UNPUBLISH_VOLUME_REQUESTED)));

        assertEquals(
                "runtime.StopContainerRequested may not come from /controller/scheduler"
                        + " (a request to the runtime is not sent by that source)",
                refused("/controller/scheduler", EventTypes.STOP_CONTAINER_REQUESTED)
                        .getMessage());
        assertEquals(
                UnreadableEventException.Kind.WRONG_SOURCE,
                refused("/runtime/node-1", EventTypes.DELETION_REQUESTED).kind());
        assertEquals(
                "runtime.StopContainerRequested may not come from /runtime/node-1"
                        + " (a request to the runtime is not sent by that source)",
                refused("/runtime/node-1", EventTypes.STOP_CONTAINER_REQUESTED).getMessage());
    }
}
