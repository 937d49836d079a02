package io.podfall.kubelet.podworkers;

import static io.podfall.kubelet.podworkers.KubeletDriver.NODE;
import static io.podfall.kubelet.podworkers.KubeletDriver.T0;
import static io.podfall.kubelet.podworkers.KubeletDriver.only;
import static io.podfall.kubelet.podworkers.KubeletDriver.types;
import static io.podfall.model.event.EventTypes.DELETION_REQUESTED;
import static io.podfall.model.event.EventTypes.GRACE_PERIOD_SHORTENED;
import static io.podfall.model.event.EventTypes.OBJECT_MARKED_TERMINATING;
import static io.podfall.model.event.EventTypes.OBJECT_REMOVED;
import static io.podfall.model.event.EventTypes.POD_BOUND;
import static io.podfall.model.event.EventTypes.POD_STATUS_UPDATED;
import static io.podfall.model.event.EventTypes.POD_TERMINATED;
import static io.podfall.model.event.EventTypes.POD_TERMINATION_STARTED;
import static io.podfall.model.event.EventTypes.PRE_STOP_HOOK_FINISHED;
import static io.podfall.model.event.EventTypes.PRE_STOP_HOOK_STARTED;
import static io.podfall.model.event.EventTypes.STATUS_UPDATE_REQUESTED;
import static io.podfall.model.event.EventTypes.STOP_CONTAINER_REQUESTED;
import static io.podfall.model.event.EventTypes.STOP_POD_SANDBOX_REQUESTED;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.model.apiserver.StatusUpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.core.TimerKey;
import io.podfall.model.kubelet.GracePeriodShortened;
import io.podfall.model.kubelet.PodTerminationStart;
import io.podfall.model.kubelet.PreStopHookResult;
import io.podfall.model.kubelet.PreStopHookStart;
import io.podfall.model.runtime.StopContainer;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The termination rules of killContainer and calculateEffectiveGracePeriod: preStop hooks against the grace period, a
 * grace period shortened while terminating, the compatibility switches, and pods already finished.
 */
class TerminationTest {
    private static final String UID = "uid-db-0";
    private static final TimerKey HOOK_TIMER = new PodWorkerTimer.PreStop("node-1", UID, "app");

    private static Pod pod(long grace) {
        return aPod("db-0").withUid(UID).onNode(NODE).withGrace(grace).build();
    }

    private static Pod withSleepHook(Pod pod, String container, long seconds) {
        return new PodBuilder(pod)
                .editSpec()
                .editMatchingContainer(c -> c.getName().equals(container))
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

    private static Pod withExecHook(Pod pod, String annotatedSeconds) {
        PodBuilder b = new PodBuilder(pod)
                .editSpec()
                .editMatchingContainer(c -> c.getName().equals("app"))
                .withNewLifecycle()
                .withNewPreStop()
                .withNewExec()
                .withCommand("sh", "-c", "drain")
                .endExec()
                .endPreStop()
                .endLifecycle()
                .endContainer()
                .endSpec();
        if (annotatedSeconds != null) {
            b.editMetadata()
                    .addToAnnotations(PreStopHook.PRESTOP_SECONDS, annotatedSeconds)
                    .endMetadata();
        }
        return b.build();
    }

    private static Pod inPhase(Pod pod, String phase) {
        return new PodBuilder(pod)
                .editOrNewStatus()
                .withPhase(phase)
                .endStatus()
                .build();
    }

    private static List<Long> timeouts(Effects effects) {
        return effects.events().stream()
                .filter(e -> e.is(STOP_CONTAINER_REQUESTED))
                .map(e -> e.data(StopContainer.class).timeoutSeconds())
                .toList();
    }

    private static Timer hookTimer(Effects effects) {
        return effects.timers().stream()
                .filter(t -> t.key().equals(HOOK_TIMER))
                .findFirst()
                .orElseThrow();
    }

    @Nested
    class PreStopHooks {
        private final KubeletDriver kubelet = new KubeletDriver();

        @Test
        void aHookShorterThanTheGracePeriodLeavesTheRemainderToStopContainer() {
            Pod pod = kubelet.running(withSleepHook(pod(30), "app", 10));
            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));

            assertEquals(List.of(POD_TERMINATION_STARTED, PRE_STOP_HOOK_STARTED), types(kill));
            PreStopHookStart started = only(kill, PRE_STOP_HOOK_STARTED, PreStopHookStart.class);
            assertEquals("sleep", started.handler());
            assertEquals(30, started.gracePeriodSeconds());
            assertEquals(KubeletDriver.containerId(pod, "app"), started.containerId());
            assertEquals(T0.plusSeconds(10), hookTimer(kill).at());

            Effects done = kubelet.fire(hookTimer(kill));
            assertEquals(List.of(PRE_STOP_HOOK_FINISHED, STOP_CONTAINER_REQUESTED), types(done));
            PreStopHookResult result = only(done, PRE_STOP_HOOK_FINISHED, PreStopHookResult.class);
            assertEquals(10, result.durationSeconds());
            assertFalse(result.gracePeriodExhausted());
            assertNull(result.error());
            assertEquals(List.of(20L), timeouts(done), "30 s grace less the hook's 10 s");
        }

