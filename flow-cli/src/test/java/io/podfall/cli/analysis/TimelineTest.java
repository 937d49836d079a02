package io.podfall.cli.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TimelineTest {
    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    private static final String POD = "namespaces/default/pods/web-1";

    private final Event create =
            Event.request("c1", "/apiserver", EventTypes.CREATION_REQUESTED, POD, T0, null, Map.of());
    private final Event delete = Event.request(
            "d1",
            "/apiserver",
            EventTypes.DELETION_REQUESTED,
            POD,
            T0.plusSeconds(10),
            null,
            Map.of("options", Map.of("gracePeriodSeconds", 5)));
    private final Event signal = Event.causedBy(
            delete.asCause(),
            "d1",
            0,
            "/runtime/node-1",
            EventTypes.CONTAINER_SIGNALLED,
            POD,
            T0.plusSeconds(10).plusMillis(42),
            Map.of("signal", "SIGTERM"));
    private final Event otherFlow = Event.causedBy(
            create.asCause(), "c1", 0, "/apiserver", EventTypes.OBJECT_CREATED, POD, T0.plusMillis(3), Map.of());

    @Test
    void keepsOnlyTheFlowInLogOrderWithOffsetsFromTheRequest() {
        Timeline t = Timeline.of(List.of(create, otherFlow, delete, signal), "d1");
        assertEquals(List.of(EventTypes.DELETION_REQUESTED, EventTypes.CONTAINER_SIGNALLED), t.types());
        assertEquals(
                List.of(0L, 42L),
                t.steps().stream().map(Timeline.Step::offsetMillis).toList());
        assertEquals("runtime/node-1", t.steps().get(1).component());
    }

    @Test
    void showsWhatDecidedEachStep() {
        Timeline t = Timeline.of(List.of(delete, signal), "d1");
        assertEquals("grace=5s", t.steps().get(0).detail());
        assertEquals("signal=SIGTERM", t.steps().get(1).detail());
        assertTrue(t.render().contains("runtime.ContainerSignalled"));
    }

    @Test
    void aFailedHookShowsWhy() {
        Event hook = Event.causedBy(
                delete.asCause(),
                "d1",
                0,
                "/kubelet/node-1",
                EventTypes.PRE_STOP_HOOK_FINISHED,
                POD,
                T0.plusSeconds(13),
                Map.of(
                        "containerName",
                        "app",
                        "handler",
                        "sleep",
                        "durationSeconds",
                        3,
                        "error",
                        "the container exited with code 0 while its preStop hook ran"));
        assertEquals(
                "hook=sleep hookDuration=3s error=\"the container exited with code 0 while its preStop hook ran\" "
                        + "container=app",
                Timeline.of(List.of(delete, hook), "d1").steps().get(1).detail());
    }

    @Test
    void aVolumeStepShowsItsVolume() {
        Event unpublished = Event.causedBy(
                delete.asCause(),
                "d1",
                0,
                "/csi/node-1",
                EventTypes.VOLUME_UNPUBLISHED,
                POD,
                T0.plusSeconds(70),
                Map.of("volumeName", "data", "volumeId", "default/pgdata"));
        assertEquals(
                "volume=default/pgdata",
                Timeline.of(List.of(delete, unpublished), "d1").steps().get(1).detail());
    }

    @Test
    void latestDeletionIsTheLastOneAClientAsked() {
        Event later = Event.request(
                "d2", "/apiserver", EventTypes.DELETION_REQUESTED, POD, T0.plusSeconds(20), null, Map.of());
        Event kubeletsFinalDelete = Event.causedBy(
                later.asCause(),
                "d2",
                0,
                "/kubelet/node-1",
                EventTypes.DELETION_REQUESTED,
                POD,
                T0.plusSeconds(30),
                Map.of());
        assertEquals(
                "d2",
                Timeline.latestDeletion(List.of(delete, later, kubeletsFinalDelete), POD)
                        .orElseThrow());
        Event deployment = Event.request(
                "dd",
                "/apiserver",
                EventTypes.DELETION_REQUESTED,
                "namespaces/default/deployments/web",
                T0.plusSeconds(39),
                null,
                Map.of());
        Event cascade = Event.causedBy(
                deployment.asCause(),
                "dd",
                0,
                "/controller/garbagecollector",
                EventTypes.DELETION_REQUESTED,
                "namespaces/default/pods/web-2",
                T0.plusSeconds(40),
                Map.of());
        assertEquals(
                "dd",
                Timeline.latestDeletion(List.of(delete, cascade), "namespaces/default/pods/web-2")
                        .orElseThrow(),
                "a pod deleted by the garbage collector: the cascade's flow");
        assertEquals(
                "d1",
                Timeline.latestDeletion(List.of(delete, cascade), null).orElseThrow(),
                "without a subject, only what a client asked");
        Event drained = Event.request(
                "ev", "/apiserver", EventTypes.EVICTION_REQUESTED, POD, T0.plusSeconds(50), null, Map.of());
        assertEquals(
                "ev", Timeline.latestDeletion(List.of(delete, drained), POD).orElseThrow(), "kubectl drain");
        assertTrue(Timeline.latestDeletion(List.of(delete), "namespaces/default/pods/other")
                .isEmpty());
    }

    /** Each step: the phase boundary it is, and how long after the previous one of its pod it came. */
    @Test
    void eachStepShowsHowLongAfterThePreviousPhaseBoundaryItCameAndWhichBoundaryItIs() {
        PodLog p = new PodLog("a").deleted(1_000, 5, 1_000, false);
        Timeline t = Timeline.of(p.events, "del-a");
        assertEquals(
                List.of(
                        "request",
                        "terminating",
                        "",
                        "",
                        "SIGTERM",
                        "exit",
                        "",
                        "IP released",
                        "sandbox stopped",
                        "",
                        "",
                        "",
                        "final delete",
                        "",
                        "gone",
                        "",
                        "",
                        ""),
                t.steps().stream().map(Timeline.Step::phase).toList());
        assertEquals(
                Arrays.asList(
                        null, 17L, 34L, 34L, 59L, 1000L, 22L, 36L, 0L, 36L, 36L, 36L, 36L, 53L, 53L, 15L, 35L, 45L),
                t.steps().stream().map(Timeline.Step::sincePhaseMillis).toList());
        assertEquals(
                "   +1076 ms     +1000 ms  exit             runtime/node-1  runtime.ContainerExited            "
                        + "namespaces/default/pods/a  container=app exitCode=143 reason=Error",
                t.render().lines().toList().get(6));
    }

    /**
     * The Endpoints update that takes the pod out of its Service is a boundary of the pod, found by causation; the
     * preStop hook's start and end are two; the patch that asked for the update counts from its cause.
     */
    @Test
    void theEndpointsRemovalAndThePreStopHookAreBoundariesOfThePod() {
        PodLog p = new PodLog("a");
        p.delete(1_000, 5);
        Event marked = p.markedTerminating(1_017, 5);
        Event patch = Event.causedBy(
                marked.asCause(),
                "del-a",
                90,
                "/controller/endpoint",
                EventTypes.PATCH_REQUESTED,
                "namespaces/default/endpoints/web",
                PodLog.at(1_020),
                Map.of());
        Event updated = Event.causedBy(
                patch.asCause(),
                "del-a",
                91,
                "/apiserver",
                EventTypes.OBJECT_UPDATED,
                "namespaces/default/endpoints/web",
                PodLog.at(1_047),
                Map.of());
        p.events.add(patch);
        p.events.add(updated);
        p.then(1_051, "/kubelet/node-1", EventTypes.PRE_STOP_HOOK_STARTED, PodLog.data("handler", "sleep"));
        p.then(3_051, "/kubelet/node-1", EventTypes.PRE_STOP_HOOK_FINISHED, PodLog.data("handler", "sleep"));
        p.signalled(3_076, "SIGTERM");
        Timeline t = Timeline.of(p.events, "del-a");
        assertEquals(
                List.of("request", "terminating", "", "endpoints removed", "preStop", "preStop done", "SIGTERM"),
                t.steps().stream().map(Timeline.Step::phase).toList());
        assertEquals(
                Arrays.asList(null, 17L, 3L, 30L, 4L, 2000L, 25L),
                t.steps().stream().map(Timeline.Step::sincePhaseMillis).toList());
    }

    /** In a cascade each object has its phases; a dependent's delete counts from the owner's step that caused it. */
    @Test
    void inACascadeEachObjectsFirstStepCountsFromItsCause() {
        Event request = Event.request(
                "dd",
                "/apiserver",
                EventTypes.DELETION_REQUESTED,
                "namespaces/default/deployments/web",
                T0,
                null,
                Map.of());
        Event removed = Event.causedBy(
                request.asCause(),
                "dd",
                0,
                "/apiserver",
                EventTypes.OBJECT_REMOVED,
                "namespaces/default/deployments/web",
                T0.plusMillis(20),
                Map.of());
        Event cascade = Event.causedBy(
                removed.asCause(),
                "dd",
                1,
                "/controller/garbagecollector",
                EventTypes.DELETION_REQUESTED,
                "namespaces/default/replicasets/web-1a2b",
                T0.plusMillis(45),
                Map.of());
        Event rsRemoved = Event.causedBy(
                cascade.asCause(),
                "dd",
                2,
                "/apiserver",
                EventTypes.OBJECT_REMOVED,
                "namespaces/default/replicasets/web-1a2b",
                T0.plusMillis(50),
                Map.of());
        Timeline t = Timeline.of(List.of(request, removed, cascade, rsRemoved), "dd");
        assertEquals(
                List.of("request", "gone", "request", "gone"),
                t.steps().stream().map(Timeline.Step::phase).toList());
        assertEquals(
                Arrays.asList(null, 20L, 25L, 5L),
                t.steps().stream().map(Timeline.Step::sincePhaseMillis).toList());
    }
}
