package io.podfall.kubelet.podworkers;

import static io.podfall.kubelet.podworkers.KubeletDriver.NODE;
import static io.podfall.model.event.EventTypes.OBJECT_MARKED_TERMINATING;
import static io.podfall.model.event.EventTypes.OBJECT_REMOVED;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

import io.fabric8.kubernetes.api.model.Pod;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a worker holds its pod, decoded or as its compressed JSON, never changes what the kubelet decides. */
class DecodedPodsTest {

    @Test
    void aKubeletThatKeepsOnePodDecodedDecidesAsOneThatKeepsThemAll() {
        KubeletDriver recorded = new KubeletDriver();
        Pod a = recorded.running(aPod("web-1")
                .withUid("uid-web-1")
                .onNode(NODE)
                .withContainer("sidecar")
                .build());
        Pod b = recorded.running(
                aPod("web-2").withUid("uid-web-2").onNode(NODE).withGrace(5).build());
        recorded.running(aPod("web-3").withUid("uid-web-3").onNode(NODE).build());
        Pod terminatingA = recorded.after(10).markedTerminating(a, 30);
        recorded.apiserver(OBJECT_MARKED_TERMINATING, terminatingA);
        recorded.apiserver(OBJECT_MARKED_TERMINATING, recorded.markedTerminating(b, 5));
        recorded.containerExited(b, "app", 143);
        recorded.containerExited(a, "app", 0);
        recorded.containerExited(a, "sidecar", 0);
        Effects stoppedB = recorded.sandboxStopped(b);
        Effects stoppedA = recorded.sandboxStopped(a);
        recorded.statusWritten(a, stoppedA);
        recorded.statusWritten(b, stoppedB);
        recorded.apiserver(OBJECT_REMOVED, terminatingA);

        List<Effects> all = replay(recorded.delivered, new PodWorkersState());
        List<Effects> one = replay(recorded.delivered, new PodWorkersState(1));

        assertEquals(ids(all), ids(one));
        assertEquals(data(all), data(one));
        assertEquals(
                all.stream().map(Effects::timers).toList(),
                one.stream().map(Effects::timers).toList());
    }

    @Test
    void aPodHeldAsItsJsonComesBackAsItWas() {
        PodWorkersState state = new PodWorkersState(1);
        KubeletDriver driver = new KubeletDriver();
        Pod a = driver.running(aPod("web-1")
                .withUid("uid-web-1")
                .onNode(NODE)
                .withAnnotation("note", "x")
                .build());
        Pod b = driver.running(aPod("web-2").withUid("uid-web-2").onNode(NODE).build());
        replay(driver.delivered, state);
        Pod decoded = state.workers.get("uid-web-2").pod();

        Pod first = state.workers.get("uid-web-1").pod(); // web-2's pod was used last: web-1's was encoded

        assertEquals(a.getMetadata().getAnnotations(), first.getMetadata().getAnnotations());
        assertEquals(driver.worker(a).pod(), first);
        assertNotSame(decoded, state.workers.get("uid-web-2").pod(), "and now web-2's is held as JSON");
        assertEquals(driver.worker(b).pod(), state.workers.get("uid-web-2").pod());
    }

    private static List<Effects> replay(List<Event> log, PodWorkersState state) {
        PodWorkers core = new PodWorkers(List.of(NODE), Compat.NONE);
        return log.stream().map(e -> core.handle(state, e, e.time())).toList();
    }

    private static List<List<String>> ids(List<Effects> effects) {
        return effects.stream()
                .map(e -> e.events().stream().map(Event::id).toList())
                .toList();
    }

    private static List<List<String>> data(List<Effects> effects) {
        return effects.stream()
                .map(e -> e.events().stream().map(x -> x.data().toString()).toList())
                .toList();
    }
}