        @Test
        void aHookLongerThanTheGracePeriodIsCutShortAndStopContainerGetsTheTwoSecondFloor() {
            Pod pod = kubelet.running(withSleepHook(pod(30), "app", 60));
            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));
            assertEquals(T0.plusSeconds(30), hookTimer(kill).at(), "executePreStopHook waits at most the grace period");

            Effects done = kubelet.fire(hookTimer(kill));
            PreStopHookResult result = only(done, PRE_STOP_HOOK_FINISHED, PreStopHookResult.class);
            assertEquals(30, result.durationSeconds());
            assertTrue(result.gracePeriodExhausted());
            assertEquals(List.of(Termination.MINIMUM_GRACE_PERIOD_SECONDS), timeouts(done));
        }

        @Test
        void anExecHookRunsForTheAnnotatedSecondsAndItsTimeIsTruncatedAsUpstream() {
            Pod pod = kubelet.running(withExecHook(pod(30), "4.5"));
            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));
            assertEquals(
                    "exec",
                    only(kill, PRE_STOP_HOOK_STARTED, PreStopHookStart.class).handler());
            assertEquals(T0.plusMillis(4_500), hookTimer(kill).at());

            Effects done = kubelet.fire(hookTimer(kill));
            assertEquals(
                    4,
                    only(done, PRE_STOP_HOOK_FINISHED, PreStopHookResult.class).durationSeconds());
            assertEquals(List.of(26L), timeouts(done), "no container is killed before the deadline");
        }

        @Test
        void aHookOfNoTimeFinishesInTheSameStep() {
            Pod pod = kubelet.running(withExecHook(pod(30), null));
            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));
            assertEquals(
                    List.of(
                            POD_TERMINATION_STARTED,
                            PRE_STOP_HOOK_STARTED,
                            PRE_STOP_HOOK_FINISHED,
                            STOP_CONTAINER_REQUESTED),
                    types(kill));
            assertEquals(List.of(30L), timeouts(kill));
            assertTrue(kill.timers().isEmpty());
        }

        @Test
        void onlyTheContainerWithAHookWaitsForIt() {
            Pod pod = kubelet.running(withSleepHook(
                    aPod("db-0")
                            .withUid(UID)
                            .onNode(NODE)
                            .withGrace(30)
                            .withContainer("sidecar")
                            .build(),
                    "app",
                    10));
            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));
            assertEquals(
                    List.of(POD_TERMINATION_STARTED, PRE_STOP_HOOK_STARTED, STOP_CONTAINER_REQUESTED), types(kill));
            assertEquals(
                    "sidecar",
                    only(kill, STOP_CONTAINER_REQUESTED, StopContainer.class).containerName());
        }

        @Test
        void aShortenedGracePeriodDoesNotReachARunningHook() {
            Pod pod = kubelet.running(withSleepHook(pod(60), "app", 120));
            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 60));

            Effects shortened =
                    kubelet.after(1).apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 5));
            assertEquals(List.of(GRACE_PERIOD_SHORTENED), types(shortened));
            assertTrue(shortened.timers().isEmpty(), "the hook's wait keeps its first deadline");

            Effects done = kubelet.fire(hookTimer(kill));
            assertEquals(T0.plusSeconds(60), kubelet.now);
            assertTrue(
                    only(done, PRE_STOP_HOOK_FINISHED, PreStopHookResult.class).gracePeriodExhausted());
            assertEquals(List.of(2L), timeouts(done), "the minimum after a hook that used up the grace period");
        }

        @Test
        void aContainerThatExitsDuringItsHookCancelsTheHooksTimer() {
            Pod pod = kubelet.running(withSleepHook(pod(30), "app", 10));
            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));

            Effects exited = kubelet.after(3).containerExited(pod, "app", 0);
            assertEquals(List.of(HOOK_TIMER), exited.cancelledTimers());
            assertEquals(
                    List.of(PRE_STOP_HOOK_FINISHED, STOP_POD_SANDBOX_REQUESTED),
                    types(exited),
                    "no StopContainer for a container that is gone");
            PreStopHookResult failed = only(exited, PRE_STOP_HOOK_FINISHED, PreStopHookResult.class);
            assertEquals(3, failed.durationSeconds());
            assertFalse(failed.gracePeriodExhausted());
            assertEquals("the container exited with code 0 while its preStop hook ran", failed.error());
            assertTrue(kubelet.fire(hookTimer(kill)).isEmpty());
        }

        @Test
        void theHookRunsOnceAndARepeatedTimerOrFactEmitsNothing() {
            Pod pod = kubelet.running(withSleepHook(pod(30), "app", 10));
            Pod terminating = kubelet.markedTerminating(pod, 30);
            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, terminating);
            assertTrue(kubelet.apiserver(OBJECT_MARKED_TERMINATING, terminating).isEmpty());
            kubelet.fire(hookTimer(kill));
            assertTrue(kubelet.fire(hookTimer(kill)).isEmpty());
            assertTrue(kubelet.apiserver(POD_STATUS_UPDATED, terminating).isEmpty());
        }
    }

    /**
     * A grace period shortened while the pod terminates: a released kubelet's kill keeps its first deadline; the fix
     * switch (PR #113883) kills again with the shorter grace period, counted from when the kill in flight returns.
     */
    @Nested
    class ShortenedGracePeriod {
        private static final Compat FIX = new Compat(true, false);

        @Test
        void byDefaultTheKillInFlightKeepsItsFirstDeadlineAndTheEventSaysSo() {
            KubeletDriver kubelet = new KubeletDriver();
            Pod pod = kubelet.running(pod(60));
            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 60));
            assertEquals(List.of(60L), timeouts(kill));

            Effects shortened =
                    kubelet.after(1).apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 5));

            assertEquals(
                    List.of(GRACE_PERIOD_SHORTENED),
                    types(shortened),
                    "recorded as a shortening, not as a second PodTerminationStarted; no StopContainer");
            GracePeriodShortened event = only(shortened, GRACE_PERIOD_SHORTENED, GracePeriodShortened.class);
            assertEquals(60, event.previousGracePeriodSeconds());
            assertEquals(5, event.gracePeriodSeconds());
            assertEquals(T0.plusSeconds(5), event.deadline(), "the API server's deadline");
            assertEquals(T0.plusSeconds(60), event.killDeadline(), "the kill's");
            assertNull(event.compat());
            assertFalse(event.reachesKill());
            assertEquals(T0.plusSeconds(60), kubelet.worker(pod).status().killDeadline());
            assertTrue(kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 5))
                    .isEmpty());
        }

        @Test
        void withTheFixTheKubeletKillsAgainCountingTheShorterGraceFromNow() {
            KubeletDriver kubelet = new KubeletDriver(FIX);
            Pod pod = kubelet.running(pod(60));
            kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 60));

            Effects shortened =
                    kubelet.after(1).apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 5));

            assertEquals(List.of(GRACE_PERIOD_SHORTENED, STOP_CONTAINER_REQUESTED), types(shortened));
            GracePeriodShortened event = only(shortened, GRACE_PERIOD_SHORTENED, GracePeriodShortened.class);
            assertEquals(T0.plusSeconds(5), event.deadline());
            assertEquals(T0.plusSeconds(6), event.killDeadline(), "counted from the second kill");
            assertEquals(Compat.SHORTENED_GRACE_KILLS_AGAIN, event.compat());
            assertTrue(event.reachesKill());
            assertEquals(List.of(5L), timeouts(shortened));
            assertEquals(T0.plusSeconds(6), kubelet.worker(pod).status().killDeadline());
        }

        @Test
        void withTheFixAGracePeriodOfOneStillGivesTheMinimumOfTwoSeconds() {
            KubeletDriver kubelet = new KubeletDriver(FIX);
            Pod pod = kubelet.running(pod(30));
            kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));
            Effects forced = kubelet.after(20).apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 0));
            assertEquals(List.of(2L), timeouts(forced));
        }

        @Test
        void withTheFixOnlyTheContainersStillRunningAreKilledAgain() {
            KubeletDriver kubelet = new KubeletDriver(FIX);
            Pod pod = kubelet.running(aPod("web-1")
                    .withUid(UID)
                    .onNode(NODE)
                    .withGrace(30)
                    .withContainer("sidecar")
                    .build());
            kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));
            kubelet.containerExited(pod, "app", 143);
            Effects shortened =
                    kubelet.after(10).apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 15));
            assertEquals(
                    List.of("sidecar"),
                    shortened.events().stream()
                            .filter(e -> e.is(STOP_CONTAINER_REQUESTED))
                            .map(e -> e.data(StopContainer.class).containerName())
                            .toList());
        }

        @Test
        void withTheFixARunningHookIsNotInterruptedAndRunsAgainInTheSecondKill() {
            KubeletDriver kubelet = new KubeletDriver(FIX);
            Pod pod = kubelet.running(withSleepHook(pod(60), "app", 10));
            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 60));

            Effects shortened =
                    kubelet.after(1).apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 5));
            assertEquals(List.of(GRACE_PERIOD_SHORTENED), types(shortened), "the kill waits for the hook");
            assertEquals(
                    T0.plusSeconds(15),
                    only(shortened, GRACE_PERIOD_SHORTENED, GracePeriodShortened.class)
                            .killDeadline(),
                    "the hook returns at +10 s, the kill again gives 5 s from then");

            Effects hookEnded = kubelet.fire(hookTimer(kill));
            assertEquals(T0.plusSeconds(10), kubelet.now);
            assertEquals(
                    List.of(PRE_STOP_HOOK_FINISHED, PRE_STOP_HOOK_STARTED),
                    types(hookEnded),
                    "no StopContainer from the cancelled kill; the second killContainer runs the hook again");
            Timer second = hookTimer(hookEnded);
            assertEquals(T0.plusSeconds(15), second.at(), "the second hook is cut at the new deadline");

            Effects done = kubelet.fire(second);
            assertTrue(
                    only(done, PRE_STOP_HOOK_FINISHED, PreStopHookResult.class).gracePeriodExhausted());
            assertEquals(List.of(2L), timeouts(done));
        }
    }

    @Nested
    class ForceDelete {
        @Test
        void getsOneSecondAtTheNodeByDefault() {
            KubeletDriver kubelet = new KubeletDriver();
            Pod pod = kubelet.running(pod(30));
            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 0));
            PodTerminationStart started = only(kill, POD_TERMINATION_STARTED, PodTerminationStart.class);
            assertEquals(1, started.gracePeriodSeconds());
            assertNull(started.compat());
        }

        @Test
        void withForceDeleteUsesSpecGraceGetsTheSpecsGracePeriodAndSaysSo() {
            KubeletDriver kubelet = new KubeletDriver(new Compat(false, true));
            Pod pod = kubelet.running(pod(30));
            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 0));
            PodTerminationStart started = only(kill, POD_TERMINATION_STARTED, PodTerminationStart.class);
            assertEquals(30, started.gracePeriodSeconds());
            assertEquals(T0.plusSeconds(30), started.deadline());
            assertEquals(Compat.FORCE_DELETE_USES_SPEC_GRACE, started.compat());
            assertEquals(List.of(30L), timeouts(kill));
        }

        @Test
        void withForceDeleteUsesSpecGraceAPodRemovedFromTheApiGetsTheSpecsGracePeriod() {
            KubeletDriver kubelet = new KubeletDriver(new Compat(false, true));
            Pod pod = kubelet.running(pod(30));
            Effects removed = kubelet.apiserver(OBJECT_REMOVED, kubelet.markedTerminating(pod, 0));
            PodTerminationStart started = only(removed, POD_TERMINATION_STARTED, PodTerminationStart.class);
            assertEquals(30, started.gracePeriodSeconds());
            assertEquals(Compat.FORCE_DELETE_USES_SPEC_GRACE, started.compat());
        }

        @Test
        void withForceDeleteUsesSpecGraceAGracefulDeleteIsUnchangedAndNamesNoSwitch() {
            KubeletDriver kubelet = new KubeletDriver(new Compat(false, true));
            Pod pod = kubelet.running(pod(30));
            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 5));
            PodTerminationStart started = only(kill, POD_TERMINATION_STARTED, PodTerminationStart.class);
            assertEquals(5, started.gracePeriodSeconds());
            assertNull(started.compat());
        }

        @Test
        void calculateEffectiveGracePeriodUnderTheSwitchTakesZeroForUnset() {
            Pod forced = aPod("p")
                    .withUid("u")
                    .onNode(NODE)
                    .withGrace(30)
                    .terminating(T0, 0)
                    .build();
            assertEquals(
                    new PodWorkers.EffectiveGracePeriod(30, false, Compat.FORCE_DELETE_USES_SPEC_GRACE),
                    PodWorkers.calculateEffectiveGracePeriod(new PodSyncStatus(T0), forced, new Compat(false, true)));
            assertEquals(
                    new PodWorkers.EffectiveGracePeriod(1, false, null),
                    PodWorkers.calculateEffectiveGracePeriod(new PodSyncStatus(T0), forced, Compat.NONE));
        }
    }

    @Nested
    class PodAlreadyFinished {
        private final KubeletDriver kubelet = new KubeletDriver();

        private Pod job() {
            return aPod("db-0")
                    .withUid(UID)
                    .onNode(NODE)
                    .withGrace(30)
                    .withRestartPolicy("Never")
                    .build();
        }

        @Test
        void aPodWhoseContainersExitedForGoodIsFailedAndTornDownAtOnceWithoutAGraceWait() {
            Pod pod = kubelet.running(job());

            Effects exited = kubelet.containerExited(pod, "app", 1);

            assertEquals(
                    List.of(STATUS_UPDATE_REQUESTED, POD_TERMINATION_STARTED, STOP_POD_SANDBOX_REQUESTED),
                    types(exited),
                    "the terminal status first, then teardown: nothing runs, nothing is waited for");
            assertEquals(
                    "Failed",
                    only(exited, STATUS_UPDATE_REQUESTED, StatusUpdateRequest.class)
                            .status()
                            .getPhase());
            assertEquals(List.of(), types(kubelet.statusWritten(pod, exited)));
            assertEquals(
                    List.of(POD_TERMINATED),
                    types(kubelet.sandboxStopped(pod)),
                    "its status is written already, and it is not marked for deletion: the kubelet does not delete it");
            assertTrue(kubelet.worker(pod).status().isFinished());
        }

        @Test
        void aCompletedPodDeletedLaterIsDeletedByTheKubeletOnceMarked() {
            Pod pod = kubelet.running(job());
            Effects exited = kubelet.containerExited(pod, "app", 0);
            kubelet.statusWritten(pod, exited);
            assertEquals(List.of(POD_TERMINATED), types(kubelet.sandboxStopped(pod)));
            Pod completed = kubelet.worker(pod).pod();

            Effects deleted =
                    kubelet.after(60).apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(completed, 30));

            assertEquals(
                    List.of(DELETION_REQUESTED),
                    types(deleted),
                    "kubectl delete of a Completed pod returns once the kubelet's final delete removed it");
        }

        @Test
        void aCompletedPodMarkedForDeletionBeforeItsStatusIsStoredIsDeletedOnceItIs() {
            Pod pod = kubelet.running(job());
            Effects exited = kubelet.containerExited(pod, "app", 0);
            kubelet.sandboxStopped(pod);

            Effects marked = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));
            assertEquals(List.of(), types(marked), "the final delete waits for the final status");
            assertEquals(List.of(DELETION_REQUESTED), types(kubelet.statusWritten(pod, exited)));
        }

        @Test
        void aPodWhoseTerminalPhaseComesFromTheApiServerIsTornDownAndReported() {
            Pod pod = kubelet.running(pod(30));
            kubelet.containerExited(pod, "app", 1);
            kubelet.containerStarted(pod, "app", 1);

            Effects failed = kubelet.apiserver(POD_STATUS_UPDATED, inPhase(pod, "Failed"));

            assertEquals(
                    List.of(POD_TERMINATION_STARTED, STOP_CONTAINER_REQUESTED),
                    types(failed),
                    "the restarted container is stopped with the grace period");
        }

        @Test
        void aFinishedPodTheKubeletNeverStartedIsTerminatedWithoutTouchingTheRuntimeOrItsStatus() {
            Effects bound = kubelet.apiserver(POD_BOUND, inPhase(pod(30), "Succeeded"));
            assertEquals(List.of(POD_TERMINATION_STARTED, POD_TERMINATED), types(bound));
            assertTrue(kubelet.worker(pod(30)).status().isFinished());
        }
    }
}
