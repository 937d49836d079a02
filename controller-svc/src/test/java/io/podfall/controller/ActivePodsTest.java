package io.podfall.controller;

import static io.podfall.controller.testing.ApiServerFacts.T0;
import static io.podfall.controller.testing.ReplicaSets.aReplicaSet;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.podfall.controller.testing.ReplicaPods;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class ActivePodsTest {
    private static final ReplicaSet RS = withUid(aReplicaSet("web").build());

    private static ReplicaSet withUid(ReplicaSet rs) {
        rs.getMetadata().setUid("uid-web");
        return rs;
    }

    private static ReplicaPods pod(String name) {
        return ReplicaPods.aPodOf(RS, name);
    }

    /** The names in deletion order, with these ranks, a day after T0. */
    private static List<String> order(Map<String, Integer> ranks, CachedPod... pods) {
        return Stream.of(pods)
                .sorted(ActivePods.deletionOrder(ranks, T0.plus(Duration.ofDays(1))))
                .map(CachedPod::name)
                .toList();
    }

    @Test
    void terminatingAndFinishedPodsAreNotActive() {
        assertTrue(ActivePods.isActive(pod("a").ready(T0).cached()));
        assertFalse(ActivePods.isActive(pod("a").ready(T0).terminating(T0).cached()));
        assertFalse(ActivePods.isActive(pod("a").inPhase("Succeeded").cached()));
        assertFalse(ActivePods.isActive(pod("a").inPhase("Failed").cached()));
    }

    @Test
    void availableMeansReadyForLongerThanMinReadySeconds() {
        CachedPod ready = pod("a").ready(T0).cached();
        assertTrue(ActivePods.isAvailable(ready, 0, T0));
        assertFalse(ActivePods.isAvailable(ready, 10, T0.plusSeconds(10)), "strictly longer");
        assertTrue(ActivePods.isAvailable(ready, 10, T0.plusSeconds(11)));
        assertFalse(ActivePods.isAvailable(pod("b").inPhase("Running").cached(), 0, T0));
    }

    @Test
    void phaseThenReadinessThenDeletionCost() {
        assertEquals(
                List.of("pending", "running", "ready-costly", "ready"),
                order(
                        Map.of(),
                        pod("ready").onNode("n").ready(T0).cached(),
                        pod("ready-costly")
                                .onNode("n")
                                .ready(T0)
                                .deletionCost(-5)
                                .cached(),
                        pod("running").onNode("n").inPhase("Running").cached(),
                        pod("pending").onNode("n").cached()));
    }

    @Test
    void aDoubledUpNodeLosesAPodFirst() {
        assertEquals(
                List.of("crowded", "alone"),
                order(
                        Map.of("uid-crowded", 3, "uid-alone", 1),
                        pod("alone").onNode("n1").ready(T0).cached(),
                        pod("crowded").onNode("n2").ready(T0).cached()));
    }

    @Test
    void readyForLessTimeThenMoreRestartsThenNewerGoFirst() {
        assertEquals(
                List.of("ready-lately", "ready-long"),
                order(
                        Map.of(),
                        pod("ready-long").onNode("n").ready(T0).cached(),
                        pod("ready-lately")
                                .onNode("n")
                                .ready(T0.plus(Duration.ofHours(23)))
                                .cached()));
        assertEquals(
                List.of("restarted", "steady"),
                order(
                        Map.of(),
                        pod("steady").onNode("n").ready(T0).cached(),
                        pod("restarted").onNode("n").ready(T0).restarts(4).cached()));
        assertEquals(
                List.of("new", "old"),
                order(
                        Map.of(),
                        pod("old")
                                .onNode("n")
                                .ready(T0)
                                .createdAt(T0.minus(Duration.ofDays(30)))
                                .cached(),
                        pod("new")
                                .onNode("n")
                                .ready(T0)
                                .createdAt(T0.plus(Duration.ofHours(23)))
                                .cached()));
    }

    @Test
    void agesOnTheSameLogarithmicStepAreEqualAndTheUidDecides() {
        assertEquals(
                List.of("a", "b"),
                order(
                        Map.of(),
                        pod("b").onNode("n")
                                .ready(T0)
                                .createdAt(T0.plusSeconds(2))
                                .cached(),
                        pod("a").onNode("n").ready(T0).createdAt(T0).cached()));
    }
}
