package io.podfall.kubelet.podworkers;

import static io.podfall.kubelet.podworkers.KubeletDriver.NODE;
import static io.podfall.kubelet.podworkers.KubeletDriver.T0;
import static io.podfall.model.event.EventTypes.OBJECT_MARKED_TERMINATING;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A kubelet rebuilding its state from the log reads every fact at the fact's own time, while live it read it a little
 * later. Its decisions take their time from the fact, so both decide the same: the same termination deadline, the same
 * timers, and so the same effects when a timer fires, which the rebuild then recognises on the log instead of appending
 * them again.
 */
class RebuildTest {

    private static Pod withSleepHook(Pod pod, long seconds) {
        return new PodBuilder(pod)
                .editSpec()
                .editMatchingContainer(c -> c.getName().equals("app"))
                .withNewLifecycle()
                .withNewPreStop()
                .withNewSleep()
                .withSeconds(seconds)
                .endSleep()
                .endPreStop()
                .endLifecycle()
                .endContainer()
                .endSpec()
                .build();
    }

    private static List<String> ids(Effects effects) {
        return effects.events().stream().map(Event::id).toList();
    }

    @Test
    void aFactReadLateDecidesAsTheSameFactReadOnTimeSoTheRebuildSetsTheSameTimers() {
        KubeletDriver onTime = new KubeletDriver();
        Pod pod = onTime.running(withSleepHook(
                aPod("db-0").withUid("uid-db-0").onNode(NODE).withGrace(30).build(), 10));
        onTime.after(3).apiserver(OBJECT_MARKED_TERMINATING, onTime.markedTerminating(pod, 30));

        KubeletDriver live = new KubeletDriver();
        List<Effects> liveEffects = onTime.delivered.stream()
                .map(e -> live.core.handle(live.state, e, e.time().plusMillis(40)))
                .toList();
        KubeletDriver rebuilt = new KubeletDriver();
        List<Effects> rebuiltEffects = onTime.delivered.stream()
                .map(e -> rebuilt.core.handle(rebuilt.state, e, e.time()))
                .toList();

        Effects liveKill = liveEffects.get(liveEffects.size() - 1);
        Effects rebuiltKill = rebuiltEffects.get(rebuiltEffects.size() - 1);
        assertEquals(ids(liveKill), ids(rebuiltKill));
        assertEquals(liveKill.timers(), rebuiltKill.timers(), "the preStop hook's end, at the same instant");
        Timer hook = liveKill.timers().get(0);
        assertEquals(T0.plusSeconds(13), hook.at(), "10 s from the fact that began the termination");
        Instant deadline = T0.plusSeconds(33);
        assertEquals(deadline, live.worker(pod).status().deadline());
        assertEquals(deadline, rebuilt.worker(pod).status().deadline());

        Effects liveStop = live.core.fire(live.state, hook, hook.at().plusMillis(7));
        Effects rebuiltStop = rebuilt.core.fire(rebuilt.state, hook, hook.at());
        assertEquals(ids(liveStop), ids(rebuiltStop), "the same PreStopHookFinished and StopContainer, recognised");
        assertEquals(
                liveStop.events().get(1).data(), rebuiltStop.events().get(1).data(), "the same timeout");
    }
}
