package io.podfall.cli.analysis;

import static io.podfall.cli.analysis.PodLog.at;
import static io.podfall.cli.analysis.PodLog.data;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.cli.analysis.Check.Finding;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterIncidentsTest {
    private static final String FULL = "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are "
            + "available: 1 No preemption victims found for incoming pod.";

    /** A log of API server facts, each an uncaused event at an explicit time. */
    private static final class Facts {
        final List<Event> events = new ArrayList<>();
        private int seq;

        Event fact(long ms, String type, String resource, String subject, Map<String, Object> object) {
            return add(Event.request(
                    "f" + seq++,
                    "/apiserver",
                    type,
                    subject,
                    at(ms),
                    null,
                    data("resource", resource, "object", object)));
        }

        Event pod(
                long ms,
                String type,
                String name,
                Map<String, Object> spec,
                Map<String, Object> status,
                boolean marked) {
            Map<String, Object> meta = marked
                    ? data(
                            "name",
                            name,
                            "namespace",
                            "default",
                            "uid",
                            "uid-" + name,
                            "deletionTimestamp",
                            at(ms).toString())
                    : data("name", name, "namespace", "default", "uid", "uid-" + name);
            return fact(
                    ms,
                    type,
                    "pods",
                    Subjects.of("default", "pods", name),
                    data("metadata", meta, "spec", spec, "status", status));
        }

        Event node(long ms, String name, String ready) {
            return fact(
                    ms,
                    EventTypes.OBJECT_UPDATED,
                    "nodes",
                    Subjects.of("", "nodes", name),
                    data(
                            "metadata", data("name", name, "uid", "uid-" + name),
                            "status", data("conditions", List.of(data("type", "Ready", "status", ready)))));
        }

        Event add(Event e) {
            events.add(e);
            return e;
        }
    }

    private static Map<String, Object> on(String node) {
        return data("nodeName", node);
    }

    private static Map<String, Object> unschedulable(String message) {
        return data(
                "phase",
                "Pending",
                "conditions",
                List.of(data(
                        "type", "PodScheduled", "status", "False", "reason", "Unschedulable", "message", message)));
    }

    private static Map<String, Object> running() {
        return data("phase", "Running");
    }

    @Test
    void aReplacementPendingUntilTheOldPodIsGoneIsAWarningWithTheWait() {
        Facts log = new Facts();
        log.pod(0, EventTypes.OBJECT_CREATED, "old", on("node-1"), running(), false);
        Event marked = log.pod(1_000, EventTypes.OBJECT_MARKED_TERMINATING, "old", on("node-1"), running(), true);
        Event pending = log.pod(1_100, EventTypes.POD_STATUS_UPDATED, "new", data(), unschedulable(FULL), false);
        log.pod(31_000, EventTypes.OBJECT_REMOVED, "old", on("node-1"), data("phase", "Succeeded"), true);
        Event bound = log.pod(31_050, EventTypes.POD_BOUND, "new", on("node-1"), unschedulable(FULL), false);

        List<Finding> findings = ClusterIncidents.of(log.events);

        assertEquals(1, findings.size(), findings.toString());
        Finding f = findings.get(0);
        assertEquals("pending-while-terminating", f.rule());
        assertEquals("namespaces/default/pods/new", f.subject());
        assertTrue(
                f.message()
                        .startsWith("Pending 29950 ms for lack of room (\"" + FULL + "\") while 1 pod(s) were "
                                + "Terminating: default/old on node-1; then bound to node-1"),
                f.message());
        assertEquals(List.of(pending.id(), marked.id(), bound.id()), f.eventIds());
        Stats stats = Stats.of(log.events);
        assertEquals(1, stats.cluster().pendingWhileTerminating().n());
        assertEquals(29_950, stats.cluster().pendingWhileTerminating().max());
        assertTrue(
                stats.render().contains("pending for lack of room while pods were Terminating: 1 pods"),
                stats.render());
    }

    /** A pod that fits nowhere for another reason, or while nothing terminates, is no such incident. */
    @Test
    void aPodPendingForAnotherReasonOrWithNothingTerminatingIsNone() {
        Facts log = new Facts();
        log.pod(0, EventTypes.POD_STATUS_UPDATED, "alone", data(), unschedulable(FULL), false);
        log.pod(0, EventTypes.OBJECT_CREATED, "old", on("node-1"), running(), false);
        log.pod(1_000, EventTypes.OBJECT_MARKED_TERMINATING, "old", on("node-1"), running(), true);
        log.pod(
                1_100,
                EventTypes.POD_STATUS_UPDATED,
                "picky",
                data(),
                unschedulable("0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector."),
                false);
        assertEquals(List.of(), ClusterIncidents.of(log.events));
        assertTrue(Stats.of(log.events).render().startsWith("deletion flows"));
        assertTrue(!Stats.of(log.events).render().contains("lack of room"));
    }

    @Test
    void evictionsRefusedByABudgetAreCountedUntilOneGetsThrough() {
        Facts log = new Facts();
        String subject = Subjects.of("default", "pods", "web-1");
        String budget = "The disruption budget web needs 2 healthy pods and has 2 currently";
        List<String> refusals = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Event request = log.add(Event.request(
                    "ev" + i, "/apiserver", EventTypes.EVICTION_REQUESTED, subject, at(i * 5_000L), null, data()));
            refusals.add(log.add(Event.causedBy(
                            request.asCause(),
                            request.id(),
                            0,
                            "/apiserver",
                            EventTypes.REQUEST_REJECTED,
                            subject,
                            at(i * 5_000L + 3),
                            data(
                                    "status",
                                    data(
                                            "code",
                                            429,
                                            "reason",
                                            "TooManyRequests",
                                            "message",
                                            "Cannot evict pod as it would violate the pod's disruption budget.",
                                            "details",
                                            data(
                                                    "causes",
                                                    List.of(data("reason", "DisruptionBudget", "message", budget)))))))
                    .id());
        }
        Event allowed = log.add(
                Event.request("ev3", "/apiserver", EventTypes.EVICTION_REQUESTED, subject, at(15_000), null, data()));
        log.add(Event.causedBy(
                allowed.asCause(),
                allowed.id(),
                0,
                "/apiserver",
                EventTypes.OBJECT_MARKED_TERMINATING,
                subject,
                at(15_004),
                data("resource", "pods", "object", data())));

        List<Finding> findings = ClusterIncidents.of(log.events);

        assertEquals(1, findings.size(), findings.toString());
        Finding f = findings.get(0);
        assertEquals("eviction-refused", f.rule());
        assertEquals(
                "3 eviction(s) refused with 429 by a disruption budget (\"" + budget + "\"); evicted 15001 ms "
                        + "after the first refusal",
                f.message());
        List<String> ids = new ArrayList<>(refusals);
        ids.add(allowed.id());
        assertEquals(ids, f.eventIds());
        ClusterIncidents.Figures figures = Stats.of(log.events).cluster();
        assertEquals(3, figures.evictionsRefused());
        assertEquals(1, figures.podsRefused());
        assertEquals(15_001, figures.evictedAfterRefusal().max());
    }

    @Test
    void aPodTerminatingOnAnUnreachableNodeIsStuckUntilItsForceDelete() {
        Facts log = new Facts();
        log.pod(0, EventTypes.OBJECT_CREATED, "web", on("node-2"), running(), false);
        Event unknown = log.node(50_000, "node-2", "Unknown");
        Event marked = log.pod(60_000, EventTypes.OBJECT_MARKED_TERMINATING, "web", on("node-2"), running(), true);
        Event delete = log.add(Event.request(
                "gc",
                "/controller/podgc",
                EventTypes.DELETION_REQUESTED,
                Subjects.of("default", "pods", "web"),
                at(90_000),
                null,
                data()));
        log.pod(90_001, EventTypes.POD_STATUS_UPDATED, "web", on("node-2"), data("phase", "Failed"), true);
        Event removed = log.add(Event.causedBy(
                delete.asCause(),
                delete.id(),
                0,
                "/apiserver",
                EventTypes.OBJECT_REMOVED,
                delete.subject(),
                at(90_002),
                data(
                        "resource",
                        "pods",
                        "object",
                        data(
                                "metadata", data("name", "web", "namespace", "default", "uid", "uid-web"),
                                "spec", on("node-2")))));

        List<Finding> findings = ClusterIncidents.of(log.events);

        assertEquals(1, findings.size(), findings.toString());
        Finding f = findings.get(0);
        assertEquals("terminating-on-unreachable-node", f.rule());
        assertEquals(
                "Terminating 30002 ms on node-2 while the node was unreachable or gone; removed by a delete from "
                        + "/controller/podgc",
                f.message());
        assertEquals(List.of(marked.id(), removed.id()), f.eventIds());
        assertTrue(!f.eventIds().contains(unknown.id()));
    }

    @Test
    void aNodeThatComesBackEndsTheWaitAndAStuckPodAtTheEndIsStillReported() {
        Facts log = new Facts();
        log.pod(0, EventTypes.OBJECT_CREATED, "a", on("node-2"), running(), false);
        log.pod(1_000, EventTypes.OBJECT_MARKED_TERMINATING, "a", on("node-2"), running(), true);
        Event unknown = log.node(2_000, "node-2", "Unknown");
        log.node(12_000, "node-2", "True");
        log.pod(13_000, EventTypes.OBJECT_CREATED, "b", on("node-3"), running(), false);
        log.node(14_000, "node-3", "Unknown");
        log.pod(20_000, EventTypes.OBJECT_MARKED_TERMINATING, "b", on("node-3"), running(), true);
        log.node(25_000, "node-1", "True");

        List<Finding> findings = ClusterIncidents.of(log.events);

        assertEquals(2, findings.size(), findings.toString());
        assertEquals(
                "Terminating 10000 ms on node-2 while the node was unreachable or gone; node-2 came back "
                        + "(Ready True)",
                findings.get(0).message());
        assertEquals(unknown.id(), findings.get(0).eventIds().get(1));
        assertEquals(
                "Terminating 5000 ms on node-3 while the node was unreachable or gone; still Terminating at the "
                        + "end of the log",
                findings.get(1).message());
    }
}
