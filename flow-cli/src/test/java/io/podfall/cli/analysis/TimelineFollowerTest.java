package io.podfall.cli.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.model.event.Event;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TimelineFollowerTest {

    /** Feeds {@code history}, catches up, then feeds {@code live}: every line printed, in order. */
    static List<String> follow(TimelineFollower f, List<Event> history, List<Event> live) {
        List<String> lines = new ArrayList<>();
        history.forEach(e -> lines.addAll(f.accept(e)));
        lines.addAll(f.caughtUp());
        live.forEach(e -> lines.addAll(f.accept(e)));
        return lines;
    }

    @Test
    void theHistoryPrintsNothingButTheLatestDeletionAsItStandsThenEveryNewStep() {
        List<Event> done = new PodLog("old").deleted(0, 5, 100, false).events;
        List<Event> running = new PodLog("web-1").deleted(10_000, 5, 1_000, false).events;
        List<String> lines =
                follow(TimelineFollower.deletions(null), cat(done, running.subList(0, 3)), running.subList(3, 5));
        assertEquals(
                List.of(
                        "flow del-web-1",
                        "      +0 ms               request             apiserver       apiserver.DeletionRequested        "
                                + "namespaces/default/pods/web-1   grace=5s",
                        "     +17 ms       +17 ms  terminating         apiserver       apiserver.ObjectMarkedTerminating  "
                                + "namespaces/default/pods/web-1   "
                                + "deletionGracePeriodSeconds=5 deletionTimestamp=2026-11-29T10:00:15.017Z phase=Running",
                        "     +51 ms       +34 ms                      kubelet/node-1  kubelet.PodTerminationStarted      "
                                + "namespaces/default/pods/web-1   grace=5s",
                        "     +51 ms       +34 ms                      kubelet/node-1  runtime.StopContainerRequested     "
                                + "namespaces/default/pods/web-1   container=app timeout=5s",
                        "     +76 ms       +59 ms  SIGTERM             runtime/node-1  runtime.ContainerSignalled         "
                                + "namespaces/default/pods/web-1   container=app signal=SIGTERM"),
                lines);
    }

    @Test
    void stepsOfFlowsThatInterleaveEachPrintUnderTheirFlowsLine() {
        List<Event> a = new PodLog("a").deleted(0, 5, 100, false).events;
        List<Event> b = new PodLog("b").deleted(20, 5, 100, false).events;
        List<String> lines =
                follow(TimelineFollower.deletions(null), List.of(), List.of(a.get(0), a.get(1), b.get(0), a.get(2)));
        assertEquals(
                List.of("flow del-a", "+0 ms", "+17 ms", "flow del-b", "+0 ms", "flow del-a", "+51 ms"),
                lines.stream()
                        .map(l -> l.startsWith("flow")
                                ? l
                                : l.trim().substring(0, l.trim().indexOf(" ms") + 3))
                        .toList());
    }

    @Test
    void aPodOrACorrelationFollowsOnlyItsFlows() {
        List<Event> a = new PodLog("a").deleted(0, 5, 100, false).events;
        List<Event> b = new PodLog("b").deleted(20, 5, 100, false).events;
        List<Event> live = cat(a.subList(0, 2), b.subList(0, 2));
        assertEquals(
                List.of("flow del-b"),
                headers(follow(TimelineFollower.deletions("namespaces/default/pods/b"), List.of(), live)));
        assertEquals(
                3,
                follow(TimelineFollower.deletions("namespaces/default/pods/b"), List.of(), live)
                        .size());
        assertEquals(List.of("flow del-a"), headers(follow(TimelineFollower.correlation("del-a"), List.of(), live)));
        assertEquals(List.of(), follow(TimelineFollower.deletions("namespaces/default/pods/c"), List.of(), live));
    }

    @Test
    void aStepOfAFlowStartedBeforeFollowingCountsFromItsRequest() {
        List<Event> a = new PodLog("a").deleted(0, 5, 1_000, false).events;
        List<Event> b = new PodLog("b").deleted(500, 5, 1_000, false).events;
        // b is the latest when following begins; a's SIGTERM arrives afterwards and still counts from a's request
        List<String> lines = follow(TimelineFollower.deletions(null), List.of(a.get(0), b.get(0)), List.of(a.get(4)));
        assertEquals(List.of("flow del-b", "flow del-a"), headers(lines));
        assertEquals("+76 ms", lines.get(3).trim().substring(0, 6));
    }

    @Test
    void whatTheHistoryShowsIsWhatTimelineShows() {
        List<Event> log = cat(
                new PodLog("a").deleted(0, 5, 100, false).events, new PodLog("b").deleted(20_000, 2, 0, true).events);
        String followed = String.join("\n", follow(TimelineFollower.deletions(null), log, List.of())) + "\n";
        Timeline latest = Timeline.of(log, Timeline.latestDeletion(log, null).orElseThrow());
        assertEquals(latest.steps().size() + 1, followed.lines().count());
        assertEquals(latest.render().replaceAll(" +", " "), followed.replaceAll(" +", " "));
    }

    @Test
    void columnsGrowForAWiderCellAndNeverShrink() {
        PodLog p = new PodLog("a");
        p.delete(0, 5);
        p.then(5, "/controller/garbagecollector", "apiserver.ObjectMarkedTerminating", PodLog.data());
        p.then(9, "/apiserver", "apiserver.ObjectRemoved", PodLog.data());
        List<String> lines = follow(TimelineFollower.deletions(null), List.of(), p.events);
        assertTrue(
                lines.get(1)
                        .startsWith("      +0 ms               request             apiserver       "
                                + "apiserver.DeletionRequested "),
                lines.get(1));
        assertTrue(
                lines.get(3)
                        .startsWith("      +9 ms        +4 ms  gone                apiserver                    "
                                + "apiserver.ObjectRemoved "),
                lines.get(3));
    }

    private static List<String> headers(List<String> lines) {
        return lines.stream().filter(l -> l.startsWith("flow ")).toList();
    }

    @SafeVarargs
    static List<Event> cat(List<Event>... parts) {
        List<Event> all = new ArrayList<>();
        for (List<Event> p : parts) {
            all.addAll(p);
        }
        return all;
    }
}
