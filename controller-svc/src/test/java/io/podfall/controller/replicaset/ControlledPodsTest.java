package io.podfall.controller.replicaset;

import static io.podfall.controller.testing.ApiServerFacts.T0;
import static io.podfall.controller.testing.ReplicaSets.aReplicaSet;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.podfall.controller.ActivePods;
import io.podfall.controller.CachedPod;
import io.podfall.controller.testing.ReplicaPods;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The tallies of a ReplicaSet's pods stay what a walk over its pods counts, however the pods change. */
class ControlledPodsTest {
    private static final ReplicaSet WEB = withUid(aReplicaSet("web").build(), "uid-web");
    private static final ReplicaSet API = withUid(aReplicaSet("api").build(), "uid-api");
    private static final Map<String, String> TEMPLATE =
            WEB.getSpec().getTemplate().getMetadata().getLabels();

    private static ReplicaSet withUid(ReplicaSet rs, String uid) {
        rs.getMetadata().setUid(uid);
        return rs;
    }

    private final ReplicaSetState state = new ReplicaSetState();
    /** What the state should hold of WEB's pods, by uid. */
    private final Map<String, CachedPod> expected = new TreeMap<>();

    private void put(CachedPod pod) {
        state.putPod(pod);
        expected.put(pod.uid(), pod);
        assertTalliesOfWeb();
    }

    private void remove(CachedPod pod) {
        state.removePod(pod.uid());
        expected.remove(pod.uid());
        assertTalliesOfWeb();
    }

    /** Every tally against the same figure computed from the pods one by one, at times around their readiness. */
    private void assertTalliesOfWeb() {
        ControlledPods pods = state.podsControlledBy("uid-web");
        List<CachedPod> active =
                expected.values().stream().filter(ActivePods::isActive).toList();
        assertEquals(names(active), names(pods.active()), "the active pods, in uid order");
        assertEquals(active.size(), pods.activeCount());
        assertEquals(active.stream().filter(ActivePods::isReady).count(), pods.readyCount());
        assertEquals(
                active.stream()
                        .filter(p -> p.labels().entrySet().containsAll(TEMPLATE.entrySet()))
                        .count(),
                pods.fullyLabeled(TEMPLATE));
        for (int second = 0; second <= 12; second++) {
            Instant now = T0.plusSeconds(second);
            for (int minReadySeconds : new int[] {0, 5}) {
                assertEquals(
                        active.stream()
                                .filter(p -> ActivePods.isAvailable(p, minReadySeconds, now))
                                .count(),
                        pods.available(minReadySeconds, now),
                        "available at +" + second + "s, minReadySeconds " + minReadySeconds);
            }
            assertEquals(
                    active.stream()
                            .filter(p -> !ActivePods.isAvailable(p, 5, now))
                            .flatMap(p -> ActivePods.availableAfter(p, 5).stream())
                            .min(Instant::compareTo),
                    pods.nextAvailable(5, now),
                    "next available after +" + second + "s");
        }
    }

    private static List<String> names(List<CachedPod> pods) {
        return pods.stream().map(CachedPod::name).toList();
    }

    @Test
    void talliesFollowEveryChangeOfAPod() {
        put(ReplicaPods.aPodOf(WEB, "a").cached());
        put(ReplicaPods.aPodOf(WEB, "b").ready(T0.plusSeconds(1)).cached());
        put(ReplicaPods.aPodOf(WEB, "c")
                .ready(T0.plusSeconds(3))
                .labelled("extra", "x")
                .cached());
        put(ReplicaPods.aPodOf(WEB, "a").ready(T0.plusSeconds(1)).cached());
        put(ReplicaPods.aPodOf(WEB, "b")
                .ready(T0.plusSeconds(1))
                .terminating(T0.plusSeconds(4))
                .cached());
        put(ReplicaPods.aPodOf(WEB, "d").inPhase("Failed").cached());
        remove(ReplicaPods.aPodOf(WEB, "a").cached());
        remove(ReplicaPods.aPodOf(WEB, "b").cached());
        put(ReplicaPods.aPodOf(WEB, "a").ready(T0.plusSeconds(6)).cached());
    }

    @Test
    void fullyLabeledIsCountedAgainstTheTemplateAsItIsNow() {
        put(ReplicaPods.aPodOf(WEB, "a").labelled("tier", "front").cached());
        put(ReplicaPods.aPodOf(WEB, "b").cached());
        Map<String, String> wider = new LinkedHashMap<>(TEMPLATE);
        wider.put("tier", "front");
        assertEquals(1, state.podsControlledBy("uid-web").fullyLabeled(wider));
        put(ReplicaPods.aPodOf(WEB, "c").labelled("tier", "front").cached());
        assertEquals(2, state.podsControlledBy("uid-web").fullyLabeled(wider));
        assertEquals(3, state.podsControlledBy("uid-web").fullyLabeled(TEMPLATE));
    }

    @Test
    void aPodWhoseControllerChangesLeavesTheTalliesOfTheFormer() {
        put(ReplicaPods.aPodOf(WEB, "a").ready(T0).cached());
        put(ReplicaPods.aPodOf(WEB, "b").ready(T0).cached());
        CachedPod moved = ReplicaPods.aPodOf(API, "a").ready(T0).cached();
        state.putPod(moved);
        expected.remove(moved.uid());
        assertTalliesOfWeb();
        assertEquals(1, state.podsControlledBy("uid-api").readyCount());
        state.removePod(moved.uid());
        assertEquals(0, state.podsControlledBy("uid-api").activeCount());
    }
}
