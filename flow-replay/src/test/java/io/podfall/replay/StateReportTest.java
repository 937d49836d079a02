package io.podfall.replay;

import io.podfall.model.event.Event;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static io.podfall.replay.Scenarios.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StateReportTest {

    @Test
    void theStateAtAMomentOfTheLogIsWhatTheCoresHeldWhenTheyGotThere() {
        List<Event> log = Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log();
        Instant midGrace = T0.plusSeconds(12);
        Engine there = new Engine(Scenarios.node1());
        there.schedule(Scenarios.twoPodsDeleted());
        there.runUntil(midGrace);

        String text = StateReport.text(StateReport.rebuild(log, midGrace));

        assertEquals(StateReport.text(there), text);
        List<String> lines = text.lines().toList();
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("  namespaces/default/pods/stubborn phase=Running node=node-1 ")
                && l.contains(" deletionTimestamp=2026-03-01T10:00:15Z grace=5s")), text);
        assertTrue(lines.stream().noneMatch(l -> l.contains("pods/graceful phase")), "removed at 10.5 s: " + text);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("  namespaces/default/pods/stubborn uid=") && l.contains(" TerminatingPod grace=5s ")
                && l.endsWith(" sandbox=READY app=RUNNING")), text);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("  node-1 namespaces/default/pods/stubborn sandbox READY ")
                && l.endsWith(" app=RUNNING signalled at 2026-03-01T10:00:10.001Z")), text);
        assertTrue(lines.stream().noneMatch(l -> l.startsWith("  node-1 namespaces/default/pods/graceful")), text);
    }

    @Test
    void atTheEndEveryPodIsGoneFromEveryComponent() {
        List<Event> log = Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log();

        String text = StateReport.text(StateReport.rebuild(log, Replay.end(log)));

        assertTrue(text.contains("\nruntime: 0 sandboxes\n"), text);
        assertTrue(text.lines().noneMatch(l -> l.contains("/pods/")), text);
    }
}
