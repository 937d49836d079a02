package io.podfall.kubelet.podworkers;

import static io.podfall.kubelet.podworkers.KubeletDriver.NODE;
import static io.podfall.kubelet.podworkers.KubeletDriver.T0;
import static io.podfall.kubelet.podworkers.KubeletDriver.only;
import static io.podfall.kubelet.podworkers.KubeletDriver.types;
import static io.podfall.model.event.EventTypes.OBJECT_CREATED;
import static io.podfall.model.event.EventTypes.OBJECT_MARKED_TERMINATING;
import static io.podfall.model.event.EventTypes.POD_RESTART_REQUESTED;
import static io.podfall.model.event.EventTypes.POD_TERMINATED;
import static io.podfall.model.event.EventTypes.POD_TERMINATION_STARTED;
import static io.podfall.model.event.EventTypes.START_CONTAINER_REQUESTED;
import static io.podfall.model.event.EventTypes.STATUS_UPDATE_REQUESTED;
import static io.podfall.model.event.EventTypes.STOP_POD_SANDBOX_REQUESTED;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.podfall.model.apiserver.StatusUpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.core.TimerKey;
import io.podfall.model.event.Event;
import io.podfall.model.kubelet.PodRestart;
import io.podfall.model.runtime.ContainerRef;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * A pod's own end: containers that exit by themselves, started again by the restart policy after the crash-loop
 * back-off (kuberuntime_manager.go computePodActions and doBackOff, container/helpers.go ShouldContainerBeRestarted),
 * the status kubectl shows meanwhile, and a pod that ends Succeeded or Failed (kubelet_pods.go getPhase), torn down and
 * kept; and a UID created again after its worker finished (pod_workers.go restartRequested).
 */
class RestartPolicyTest {
    private static final String UID = "uid-web-1";
    private static final TimerKey BACKOFF_TIMER = new PodWorkerTimer.BackOff("node-1", UID, "app");

    private final KubeletDriver kubelet = new KubeletDriver();

    private static Pod pod(String restartPolicy) {
        var b = aPod("web-1").withUid(UID).onNode(NODE).withGrace(30);
        return (restartPolicy == null ? b : b.withRestartPolicy(restartPolicy)).build();
    }

    private static PodStatus status(Effects effects) {
        return only(effects, STATUS_UPDATE_REQUESTED, StatusUpdateRequest.class).status();
    }

    private static ContainerStatus app(PodStatus status) {
        return status.getContainerStatuses().get(0);
    }

    private static int attempt(Effects effects) {
        return only(effects, START_CONTAINER_REQUESTED, ContainerRef.class).attempt();
    }

    private static Timer backOff(Effects effects) {
        return effects.timers().stream()
                .filter(t -> t.key().equals(BACKOFF_TIMER))
                .findFirst()
                .orElseThrow();
    }

    @Nested
    class Always {
        private final Pod pod = kubelet.running(pod(null));

        @Test
        void anExitedContainerIsStartedAgainAtOnceTheFirstTimeAndItsStatusShowsTheRestart() {
            Effects exited = kubelet.after(5).containerExited(pod, "app", 1);
            assertEquals(List.of(START_CONTAINER_REQUESTED), types(exited), "no back-off before the first restart");
            assertEquals(
                    new ContainerRef(NODE, UID, "app", 1), only(exited, START_CONTAINER_REQUESTED, ContainerRef.class));

            PodStatus running = status(kubelet.containerStarted(pod, "app", 1));

            assertEquals("Running", running.getPhase());
            ContainerStatus app = app(running);
            assertEquals(1, app.getRestartCount());
            assertNotNull(app.getState().getRunning());
            assertEquals(1, app.getLastState().getTerminated().getExitCode());
            assertEquals("Error", app.getLastState().getTerminated().getReason());
            assertEquals(
                    T0.plusSeconds(5).toString(),
                    app.getLastState().getTerminated().getFinishedAt());
            assertEquals("podfall://" + KubeletDriver.containerId(pod, "app", 1), app.getContainerID());
        }

        @Test
        void aContainerThatExitedWithZeroIsStartedAgainToo() {
            assertEquals(1, attempt(kubelet.after(5).containerExited(pod, "app", 0)));
        }

