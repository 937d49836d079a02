package io.podfall.controller.replicaset;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.podfall.controller.testing.ReplicaPods;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.podfall.controller.testing.ApiServerFacts.T0;
import static io.podfall.controller.testing.ReplicaSets.aReplicaSet;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The tallies of a ReplicaSet's pods stay what a walk over its pods counts, however the pods change. */
class ControlledPodsTest {
    private static final ReplicaSet WEB = withUid(aReplicaSet("web").build(), "uid-web");
    private static final ReplicaSet API = withUid(aReplicaSet("api").build(), "uid-api");
    private static final Map<String, String> TEMPLATE = WEB.getSpec().getTemplate().getMetadata().getLabels();

    private static ReplicaSet withUid(ReplicaSet rs, String uid) {
        rs.getMetadata().setUid(uid);
        return rs;
    }

    private final ReplicaSetState state = new ReplicaSetState();
    /** What the state should hold of WEB's pods, by uid. */
    private final Map<String, Pod> expected = new TreeMap<>();

    private void put(Pod pod) {
        state.putPod(pod);
        expected.put(pod.getMetadata().getUid(), pod);
        assertTalliesOfWeb();
    }

    private void remove(Pod pod) {
        state.removePod(pod.getMetadata().getUid());
        expected.remove(pod.getMetadata().getUid());
        assertTalliesOfWeb();
    }

    /** Every tally against the same figure computed from the pods one by one, at times around their readiness. */
    private void assertTalliesOfWeb() {
        ControlledPods pods = state.podsControlledBy("uid-web");
        List<Pod> active = expected.values().stream().filter(ActivePods::isActive).toList();
        assertEquals(names(active), names(pods.active()), "the active pods, in uid order");
        assertEquals(active.size(), pods.activeCount());
        assertEquals(active.stream().filter(ActivePods::isReady).count(), pods.readyCount());
        assertEquals(active.stream().filter(p -> p.getMetadata().getLabels().entrySet().containsAll(TEMPLATE.entrySet())).count(),
                pods.fullyLabeled(TEMPLATE));
        for (int second = 0; second <= 12; second++) {
            Instant now = T0.plusSeconds(second);
            for (int minReadySeconds : new int[] {0, 5}) {
                assertEquals(active.stream().filter(p -> ActivePods.isAvailable(p, minReadySeconds, now)).count(),
                        pods.available(minReadySeconds, now), "available at +" + second + "s, minReadySeconds " + minReadySeconds);
            }
            assertEquals(active.stream().filter(p -> !ActivePods.isAvailable(p, 5, now))
                    .flatMap(p -> ActivePods.availableAfter(p, 5).stream()).min(Instant::compareTo),
                    pods.nextAvailable(5, now), "next available after +" + second + "s");
        }
    }

    private static List<String> names(List<Pod> pods) {
        return pods.stream().map(p -> p.getMetadata().getName()).toList();
    }

    @Test
    void talliesFollowEveryChangeOfAPod() {
        put(ReplicaPods.aPodOf(WEB, "a").build());
        put(ReplicaPods.aPodOf(WEB, "b").ready(T0.plusSeconds(1)).build());
        put(ReplicaPods.aPodOf(WEB, "c").ready(T0.plusSeconds(3)).labelled("extra", "x").build());
        put(ReplicaPods.aPodOf(WEB, "a").ready(T0.plusSeconds(1)).build());
        put(ReplicaPods.aPodOf(WEB, "b").ready(T0.plusSeconds(1)).terminating(T0.plusSeconds(4)).build());
        put(ReplicaPods.aPodOf(WEB, "d").inPhase("Failed").build());
        remove(ReplicaPods.aPodOf(WEB, "a").build());
        remove(ReplicaPods.aPodOf(WEB, "b").build());
        put(ReplicaPods.aPodOf(WEB, "a").ready(T0.plusSeconds(6)).build());
    }

    @Test
    void fullyLabeledIsCountedAgainstTheTemplateAsItIsNow() {
        put(ReplicaPods.aPodOf(WEB, "a").labelled("tier", "front").build());
        put(ReplicaPods.aPodOf(WEB, "b").build());
        Map<String, String> wider = new LinkedHashMap<>(TEMPLATE);
        wider.put("tier", "front");
        assertEquals(1, state.podsControlledBy("uid-web").fullyLabeled(wider));
        put(ReplicaPods.aPodOf(WEB, "c").labelled("tier", "front").build());
        assertEquals(2, state.podsControlledBy("uid-web").fullyLabeled(wider));
        assertEquals(3, state.podsControlledBy("uid-web").fullyLabeled(TEMPLATE));
    }

    @Test
    void aPodWhoseControllerChangesLeavesTheTalliesOfTheFormer() {
        put(ReplicaPods.aPodOf(WEB, "a").ready(T0).build());
        put(ReplicaPods.aPodOf(WEB, "b").ready(T0).build());
        Pod moved = ReplicaPods.aPodOf(API, "a").ready(T0).build();
        state.putPod(moved);
        expected.remove(moved.getMetadata().getUid());
        assertTalliesOfWeb();
        assertEquals(1, state.podsControlledBy("uid-api").readyCount());
        state.removePod(moved.getMetadata().getUid());
        assertEquals(0, state.podsControlledBy("uid-api").activeCount());
    }
}
