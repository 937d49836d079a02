package io.podfall.replay;

import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.TraceContext;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static io.podfall.model.event.EventTypes.DELETION_REQUESTED;
import static io.podfall.model.event.EventTypes.OBJECT_MARKED_TERMINATING;
import static io.podfall.model.event.EventTypes.UPDATE_REQUESTED;
import static io.podfall.replay.Scenarios.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;

class ReplayReportTest {
    private static final Instant END = T0.plusSeconds(10);

    @Test
    void aFlowOnlyTheReplayHasIsOneOfTheFlowsThatDiverged() {
        List<Event> recorded = List.of(
                ev("r", null, "r", "/apiserver", DELETION_REQUESTED, "namespaces/default/pods/web-1", 0),
                ev("m", "r", "r", "/apiserver", OBJECT_MARKED_TERMINATING, "namespaces/default/pods/web-1", 2));
        List<Event> replayed = new ArrayList<>(recorded);
        replayed.add(ev("l", null, "l", "/kubelet/node-1", UPDATE_REQUESTED, "namespaces/kube-node-lease/leases/node-1", 5));

        Replay replay = new Replay(null, T0, END, recorded, replayed,
                Divergences.between(recorded, replayed, Duration.ofMillis(100)));

        assertEquals("diverged: 1 divergences in 1 of 2 flows from " + T0 + " to " + END + "\n", ReplayReport.verdict(replay));
        Replay same = new Replay(null, T0, END, recorded, recorded, List.of());
        assertEquals("reproduced: no divergence in 1 flows from " + T0 + " to " + END + "\n", ReplayReport.verdict(same));
    }

    private static Event ev(String id, String cause, String flow, String source, String type, String subject, long millis) {
        return new Event(id, source, type, subject, T0.plusMillis(millis), flow, cause,
                TraceContext.traceparent(TraceContext.traceIdFrom(flow), id), Json.MAPPER.createObjectNode());
    }
}