        @Test
        void theSecondExitWaitsOutTenSecondsInCrashLoopBackOff() {
            kubelet.after(5).containerExited(pod, "app", 1);
            kubelet.containerStarted(pod, "app", 1);

            Effects again = kubelet.after(1).containerExited(pod, "app", 1, 1);

            PodStatus waiting = status(again);
            assertEquals("Running", waiting.getPhase(), "restartPolicy Always: it is being restarted");
            ContainerStatus app = app(waiting);
            assertEquals("CrashLoopBackOff", app.getState().getWaiting().getReason());
            assertEquals(
                    "back-off 10s restarting failed container=app pod=web-1_default(" + UID + ")",
                    app.getState().getWaiting().getMessage());
            assertEquals(1, app.getRestartCount());
            assertEquals(1, app.getLastState().getTerminated().getExitCode());
            assertEquals(
                    T0.plusSeconds(6).toString(),
                    app.getLastState().getTerminated().getFinishedAt());
            assertFalse(app.getReady());
            PodCondition ready = waiting.getConditions().stream()
                    .filter(c -> c.getType().equals("Ready"))
                    .findFirst()
                    .orElseThrow();
            assertEquals("False", ready.getStatus());
            assertEquals("ContainersNotReady", ready.getReason());
            assertEquals("containers with unready status: [app]", ready.getMessage());

            Timer timer = backOff(again);
            assertEquals(T0.plusSeconds(16), timer.at(), "10 s after the exit");
            assertEquals(2, attempt(kubelet.fire(timer)));
        }

        @Test
        void theBackOffDoublesAfterEachRestartUpToFiveMinutes() {
            kubelet.containerExited(pod, "app", 1);
            List<Long> waits = new ArrayList<>();
            for (int attempt = 1; attempt <= 8; attempt++) {
                kubelet.containerStarted(pod, "app", attempt);
                Effects exited = kubelet.after(1).containerExited(pod, "app", 1, attempt);
                Timer timer = backOff(exited);
                waits.add(Duration.between(kubelet.now, timer.at()).getSeconds());
                assertEquals(attempt + 1, attempt(kubelet.fire(timer)));
            }
            assertEquals(List.of(10L, 20L, 40L, 80L, 160L, 300L, 300L, 300L), waits);
        }

        @Test
        void aContainerThatRanMoreThanTenMinutesIsStartedAgainAtOnceWithItsBackOffReset() {
            kubelet.containerExited(pod, "app", 1);
            kubelet.containerStarted(pod, "app", 1);
            kubelet.fire(backOff(kubelet.after(1).containerExited(pod, "app", 1, 1)));
            kubelet.containerStarted(pod, "app", 2);

            Effects afterLongRun = kubelet.after(601).containerExited(pod, "app", 1, 2);
            assertEquals(3, attempt(afterLongRun), "stable for twice the longest back-off: no wait");

            kubelet.containerStarted(pod, "app", 3);
            Timer timer = backOff(kubelet.after(1).containerExited(pod, "app", 1, 3));
            assertEquals(kubelet.now.plusSeconds(10), timer.at(), "and the back-off starts over at 10 s");
        }

        @Test
        void aPodDeletedWhileItsContainerWaitsIsTornDownAndTheContainerNeverStartsAgain() {
            kubelet.containerExited(pod, "app", 1);
            kubelet.containerStarted(pod, "app", 1);
            Timer timer = backOff(kubelet.after(1).containerExited(pod, "app", 1, 1));

            Effects deleted = kubelet.after(2).apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));

