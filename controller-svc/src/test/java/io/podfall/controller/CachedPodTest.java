package io.podfall.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.model.Json;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CachedPodTest {
    private static CachedPod of(String json) {
        return CachedPod.of(Json.read(json.getBytes()));
    }

    @Test
    void readsWhatTheControllerCountsAndRanksBy() {
        CachedPod pod = of("""
                {"metadata":{"name":"web-a","uid":"u-a","labels":{"app":"web"},"creationTimestamp":"2026-03-01T10:00:00Z",
                             "deletionTimestamp":"2026-03-01T10:05:00Z",
                             "annotations":{"controller.kubernetes.io/pod-deletion-cost":"-7"},
                             "ownerReferences":[{"kind":"Deployment","uid":"u-d"},
                                                {"kind":"ReplicaSet","uid":"u-rs","controller":true}]},
                 "spec":{"nodeName":"node-1","containers":[{"name":"app"}]},
                 "status":{"phase":"Running",
                           "conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-03-01T10:01:00.5Z"}],
                           "containerStatuses":[{"restartCount":2},{"restartCount":5}]}}
                """);

        assertEquals(
                new CachedPod(
                        "u-a",
                        "web-a",
                        "u-rs",
                        Map.of("app", "web"),
                        "node-1",
                        "Running",
                        true,
                        true,
                        Instant.parse("2026-03-01T10:01:00.5Z"),
                        -7,
                        5,
                        Instant.parse("2026-03-01T10:00:00Z")),
                pod);
    }

    @Test
    void podsCreatedAndReadyInTheSameSecondShareItsInstant() {
        String pod = """
                {"metadata":{"name":"%s","uid":"%s","creationTimestamp":"2026-03-01T10:00:00Z"},
                 "status":{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-03-01T10:00:02Z"}]}}
                """;
        CachedPod a = of(pod.formatted("web-a", "u-a"));
        CachedPod b = of(pod.formatted("web-b", "u-b"));

        assertSame(a.created(), b.created());
        assertSame(a.readySince(), b.readySince());
        assertEquals(Instant.parse("2026-03-01T10:00:02Z"), b.readySince());
    }

    @Test
    void aPodControlledByAnotherKindHasNoReplicaSetAndAnUnscheduledOneNoNode() {
        CachedPod pod = of("""
                {"metadata":{"name":"job-a","uid":"u-j","ownerReferences":[{"kind":"Job","uid":"u-job","controller":true}]},
                 "spec":{},"status":{"phase":"Pending"}}
                """);

        assertNull(pod.controllerUid());
        assertEquals("", pod.nodeName());
        assertFalse(pod.terminating());
        assertNull(pod.created());
    }

    @Test
    void aReadyConditionWithoutItsTimeIsReadySinceNobodyKnowsAndABadCostIsZero() {
        CachedPod pod = of("""
                {"metadata":{"name":"a","uid":"u","annotations":{"controller.kubernetes.io/pod-deletion-cost":"cheap"}},
                 "status":{"conditions":[{"type":"Ready","status":"True"}]}}
                """);

        assertTrue(pod.ready());
        assertNull(pod.readySince());
        assertEquals(0, pod.deletionCost());
        assertNull(pod.phase());
    }
}
