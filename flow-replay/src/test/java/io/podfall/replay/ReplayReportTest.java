package io.podfall.replay;

import static io.podfall.model.event.EventTypes.DELETION_REQUESTED;
import static io.podfall.model.event.EventTypes.OBJECT_MARKED_TERMINATING;
import static io.podfall.model.event.EventTypes.UPDATE_REQUESTED;
import static io.podfall.replay.Scenarios.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.TraceContext;
import io.podfall.model.traffic.RequestCounts;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplayReportTest {
    private static final Instant END = T0.plusSeconds(10);

    @Test
    void aFlowOnlyTheReplayHasIsOneOfTheFlowsThatDiverged() {
        List<Event> recorded = List.of(
                ev("r", null, "r", "/apiserver", DELETION_REQUESTED, "namespaces/default/pods/web-1", 0),
                ev("m", "r", "r", "/apiserver", OBJECT_MARKED_TERMINATING, "namespaces/default/pods/web-1", 2));
        List<Event> replayed = new ArrayList<>(recorded);
        replayed.add(
                ev("l", null, "l", "/kubelet/node-1", UPDATE_REQUESTED, "namespaces/kube-node-lease/leases/node-1", 5));

        Replay replay = new Replay(
                null, T0, END, recorded, replayed, Divergences.between(recorded, replayed, Duration.ofMillis(100)));

        assertEquals(
                "diverged: 1 EXTRA in 1 of 2 flows from " + T0 + " to " + END + "\ndigest: " + replay.digest()
                        + " of the 3 replayed events\n",
                ReplayReport.verdict(replay));
        Replay same = new Replay(null, T0, END, recorded, recorded, List.of());
        assertEquals(
                "reproduced: no divergence in 1 flows from " + T0 + " to " + END + "\ndigest: " + same.digest()
                        + " of the 2 replayed events\n",
                ReplayReport.verdict(same));
    }

    private static Event counted(String id, long succeeded, Map<String, Long> failed) {
        return Event.request(
                id,
                "/traffic/node-1",
                EventTypes.REQUESTS_COUNTED,
                "namespaces/default/services/web",
                T0.plusSeconds(2),
                null,
                new RequestCounts("node-1", "default", "web", T0, T0.plusSeconds(1), succeeded, failed, List.of()));
    }

    @Test
    void theVerdictStatesTheRequestsThatFailedRecordedAgainstReplayedByReason() {
        List<Event> recorded = List.of(
                counted("c1", 10, Map.of(RequestCounts.REFUSED, 30L, RequestCounts.RESET, 10L)),
                counted("c2", 10, Map.of(RequestCounts.RESET, 2L)));
        List<Event> replayed = List.of(counted("c3", 52, Map.of()));
        String verdict = ReplayReport.verdict(new Replay(null, T0, END, recorded, replayed, List.of()));
        assertTrue(verdict.startsWith("requests failed: recorded 42 (30 refused, 12 reset), replayed 0\n"), verdict);
        String worse = ReplayReport.verdict(new Replay(null, T0, END, recorded, recorded, List.of()));
        assertTrue(worse.startsWith(
                "requests failed: recorded 42 (30 refused, 12 reset), replayed 42 (30 refused, " + "12 reset)\n"));
        List<Event> none =
                List.of(ev("r", null, "r", "/apiserver", DELETION_REQUESTED, "namespaces/default/pods/web-1", 0));
        assertFalse(
                ReplayReport.verdict(new Replay(null, T0, END, none, replayed, List.of()))
                        .contains("requests"),
                "a recording without counted requests says nothing of them");
    }

    @Test
    void aStepLateButInItsPlaceIsReportedAndTheReplayStillReproduces() {
        List<Event> recorded = List.of(
                ev("r", null, "r", "/apiserver", DELETION_REQUESTED, "namespaces/default/pods/web-1", 0),
                ev("m", "r", "r", "/apiserver", OBJECT_MARKED_TERMINATING, "namespaces/default/pods/web-1", 2),
                ev("k", "m", "r", "/kubelet/node-1", UPDATE_REQUESTED, "namespaces/default/pods/web-1", 5));
        List<Event> late = List.of(
                recorded.get(0),
                recorded.get(1),
                ev("k", "m", "r", "/kubelet/node-1", UPDATE_REQUESTED, "namespaces/default/pods/web-1", 500));
        List<Event> early = List.of(
                recorded.get(0),
                ev("k", "m", "r", "/kubelet/node-1", UPDATE_REQUESTED, "namespaces/default/pods/web-1", 1),
                recorded.get(1));

        Replay inPlace =
                new Replay(null, T0, END, recorded, late, Divergences.between(recorded, late, Duration.ofMillis(100)));
        Replay moved = new Replay(null, T0, END, recorded, early, Divergences.between(recorded, early, Duration.ZERO));

        assertEquals(
                List.of(Divergences.Kind.TIMING),
                inPlace.divergences().stream().map(Divergences.Divergence::kind).toList());
        assertEquals(true, inPlace.reproduces());
        assertEquals(
                "reproduced: no divergence in 1 flows from " + T0 + " to " + END
                        + " (1 TIMING beyond the tolerance, each in its recorded place among its flow's events: reported, not a "
                        + "divergence)",
                ReplayReport.verdict(inPlace).lines().findFirst().orElseThrow());
        assertEquals(false, moved.reproduces(), "the kubelet's answer came before the fact it answers: out of place");
        assertEquals(
                "diverged: 1 TIMING that changed an order in 1 of 1 flows from " + T0 + " to " + END,
                ReplayReport.verdict(moved).lines().findFirst().orElseThrow());
    }

    @Test
    void theDigestIsThatOfTheReplayedEventsAndOnlyThem() {
        String pod = "namespaces/default/pods/web-1";
        List<Event> log = List.of(ev("r", null, "r", "/apiserver", DELETION_REQUESTED, pod, 0));
        List<Event> later = List.of(ev("r", null, "r", "/apiserver", DELETION_REQUESTED, pod, 1));

        String digest = new Replay(null, T0, END, List.of(), log, List.of()).digest();

        assertEquals(digest, new Replay(null, T0, END, log, log, List.of()).digest(), "the recording is not in it");
        assertEquals(
                false, digest.equals(new Replay(null, T0, END, log, later, List.of()).digest()), "a time is in it");
        assertEquals(71, digest.length(), "sha256: and 64 hex digits");
    }

    private static Event ev(
            String id, String cause, String flow, String source, String type, String subject, long millis) {
        return new Event(
                id,
                source,
                type,
                subject,
                T0.plusMillis(millis),
                flow,
                cause,
                TraceContext.traceparent(TraceContext.traceIdFrom(flow), id),
                Json.MAPPER.createObjectNode());
    }
}
