package io.podfall.replay;

import static io.podfall.model.event.EventTypes.*;
import static io.podfall.replay.Scenarios.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.TraceContext;
import io.podfall.replay.Divergences.Divergence;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The comparison on small hand-made logs: one delete request, the API server's answer, and what reacts to it. */
class DivergencesTest {
    private static final Duration TOLERANCE = Duration.ofMillis(100);
    private static final String POD = "namespaces/default/pods/web-1";

    /**
     * request → marked terminating → (kubelet: termination started, stop container) and (controller: endpoints patch).
     */
    private static List<Event> recorded() {
        return List.of(
                ev("r", null, "/apiserver", DELETION_REQUESTED, 0),
                ev("m", "r", "/apiserver", OBJECT_MARKED_TERMINATING, 2),
                ev("k1", "m", "/kubelet/node-1", POD_TERMINATION_STARTED, 4),
                ev("c1", "m", "/controller/endpoint", PATCH_REQUESTED, 5),
                ev("k2", "m", "/kubelet/node-1", STOP_CONTAINER_REQUESTED, 4),
                ev("s", "k2", "/runtime/node-1", CONTAINER_SIGNALLED, 6),
                ev("x", "k2", "/runtime/node-1", CONTAINER_EXITED, 506));
    }

    @Test
    void aSimulatedDurationIsWrittenToTheMillisecondHalfUp() {
        assertEquals("5.002s", Divergences.seconds(Duration.ofNanos(5_001_500_000L)));
        assertEquals("5.001s", Divergences.seconds(Duration.ofNanos(5_001_499_999L)));
        assertEquals("0.000s", Divergences.seconds(Duration.ZERO));
        assertEquals("-0.251s", Divergences.seconds(Duration.ofNanos(-250_500_000L)));
        assertEquals("3600.000s", Divergences.seconds(Duration.ofHours(1)));
    }

    @Test
    void theSameFlowWithOtherIdsAndHopsOfAFewMillisecondsLessDoesNotDiverge() {
        List<Event> replayed = List.of(
                ev("r", null, "/apiserver", DELETION_REQUESTED, 0),
                ev("M", "r", "/apiserver", OBJECT_MARKED_TERMINATING, 0),
                ev("C1", "M", "/controller/endpoint", PATCH_REQUESTED, 0),
                ev("K1", "M", "/kubelet/node-1", POD_TERMINATION_STARTED, 0),
                ev("K2", "M", "/kubelet/node-1", STOP_CONTAINER_REQUESTED, 0),
                ev("S", "K2", "/runtime/node-1", CONTAINER_SIGNALLED, 0),
                ev("X", "K2", "/runtime/node-1", CONTAINER_EXITED, 500));

        assertEquals(
                List.of(),
                Divergences.between(recorded(), replayed, TOLERANCE),
                "the controller answering before the kubelet is another interleaving of independent services");
    }

    @Test
    void anEventMissingFromTheReplayIsReportedOnceWithWhatItCaused() {
        List<Event> replayed = new ArrayList<>(recorded());
        replayed.removeIf(e -> e.id().equals("k2") || e.id().equals("s") || e.id().equals("x"));

        List<Divergence> found = Divergences.between(recorded(), replayed, TOLERANCE);

        assertEquals(
                List.of("MISSING " + STOP_CONTAINER_REQUESTED + " after " + OBJECT_MARKED_TERMINATING
                        + ": and 2 events it caused"),
                describe(found));
        assertEquals("r", found.get(0).flow());
    }

    @Test
    void anEventOnlyTheReplayHasIsExtra() {
        List<Event> replayed = new ArrayList<>(recorded());
        replayed.add(ev("kill", "k2", "/runtime/node-1", CONTAINER_SIGNALLED, 30_006));

        assertEquals(
                List.of("EXTRA runtime.ContainerSignalled after runtime.StopContainerRequested: "),
                describe(Divergences.between(recorded(), replayed, TOLERANCE)));
    }

    @Test
    void oneComponentDecidingInAnotherOrderIsAReordering() {
        List<Event> replayed = new ArrayList<>(recorded());
        replayed.set(2, recorded().get(4));
        replayed.set(4, recorded().get(2));

        assertEquals(
                List.of("REORDERED " + POD_TERMINATION_STARTED + " after " + OBJECT_MARKED_TERMINATING + ": "),
                describe(Divergences.between(recorded(), replayed, TOLERANCE)));
    }

    /**
     * A window that opens between a request and its answer: the answer, carried over, is a root of the window like the
     * client's request that opens it. The engine appends it as the window opens, live it came a few milliseconds after
     * that request: two decisions about different causes, in no order.
     */
    @Test
    void anAnswerCarriedOverIntoTheWindowIsNoSiblingOfItsClientRequests() {
        Event answer = ev("a", "before", "/apiserver", OBJECT_UPDATED, 37);
        List<Event> recorded = new ArrayList<>(recorded());
        recorded.add(1, answer);
        List<Event> replayed = new ArrayList<>(recorded());
        replayed.add(0, ev("a", "before", "/apiserver", OBJECT_UPDATED, -22));

        assertEquals(List.of(), Divergences.between(recorded, replayed, TOLERANCE));
        replayed.add(ev("b", "before", "/apiserver", OBJECT_UPDATED, 40));
        assertEquals(
                List.of("EXTRA " + OBJECT_UPDATED),
                Divergences.between(recorded, replayed, TOLERANCE).stream()
                        .map(d -> d.kind() + " " + d.event().type())
                        .toList(),
                "still compared with what answers the same cause");
    }

    @Test
    void aDelayBeyondTheToleranceShowsAtTheHopWhereItArises() {
        List<Event> replayed = new ArrayList<>(recorded());
        // the process exits 2 s after StopContainer instead of 0.5 s; nothing else moves relative to its cause
        replayed.set(6, ev("x", "k2", "/runtime/node-1", CONTAINER_EXITED, 2006));

        assertEquals(
                List.of("TIMING runtime.ContainerExited after runtime.StopContainerRequested: recorded 0.502s after "
                        + "runtime.StopContainerRequested, replayed 2.002s"),
                describe(Divergences.between(recorded(), replayed, TOLERANCE)));
        assertEquals(List.of(), Divergences.between(recorded(), replayed, Duration.ofSeconds(2)), "within 2 s");
    }

    private static List<String> describe(List<Divergence> found) {
        return found.stream()
                .map(d -> d.kind() + " " + d.event().type() + " after "
                        + d.cause().type() + ": " + d.detail())
                .toList();
    }

    private static Event ev(String id, String cause, String source, String type, long millis) {
        return new Event(
                id,
                source,
                type,
                POD,
                T0.plusMillis(millis),
                "r",
                cause,
                TraceContext.traceparent(TraceContext.traceIdFrom("r"), id),
                Json.MAPPER.createObjectNode());
    }
}
