package io.podfall.cli.analysis;

import static io.podfall.cli.analysis.TrafficLog.endpoint;
import static io.podfall.model.traffic.RequestCounts.REFUSED;
import static io.podfall.model.traffic.RequestCounts.RESET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.cli.analysis.Check.Finding;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * stats, timeline and check over a log with the clients' requests: Service default/web with pods web-1 (deleted at
 * +1000 ms, grace 5, SIGTERM at +1076, exits 1 s later) and web-2 (kept), behind node-1's and node-2's rules. node-1's
 * kube-proxy drops web-1 at +1300 in the deletion's flow (the sync that followed the pod's marking), node-2's at +2500
 * in a flow of its own. Windows of 1 s: before the delete web-1 failed one request (a reset: not the deletion's); in
 * [+1000, +2000) 4 + 3 refused on the two nodes; in [+2000, +3000) 1 reset, and node-2 had 2 requests with no endpoint.
 */
class TrafficAnalysisTest {
    private final PodLog web1 = new PodLog("default", "web-1", "node-1", "10.244.1.2");
    private final PodLog web2 = new PodLog("default", "web-2", "node-2", "10.244.2.2");
    private final TrafficLog traffic = new TrafficLog();
    private Event marked;
    private Event sigterm;
    private Event node1Drop;
    private Event node2Drop;

    private List<Event> log(boolean failures) {
        web1.created(0);
        web2.created(0);
        web1.deleted(1_000, 5, 1_000, false);
        marked = first(web1, EventTypes.OBJECT_MARKED_TERMINATING);
        sigterm = first(web1, EventTypes.CONTAINER_SIGNALLED);
        List<Event> log = new ArrayList<>();
        log.addAll(web1.events);
        log.addAll(web2.events);
        log.add(traffic.rulesSynced(null, 500, "node-1", web1, web2));
        log.add(traffic.rulesSynced(null, 500, "node-2", web1, web2));
        node1Drop = traffic.rulesSynced(marked, 1_300, "node-1", web2);
        node2Drop = traffic.rulesSynced(null, 2_500, "node-2", web2);
        log.add(node1Drop);
        log.add(node2Drop);
        log.add(traffic.counted(0, 1_000, "node-1", 0, endpoint(web1, 10), endpoint(web2, 10)));
        log.add(traffic.counted(0, 1_000, "node-2", 0, endpoint(web1, 0, RESET, 1)));
        if (failures) {
            log.add(traffic.counted(1_000, 2_000, "node-1", 0, endpoint(web1, 5, REFUSED, 4), endpoint(web2, 9)));
            log.add(traffic.counted(1_000, 2_000, "node-2", 0, endpoint(web1, 0, REFUSED, 3)));
            log.add(traffic.counted(2_000, 3_000, "node-1", 0, endpoint(web1, 0, RESET, 1), endpoint(web2, 10)));
            log.add(traffic.counted(2_000, 3_000, "node-2", 2));
        } else {
            log.add(traffic.counted(1_000, 2_000, "node-1", 0, endpoint(web1, 5), endpoint(web2, 9)));
        }
        log.sort(Comparator.comparing(Event::time));
        return log;
    }

    private static Event first(PodLog pod, String type) {
        return pod.events.stream().filter(e -> e.is(type)).findFirst().orElseThrow();
    }

    @Test
    void statsCountTheRequestsOverallPerServiceAndTheDeletionsShareAfterItWasAskedFor() {
        Stats s = Stats.of(log(true));
        Requests.Tally all = s.requests().all();
        assertEquals(44, all.succeeded());
        assertEquals(Map.of(REFUSED, 7L, RESET, 2L, "no-endpoints", 2L), all.failedBy());
        assertEquals(
                List.of("default/web"), List.copyOf(s.requests().byService().keySet()));
        assertEquals(1, s.requests().broken().size());
        Requests.Broken broken = s.requests().broken().get(0);
        assertEquals("default/web-1", broken.pod());
        assertEquals("del-web-1", broken.correlationId());
        // the reset before the delete is not the deletion's
        assertEquals(Map.of(REFUSED, 7L, RESET, 1L), broken.failed().failedBy());

        String text = s.render();
        assertTrue(
                text.contains("requests: 55 sent, 44 succeeded, 11 failed (2 no-endpoints, 7 refused, 2 reset)"), text);
        assertTrue(text.contains("  default/web: 55 sent, 44 succeeded, 11 failed"), text);
        assertTrue(text.contains("deletions that broke requests: 1"), text);
        assertTrue(text.contains("  default/web-1 (flow del-web-1): 8 failed (7 refused, 1 reset)"), text);

        JsonNode json = s.json().path("requests");
        assertEquals(55, json.path("sent").asLong());
        assertEquals(7, json.path("failedBy").path(REFUSED).asLong());
        assertEquals(
                11, json.path("services").path("default/web").path("failed").asLong());
        JsonNode deletion = json.path("deletions").path(0);
        assertEquals("default/web-1", deletion.path("pod").asText());
        assertEquals(8, deletion.path("failed").asLong());
        assertEquals(1, deletion.path("failedBy").path(RESET).asLong());
    }

    @Test
    void statsHaveNoRequestsSectionWithoutCountedRequests() {
        List<Event> log = new ArrayList<>(web1.created(0).deleted(1_000, 5, 1_000, false).events);
        Stats s = Stats.of(log);
        assertNull(s.requests());
        assertFalse(s.render().contains("requests:"));
        assertTrue(s.json().path("requests").isMissingNode());
    }

    @Test
    void statsWithRequestsButNoFailureNameNoDeletion() {
        Stats s = Stats.of(log(false));
        assertEquals(List.of(), s.requests().broken());
        assertTrue(s.render().contains("deletions that broke requests: 0"), s.render());
    }

    @Test
    void theTimelineShowsEachNodesDropOfThePodWithItsLagAfterSigtermAndTheFailedRequestsInTimeOrder() {
        List<Event> log = log(true);
        Timeline t = Timeline.of(log, "del-web-1");
        List<Timeline.Step> drops = t.steps().stream()
                .filter(s -> s.type().equals(EventTypes.PROXY_RULES_SYNCED))
                .toList();
        assertEquals(2, drops.size());
        assertEquals(
                "node-1 dropped web-1 from its rules for web, +224 ms after SIGTERM",
                drops.get(0).detail());
        assertEquals(300, drops.get(0).offsetMillis());
        assertEquals("proxy/node-2", drops.get(1).component());
        assertEquals(
                "node-2 dropped web-1 from its rules for web, +1424 ms after SIGTERM",
                drops.get(1).detail());

        List<Timeline.Step> requests = t.steps().stream()
                .filter(s -> s.type().equals(EventTypes.REQUESTS_COUNTED))
                .toList();
        assertEquals(
                List.of(
                        "requests: 7 refused (node-1, node-2) in [+0, +1000) ms",
                        "requests: 1 reset (node-1) in [+1000, +2000) ms"),
                requests.stream().map(Timeline.Step::detail).toList());
        assertEquals(web1.subject, requests.get(0).subject());

        List<Long> offsets = t.steps().stream().map(Timeline.Step::offsetMillis).toList();
        assertEquals(offsets.stream().sorted().toList(), offsets, "in time order: " + t.render());
        assertTrue(t.render().contains("requests: 7 refused (node-1, node-2)"), t.render());
    }

    @Test
    void aDropOfThePodBeforeItsDeletionIsNotTheDeletions() {
        List<Event> log = log(true);
        // node-1 dropped web-1 once before the delete (unready) and took it back
        log.add(traffic.rulesSynced(null, 700, "node-1", web2));
        log.add(traffic.rulesSynced(null, 800, "node-1", web1, web2));
        log.sort(Comparator.comparing(Event::time));
        List<Long> drops = Timeline.of(log, "del-web-1").steps().stream()
                .filter(s -> s.type().equals(EventTypes.PROXY_RULES_SYNCED))
                .map(Timeline.Step::offsetMillis)
                .toList();
        assertEquals(List.of(300L, 1_500L), drops);
    }

    @Test
    void aPodDeletedTwiceHasItsFailuresCountedOnceForItsFirstDeletion() {
        List<Event> log = log(true);
        PodLog again = new PodLog("default", "web-1", "node-1", "10.244.1.2");
        again.request("del2-web-1", 1_500, EventTypes.DELETION_REQUESTED, PodLog.data("resource", "pods"));
        again.markedTerminating(1_510, 0);
        log.addAll(again.events);
        log.sort(Comparator.comparing(Event::time));
        List<Requests.Broken> broken = Stats.of(log).requests().broken();
        assertEquals(1, broken.size());
        assertEquals("del-web-1", broken.get(0).correlationId());
        assertEquals(8, broken.get(0).failed().failed());
    }

    @Test
    void statsSinceAndUntilCountTheWindowsThatOverlapThem() {
        Stats.Collector c = new Stats.Collector(PodLog.at(2_000), null);
        log(true).forEach(c);
        // [+2000, +3000): 10 succeeded, 1 reset, 2 no-endpoints
        assertEquals(
                13,
                c.result().requests().all().succeeded()
                        + c.result().requests().all().failed());
        assertEquals(List.of(), c.result().requests().broken(), "the deletion was asked for before --since");
    }

    @Test
    void aTimelineWithoutTrafficIsTheFlowAlone() {
        List<Event> log = web1.created(0).deleted(1_000, 5, 1_000, false).events;
        Timeline t = Timeline.of(log, "del-web-1");
        assertEquals(
                log.stream().filter(e -> e.correlationId().equals("del-web-1")).count(),
                t.steps().size());
    }

    /** The Endpoints update stored after SIGTERM (the classic race), with the controller's patch that caused it. */
    private List<Event> inEndpointsAfterSigterm(boolean failures) {
        List<Event> log = log(failures);
        log.addAll(PodLog.endpointsPatched(marked, 1_020, 1_090));
        log.sort(Comparator.comparing(Event::time));
        return log;
    }

    @Test
    void checkSaysHowManyRequestsFailedAfterTheSigtermAndWhy() {
        List<Finding> f = InEndpointsAfterSigterm.of(inEndpointsAfterSigterm(true));
        assertEquals(1, f.size());
        assertEquals(Check.Level.WARNING, f.get(0).level());
        assertEquals("in-endpoints-after-sigterm", f.get(0).rule());
        assertTrue(
                f.get(0).message().endsWith(": 8 requests to the pod failed after its SIGTERM (7 refused, 1 reset)"),
                f.get(0).message());
        assertEquals(sigterm.id(), f.get(0).eventIds().get(1));
    }

    @Test
    void checkNotesThatNoRequestFailedWhenNoneDid() {
        List<Finding> f = InEndpointsAfterSigterm.of(inEndpointsAfterSigterm(false));
        assertEquals(1, f.size());
        assertEquals(Check.Level.NOTE, f.get(0).level());
        assertTrue(
                f.get(0).message().endsWith(": no request to the pod failed after its SIGTERM"),
                f.get(0).message());
        assertFalse(Check.hasErrors(f));
    }
}
