package io.podfall.cli.analysis;

import static io.podfall.cli.analysis.PodLog.data;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatsTest {

    /**
     * a: grace 5, exits 1 s after SIGTERM; b: grace 5, exits after 3 s; c: grace 2, ignores SIGTERM and is killed; d:
     * never gets past terminating; e: a delete the API server rejected.
     */
    static List<Event> log() {
        List<Event> log = new ArrayList<>();
        log.addAll(new PodLog("a").deleted(1_000, 5, 1_000, false).events);
        log.addAll(new PodLog("b").deleted(10_000, 5, 3_000, false).events);
        log.addAll(new PodLog("c").deleted(20_000, 2, 0, true).events);
        PodLog d = new PodLog("d");
        d.delete(30_000, 30);
        d.markedTerminating(30_017, 30);
        log.addAll(d.events);
        PodLog e = new PodLog("e");
        e.delete(40_000, 5);
        e.then(40_003, "/apiserver", EventTypes.REQUEST_REJECTED, data("status", data("reason", "NotFound")));
        log.addAll(e.events);
        return log;
    }

    @Test
    void measuresEveryDeletionAndItsPhasesWithNearestRankPercentiles() {
        Stats s = Stats.of(log());
        assertEquals(4, s.flows());
        assertEquals(3, s.completed());
        assertEquals(1, s.rejected());
        assertEquals(1, s.killed());
        assertEquals(0.25, s.sigkillRate());
        // totals 1201, 3201 and 2201 (c: killed at 51 + 2000 + 25 ms, removed 125 ms later)
        assertEquals(new Stats.Summary(3, 2201, 3201, 3201, 3201), s.durations().get(Stats.TOTAL));
        assertEquals(new Stats.Summary(4, 17, 17, 17, 17), s.durations().get(Stats.TO_TERMINATING));
        assertEquals(new Stats.Summary(3, 59, 59, 59, 59), s.durations().get(Stats.TO_SIGTERM));
        assertEquals(new Stats.Summary(3, 2000, 3000, 3000, 3000), s.durations().get(Stats.TO_EXIT));
        assertEquals(new Stats.Summary(3, 36, 36, 36, 36), s.durations().get(Stats.TO_SANDBOX_STOPPED));
        assertEquals(new Stats.Summary(3, 89, 89, 89, 89), s.durations().get(Stats.TO_REMOVED));
        assertEquals(
                new Stats.Summary(4, 5000, 30000, 30000, 30000), s.durations().get(Stats.GRACE_REQUESTED));
        assertEquals(new Stats.Summary(3, 2000, 3000, 3000, 3000), s.durations().get(Stats.GRACE_HONOURED));
    }

    /**
     * Two pods of one Deployment deleted in its cascade (one correlation): each is a deletion of its own, and the
     * endpoints controller's patch, caused by a pod's ObjectMarkedTerminating, tells when it left the endpoints: web-1
     * before its SIGTERM, web-2 after it.
     */
    @Test
    void aCascadeIsOneDeletionAPodAndTheEndpointsUpdateIsSetAgainstSigterm() {
        Event request = Event.request(
                "del-web",
                "/apiserver",
                EventTypes.DELETION_REQUESTED,
                "namespaces/default/deployments/web",
                PodLog.at(0),
                null,
                data());
        List<Event> log = new ArrayList<>(List.of(request));
        for (String[] pod : new String[][] {{"web-1", "40"}, {"web-2", "90"}}) {
            String subject = "namespaces/default/pods/" + pod[0];
            String endpoints = "namespaces/default/endpoints/web";
            Event delete = Event.causedBy(
                    request.asCause(),
                    "del-web",
                    log.size(),
                    "/controller/garbagecollector",
                    EventTypes.DELETION_REQUESTED,
                    subject,
                    PodLog.at(10),
                    data("options", data()));
            Event marked = Event.causedBy(
                    delete.asCause(),
                    "del-web",
                    0,
                    "/apiserver",
                    EventTypes.OBJECT_MARKED_TERMINATING,
                    subject,
                    PodLog.at(20),
                    data());
            Event patch = Event.causedBy(
                    marked.asCause(),
                    "del-web",
                    0,
                    "/controller/endpoint",
                    EventTypes.PATCH_REQUESTED,
                    endpoints,
                    PodLog.at(25),
                    data());
            Event updated = Event.causedBy(
                    patch.asCause(),
                    "del-web",
                    0,
                    "/apiserver",
                    EventTypes.OBJECT_UPDATED,
                    endpoints,
                    PodLog.at(Long.parseLong(pod[1])),
                    data());
            Event sigterm = Event.causedBy(
                    marked.asCause(),
                    "del-web",
                    1,
                    "/runtime/node-1",
                    EventTypes.CONTAINER_SIGNALLED,
                    subject,
                    PodLog.at(60),
                    data("signal", "SIGTERM"));
            log.addAll(List.of(delete, marked, patch, sigterm, updated));
        }
        Stats s = Stats.of(log);
        assertEquals(2, s.flows(), "one deletion a pod, not one for the Deployment's request");
        assertEquals(2, s.inEndpoints());
        assertEquals(1, s.endpointsAfterSigterm(), "web-2's endpoints changed 30 ms after its SIGTERM");
        assertEquals(new Stats.Summary(2, 20, 70, 70, 70), s.durations().get(Stats.TO_ENDPOINTS));
        assertTrue(
                s.render().contains("still in a Service's endpoints after SIGTERM: 1/2 of the pods that were in one"));
    }

    @Test
    void anEvictionIsADeletionWithTheGraceOfItsDeleteOptions() {
        PodLog p = new PodLog("drained");
        p.request(
                "ev-drained",
                0,
                EventTypes.EVICTION_REQUESTED,
                data("eviction", data("deleteOptions", data("gracePeriodSeconds", 7))));
        p.markedTerminating(20, 9); // what the API server set, were the eviction's own grace not read
        p.removed(1_500);
        Stats s = Stats.of(p.events);
        assertEquals(1, s.flows());
        assertEquals(1, s.completed());
        assertEquals(new Stats.Summary(1, 7000, 7000, 7000, 7000), s.durations().get(Stats.GRACE_REQUESTED));
    }

    @Test
    void anImagesOwnStopSignalCountsAsTheStopSignal() {
        PodLog p = new PodLog("nginx");
        p.delete(0, 30);
        p.markedTerminating(17, 30);
        p.signalled(76, "SIGQUIT");
        p.exited(1_076, 131);
        Stats s = Stats.of(p.events);
        assertEquals(new Stats.Summary(1, 59, 59, 59, 59), s.durations().get(Stats.TO_SIGTERM));
        assertEquals(new Stats.Summary(1, 1000, 1000, 1000, 1000), s.durations().get(Stats.GRACE_HONOURED));
        assertEquals(0, s.killed());
    }

    @Test
    void percentilesAreValuesThatOccurred() {
        List<Long> hundred = new ArrayList<>();
        for (long i = 100; i >= 1; i--) {
            hundred.add(i);
        }
        assertEquals(new Stats.Summary(100, 50, 90, 99, 100), Stats.Summary.of(hundred));
        assertEquals(new Stats.Summary(1, 7, 7, 7, 7), Stats.Summary.of(List.of(7L)));
        assertEquals(new Stats.Summary(0, 0, 0, 0, 0), Stats.Summary.of(List.of()));
    }

    @Test
    void rendersATableAndJson() {
        Stats s = Stats.of(log());
        assertEquals("""
                deletion flows: 4 (completed 3, incomplete 1; rejected requests 1)
                SIGKILL rate: 1/4 (25.0%)
                still in a Service's endpoints after SIGTERM: 0/0 of the pods that were in one

                in ms                                     n        p50        p90        p99        max
                total (request -> removed)                3       2201       3201       3201       3201
                request -> terminating                    4         17         17         17         17
                terminating -> SIGTERM                    3         59         59         59         59
                terminating -> out of endpoints           0          -          -          -          -
                SIGTERM -> exit                           3       2000       3000       3000       3000
                exit -> sandbox stopped                   3         36         36         36         36
                sandbox stopped -> removed                3         89         89         89         89
                grace requested                           4       5000      30000      30000      30000
                grace honoured (SIGTERM -> exit/kill)     3       2000       3000       3000       3000
                """, s.render());
        var json = s.json();
        assertEquals(0.25, json.path("sigkillRate").asDouble());
        assertEquals(2201, json.path("millis").path("total").path("p50").asLong());
        assertEquals(
                59, json.path("millis").path("terminatingToSIGTERM").path("p99").asLong());
        assertEquals(3000, json.path("millis").path("graceHonoured").path("max").asLong());
    }

    @Test
    void aKillThatComesAfterThePodIsGoneFromTheNodeStillCounts() {
        // as a restarted runtime repeats a kill timer: SIGKILL and exit after SandboxRemoved
        PodLog p = new PodLog("late").deleted(1_000, 5, 500, false);
        p.signalled(9_000, "SIGKILL");
        p.exited(9_000, 137);
        Stats s = Stats.of(p.events);
        assertEquals(1, s.killed());
        assertEquals(new Stats.Summary(1, 7924, 7924, 7924, 7924), s.durations().get(Stats.GRACE_HONOURED));
        assertEquals(
                new Stats.Summary(1, 7924, 7924, 7924, 7924), s.durations().get(Stats.TO_EXIT), "to the last exit");
    }

    @Test
    void aForceDeletionIsMeasuredUpToItsContainersExitThoughThePodLeftTheStoreFirst() {
        PodLog p = new PodLog("f");
        p.delete(0, 0);
        p.removed(5);
        p.signalled(40, "SIGTERM");
        p.exited(1_040, 143);
        p.sandboxStopped(1_060);
        p.then(1_100, "/runtime/node-1", EventTypes.SANDBOX_REMOVED, data("podUid", p.uid));
        Stats.Collector c = new Stats.Collector();
        p.events.forEach(c);
        assertEquals(1, c.deletions());
        Stats s = c.result();
        assertEquals(new Stats.Summary(1, 5, 5, 5, 5), s.durations().get(Stats.TOTAL));
        assertEquals(new Stats.Summary(1, 1000, 1000, 1000, 1000), s.durations().get(Stats.GRACE_HONOURED));
        assertEquals(new Stats.Summary(1, 20, 20, 20, 20), s.durations().get(Stats.TO_SANDBOX_STOPPED));
    }

    @Test
    void aTimeRangeChoosesDeletionsByTheirRequestAndMeasuresEachToItsEnd() {
        PodLog early = new PodLog("early");
        early.delete(0, 0);
        early.removed(5);
        PodLog inside = new PodLog("inside");
        inside.delete(10_000, 0);
        inside.removed(10_000 + 70_000);
        PodLog late = new PodLog("late");
        late.delete(20_000, 0);
        late.removed(20_005);
        Stats.Collector c = new Stats.Collector(PodLog.at(10_000), PodLog.at(20_000));
        java.util.stream.Stream.of(early, inside, late)
                .flatMap(p -> p.events.stream())
                .sorted(java.util.Comparator.comparing(Event::time))
                .forEach(c);
        assertEquals(1, c.deletions(), "the request at the start is in, the one at the end is not");
        assertEquals(
                new Stats.Summary(1, 70_000, 70_000, 70_000, 70_000),
                c.result().durations().get(Stats.TOTAL),
                "measured to its removal, after the range");
    }

    @Test
    void anEmptyLogHasNoFlows() {
        Stats s = Stats.of(List.of());
        assertEquals(0, s.flows());
        assertEquals(0.0, s.sigkillRate());
        assertTrue(s.render().contains("SIGKILL rate: 0/0 (0.0%)"));
        assertTrue(s.render().contains("total (request -> removed)                0          -"), s.render());
    }
}
