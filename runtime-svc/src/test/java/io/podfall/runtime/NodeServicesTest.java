package io.podfall.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.model.core.CompositeState;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.csi.NodePublishVolume;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.runtime.ContainerRef;
import io.podfall.model.runtime.RunPodSandbox;
import io.podfall.model.runtime.StopContainer;
import io.podfall.runtime.cri.ContainerRuntime;
import io.podfall.runtime.csi.CsiNodePlugin;
import io.podfall.runtime.csi.UnpublishTimer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The runtime service runs the container runtime and the CSI plugin side by side, each on its own requests and timers.
 */
class NodeServicesTest {
    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    private static final String NODE = "node-1";

    private final NodeServices node = new NodeServices(new ContainerRuntime(), new CsiNodePlugin());
    private final CompositeState state = node.newState();
    private int requests;

    private Effects handle(String type, Object data, Instant at) {
        Event request = Event.request(
                "req-" + ++requests, "/kubelet/" + NODE, type, "namespaces/default/pods/db-0", at, null, data);
        return node.handle(state, request, at);
    }

    private static List<String> types(Effects effects) {
        return effects.events().stream().map(Event::type).toList();
    }

    @Test
    void csiRequestsAndTimersGoToThePluginAndEverythingElseToTheRuntime() {
        Effects published = handle(
                EventTypes.NODE_PUBLISH_VOLUME_REQUESTED,
                new NodePublishVolume(
                        NODE,
                        "uid-db-0",
                        "scratch",
                        "inline.csi",
                        "csi-01",
                        null,
                        "/target",
                        false,
                        Map.of(),
                        Map.of(CsiNodePlugin.UNMOUNT_SECONDS, "20")),
                T0);
        assertEquals(List.of(EventTypes.VOLUME_PUBLISHED), types(published));

        handle(
                EventTypes.RUN_POD_SANDBOX_REQUESTED,
                new RunPodSandbox(
                        NODE,
                        "uid-db-0",
                        "default",
                        "db-0",
                        List.of(new RunPodSandbox.ContainerSpec("app", "postgres:17")),
                        Map.of("podfall.io/on-sigterm", "ignore")),
                T0);
        assertEquals(
                List.of(EventTypes.CONTAINER_STARTED),
                types(handle(EventTypes.START_CONTAINER_REQUESTED, new ContainerRef(NODE, "uid-db-0", "app", 0), T0)));
        Timer kill = handle(
                        EventTypes.STOP_CONTAINER_REQUESTED, new StopContainer(NODE, "uid-db-0", null, "app", 10), T0)
                .timers()
                .get(0);
        Timer unmounted = handle(
                        EventTypes.NODE_UNPUBLISH_VOLUME_REQUESTED,
                        new NodePublishVolume(
                                        NODE,
                                        "uid-db-0",
                                        "scratch",
                                        "inline.csi",
                                        "csi-01",
                                        null,
                                        "/target",
                                        false,
                                        Map.of(),
                                        Map.of())
                                .publication(),
                        T0)
                .timers()
                .get(0);
        assertTrue(unmounted.key() instanceof UnpublishTimer);

        assertEquals(
                List.of(EventTypes.CONTAINER_SIGNALLED, EventTypes.CONTAINER_EXITED),
                types(node.fire(state, kill, kill.at())));
        assertEquals(List.of(EventTypes.VOLUME_UNPUBLISHED), types(node.fire(state, unmounted, unmounted.at())));
    }
}