            assertEquals(
                    List.of(POD_TERMINATION_STARTED, STOP_POD_SANDBOX_REQUESTED),
                    types(deleted),
                    "nothing runs: the sandbox is stopped at once");
            assertEquals(List.of(), types(kubelet.fire(timer)));
        }

        @Test
        void aRepeatedFactOfAnEarlierContainerChangesNothing() {
            kubelet.containerExited(pod, "app", 1);
            Event firstExit = kubelet.delivered.get(kubelet.delivered.size() - 1);
            kubelet.containerStarted(pod, "app", 1);

            assertEquals(List.of(), types(kubelet.redeliver(firstExit)));
            assertEquals(List.of(), types(kubelet.redeliver(kubelet.delivered.get(2))), "the first start again");
            assertEquals(
                    RuntimeContainer.State.RUNNING,
                    kubelet.worker(pod).container("app").state());
        }

        @Test
        void aRebuildFromTheLogDecidesTheSameRestartsAndBackOffs() {
            kubelet.after(5).containerExited(pod, "app", 1);
            kubelet.containerStarted(pod, "app", 1);
            Effects waiting = kubelet.after(1).containerExited(pod, "app", 1, 1);

            KubeletDriver rebuilt = new KubeletDriver();
            List<Effects> replayed = kubelet.delivered.stream()
                    .map(e -> rebuilt.core.handle(rebuilt.state, e, e.time()))
                    .toList();

            Effects last = replayed.get(replayed.size() - 1);
            assertEquals(waiting.events(), last.events());
            assertEquals(waiting.timers(), last.timers());
        }
    }

    @Nested
    class OnFailure {
        private final Pod pod = kubelet.running(pod("OnFailure"));

        @Test
        void aFailedContainerIsStartedAgain() {
            assertEquals(1, attempt(kubelet.after(5).containerExited(pod, "app", 2)));
        }

        @Test
        void aContainerThatCompletedIsNotAndThePodSucceeds() {
            kubelet.containerExited(pod, "app", 1);
            kubelet.containerStarted(pod, "app", 1);

            Effects completed = kubelet.after(5).containerExited(pod, "app", 0, 1);

            assertEquals(
                    List.of(STATUS_UPDATE_REQUESTED, POD_TERMINATION_STARTED, STOP_POD_SANDBOX_REQUESTED),
                    types(completed));
            PodStatus succeeded = status(completed);
            assertEquals("Succeeded", succeeded.getPhase());
            assertEquals(1, app(succeeded).getRestartCount());
            assertEquals("Completed", app(succeeded).getState().getTerminated().getReason());
            assertEquals("Error", app(succeeded).getLastState().getTerminated().getReason());
        }
    }

    @Nested
    class Never {
        @Test
        void aPodWhoseOnlyContainerCompletedSucceedsAndIsTornDownButKept() {
            Pod pod = kubelet.running(pod("Never"));

            Effects completed = kubelet.after(5).containerExited(pod, "app", 0);

            assertEquals(
                    List.of(STATUS_UPDATE_REQUESTED, POD_TERMINATION_STARTED, STOP_POD_SANDBOX_REQUESTED),
                    types(completed));
            PodStatus succeeded = status(completed);
            assertEquals("Succeeded", succeeded.getPhase());
            ContainerStatus app = app(succeeded);
            assertEquals(0, app.getState().getTerminated().getExitCode());
            assertEquals("Completed", app.getState().getTerminated().getReason());
            assertEquals(0, app.getRestartCount());
            assertEquals(
                    List.of("PodCompleted"),
                    succeeded.getConditions().stream()
                            .filter(c -> c.getType().equals("Ready"))
                            .map(PodCondition::getReason)
                            .toList());

            assertEquals(List.of(POD_TERMINATED), types(kubelet.sandboxStopped(pod)));
            assertTrue(kubelet.worker(pod).status().isFinished());
            assertTrue(kubelet.state.hasPod(UID), "the pod stays until a client deletes it");
        }

        @Test
        void aFailedContainerBesideOneStillRunningLeavesThePodRunningUntilTheOtherEnds() {
            Pod pod = kubelet.running(aPod("web-1")
                    .withUid(UID)
                    .onNode(NODE)
                    .withRestartPolicy("Never")
                    .withContainer("sidecar")
                    .build());

            Effects failed = kubelet.after(5).containerExited(pod, "app", 1);
            PodStatus running = status(failed);
            assertEquals("Running", running.getPhase());
            assertEquals(1, app(running).getState().getTerminated().getExitCode());

            Effects last = kubelet.after(5).containerExited(pod, "sidecar", 0);
            assertEquals(
                    List.of(STATUS_UPDATE_REQUESTED, POD_TERMINATION_STARTED, STOP_POD_SANDBOX_REQUESTED), types(last));
            assertEquals("Failed", status(last).getPhase(), "one container failed and none will restart");
        }
    }

    @Nested
    class GetPhase {
        private ContainerStatus running() {
            return new ContainerStatusBuilder()
                    .withNewState()
                    .withNewRunning()
                    .endRunning()
                    .endState()
                    .build();
        }

        private ContainerStatus exited(int code) {
            return new ContainerStatusBuilder()
                    .withNewState()
                    .withNewTerminated()
                    .withExitCode(code)
                    .endTerminated()
                    .endState()
                    .build();
        }

        private ContainerStatus waiting(boolean restarting) {
            ContainerStatusBuilder b = new ContainerStatusBuilder()
                    .withNewState()
                    .withNewWaiting()
                    .endWaiting()
                    .endState();
            if (restarting) {
                b.withNewLastState()
                        .withNewTerminated()
                        .withExitCode(1)
                        .endTerminated()
                        .endLastState();
            }
            return b.build();
        }

        @Test
        void followsTheRestartPolicyOnceNothingRuns() {
            assertEquals("Running", PodStatuses.getPhase("Always", List.of(exited(0)), false));
            assertEquals("Running", PodStatuses.getPhase(null, List.of(exited(1)), false), "Always is the default");
            assertEquals("Succeeded", PodStatuses.getPhase("OnFailure", List.of(exited(0), exited(0)), false));
            assertEquals("Running", PodStatuses.getPhase("OnFailure", List.of(exited(0), exited(1)), false));
            assertEquals("Failed", PodStatuses.getPhase("Never", List.of(exited(0), exited(1)), false));
            assertEquals("Succeeded", PodStatuses.getPhase("Never", List.of(exited(0)), false));
        }

        @Test
        void aTerminalPodIsSucceededOrFailedWhateverItsPolicy() {
            assertEquals("Succeeded", PodStatuses.getPhase("Always", List.of(exited(0)), true));
            assertEquals("Failed", PodStatuses.getPhase("Always", List.of(exited(0), exited(137)), true));
        }

        @Test
        void isPendingWhileAContainerWaitsForItsFirstStartAndRunningWhileOneRuns() {
            assertEquals("Pending", PodStatuses.getPhase("Always", List.of(running(), waiting(false)), false));
            assertEquals("Running", PodStatuses.getPhase("Never", List.of(running(), exited(1)), false));
            assertEquals(
                    "Running",
                    PodStatuses.getPhase("Always", List.of(waiting(true)), false),
                    "a container waiting to be started again counts as stopped");
        }
    }

    @Nested
    class RestartRequested {
        private Pod withResourceVersion(Pod pod, long rv) {
            return new PodBuilder(pod)
                    .editMetadata()
                    .withResourceVersion(Long.toString(rv))
                    .endMetadata()
                    .build();
        }

        @Test
        void aCreateWithTheUidOfAFinishedPodIsRecordedAndNeverAdmitted() {
            Pod pod = kubelet.running(withResourceVersion(pod("Never"), 5));
            kubelet.containerExited(pod, "app", 0);
            kubelet.sandboxStopped(pod);

            Effects again = kubelet.after(30).apiserver(OBJECT_CREATED, withResourceVersion(pod("Never"), 9));

            assertEquals(List.of(POD_RESTART_REQUESTED), types(again), "no sandbox, no container: not admitted");
            assertEquals(
                    new PodRestart(NODE, UID, "default", "web-1", "TerminatedPod", true),
                    only(again, POD_RESTART_REQUESTED, PodRestart.class));
            assertTrue(kubelet.worker(pod).status().isRestartRequested());
            assertEquals(
                    List.of(),
                    types(kubelet.apiserver(OBJECT_CREATED, withResourceVersion(pod("Never"), 12))),
                    "recorded once");
        }

        @Test
        void aCreateWhileThePodTerminatesIsRecordedToo() {
            Pod pod = kubelet.running(withResourceVersion(pod(null), 5));
            kubelet.apiserver(OBJECT_MARKED_TERMINATING, withResourceVersion(kubelet.markedTerminating(pod, 30), 6));

            Effects again = kubelet.apiserver(OBJECT_CREATED, withResourceVersion(pod(null), 9));

            assertEquals(
                    "TerminatingPod",
                    only(again, POD_RESTART_REQUESTED, PodRestart.class).workType());
            assertFalse(only(again, POD_RESTART_REQUESTED, PodRestart.class).finished());
        }

        @Test
        void theCreateThePodBeganWithDeliveredAgainIsNoRestart() {
            Pod created = withResourceVersion(pod("Never"), 4);
            kubelet.apiserver(OBJECT_CREATED, created);
            Event create = kubelet.delivered.get(0);
            Pod pod = kubelet.running(withResourceVersion(pod("Never"), 5));
            kubelet.containerExited(pod, "app", 0);

            assertEquals(List.of(), types(kubelet.redeliver(create)));
            assertFalse(kubelet.worker(pod).status().isRestartRequested());
        }
    }

    @Test
    void aRestartCountAndLastStateSurviveIntoTheFinalStatusOfADeletedPod() {
        Pod pod = kubelet.running(pod(null));
        kubelet.after(5).containerExited(pod, "app", 1);
        kubelet.containerStarted(pod, "app", 1);
        kubelet.after(5).apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));
        kubelet.containerExited(pod, "app", 143, 1);

        PodStatus last = status(kubelet.sandboxStopped(pod));

        assertEquals("Failed", last.getPhase());
        assertEquals(1, app(last).getRestartCount());
        assertEquals(143, app(last).getState().getTerminated().getExitCode());
        assertEquals(1, app(last).getLastState().getTerminated().getExitCode());
        Instant finished = Instant.parse(app(last).getState().getTerminated().getFinishedAt());
        assertEquals(T0.plusSeconds(10), finished);
    }
}
