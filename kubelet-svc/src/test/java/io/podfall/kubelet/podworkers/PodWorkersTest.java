package io.podfall.kubelet.podworkers;

import static io.podfall.kubelet.podworkers.KubeletDriver.NODE;
import static io.podfall.kubelet.podworkers.KubeletDriver.T0;
import static io.podfall.model.event.EventTypes.CONTAINER_STARTED;
import static io.podfall.model.event.EventTypes.DELETION_REQUESTED;
import static io.podfall.model.event.EventTypes.GRACE_PERIOD_SHORTENED;
import static io.podfall.model.event.EventTypes.OBJECT_CREATED;
import static io.podfall.model.event.EventTypes.OBJECT_MARKED_TERMINATING;
import static io.podfall.model.event.EventTypes.OBJECT_REMOVED;
import static io.podfall.model.event.EventTypes.POD_BOUND;
import static io.podfall.model.event.EventTypes.POD_STATUS_UPDATED;
import static io.podfall.model.event.EventTypes.POD_TERMINATED;
import static io.podfall.model.event.EventTypes.POD_TERMINATION_STARTED;
import static io.podfall.model.event.EventTypes.REMOVE_POD_SANDBOX_REQUESTED;
import static io.podfall.model.event.EventTypes.RUN_POD_SANDBOX_REQUESTED;
import static io.podfall.model.event.EventTypes.START_CONTAINER_REQUESTED;
import static io.podfall.model.event.EventTypes.STATUS_UPDATE_REQUESTED;
import static io.podfall.model.event.EventTypes.STOP_CONTAINER_REQUESTED;
import static io.podfall.model.event.EventTypes.STOP_POD_SANDBOX_REQUESTED;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.StatusUpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.kubelet.GracePeriodShortened;
import io.podfall.model.kubelet.PodTermination;
import io.podfall.model.runtime.ContainerRef;
import io.podfall.model.runtime.RunPodSandbox;
import io.podfall.model.runtime.SandboxRef;
import io.podfall.model.runtime.StopContainer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class PodWorkersTest {
    private final KubeletDriver kubelet = new KubeletDriver();

    private static Pod web1() {
        return aPod("web-1")
                .withUid("uid-web-1")
                .onNode(NODE)
                .withGrace(30)
                .withContainer("sidecar")
                .withAnnotation("podfall.io/exit-code", "0")
                .build();
    }

    private static List<String> types(Effects effects) {
        return effects.events().stream().map(Event::type).toList();
    }

    private static <T> List<T> data(Effects effects, String type, Class<T> payload) {
        return effects.events().stream()
                .filter(e -> e.is(type))
                .map(e -> e.data(payload))
                .toList();
    }

    private static <T> T only(Effects effects, String type, Class<T> payload) {
        List<T> all = data(effects, type, payload);
        assertEquals(1, all.size(), () -> "one " + type + " in " + types(effects));
        return all.get(0);
    }

    /** Runs a terminating pod to the end: both containers exit, the sandbox stops. */
    private Effects exitAndStopSandbox(Pod pod, int appExit, int sidecarExit) {
        kubelet.containerExited(pod, "app", appExit);
        kubelet.containerExited(pod, "sidecar", sidecarExit);
        return kubelet.sandboxStopped(pod);
    }

    @Test
    void aPodIsStartedTerminatedReportedDeletedAndForgottenInTheFlowsOrder() {
        Pod pod = web1();

        Effects bound = kubelet.apiserver(POD_BOUND, pod);
        assertEquals(List.of(RUN_POD_SANDBOX_REQUESTED), types(bound));
        RunPodSandbox run = only(bound, RUN_POD_SANDBOX_REQUESTED, RunPodSandbox.class);
        assertEquals(
                List.of(
                        new RunPodSandbox.ContainerSpec("app", "nginx:1.27"),
                        new RunPodSandbox.ContainerSpec("sidecar", "busybox")),
                run.containers());
        assertEquals("0", run.annotations().get("podfall.io/exit-code"));
        assertEquals("/kubelet/node-1", bound.events().get(0).source());
        assertEquals("namespaces/default/pods/web-1", bound.events().get(0).subject());

        Effects sandbox = kubelet.sandboxStarted(pod);
        assertEquals(
                List.of("app", "sidecar"),
                data(sandbox, START_CONTAINER_REQUESTED, ContainerRef.class).stream()
                        .map(ContainerRef::containerName)
                        .toList());

        assertEquals(List.of(), types(kubelet.containerStarted(pod, "app")), "not all containers run yet");
        Effects allRunning = kubelet.containerStarted(pod, "sidecar");
        PodStatus running = only(allRunning, STATUS_UPDATE_REQUESTED, StatusUpdateRequest.class)
                .status();
        assertEquals("Running", running.getPhase());
        assertEquals("10.244.1.2", running.getPodIP());
        assertEquals(2, running.getContainerStatuses().size());
        ContainerStatus app = running.getContainerStatuses().get(0);
        assertEquals("podfall://" + KubeletDriver.containerId(pod, "app"), app.getContainerID());
        assertTrue(app.getReady());
        assertEquals(T0.toString(), app.getState().getRunning().getStartedAt());
        assertEquals(PodWorkerState.SyncPod, kubelet.worker(pod).status().workType());

        Pod terminating = kubelet.after(60).markedTerminating(pod, 30);
        Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, terminating);
        assertEquals(List.of(POD_TERMINATION_STARTED, STOP_CONTAINER_REQUESTED, STOP_CONTAINER_REQUESTED), types(kill));
        PodTermination termination = only(kill, POD_TERMINATION_STARTED, PodTermination.class);
        assertEquals(30, termination.gracePeriodSeconds());
        assertEquals(T0.plusSeconds(90), termination.deadline());
        assertEquals(
                List.of(30L, 30L),
                data(kill, STOP_CONTAINER_REQUESTED, StopContainer.class).stream()
                        .map(StopContainer::timeoutSeconds)
                        .toList());
        assertEquals(PodWorkerState.TerminatingPod, kubelet.worker(pod).status().workType());

        assertEquals(List.of(), types(kubelet.containerExited(pod, "app", 0)), "the sidecar still runs");
        assertEquals(List.of(STOP_POD_SANDBOX_REQUESTED), types(kubelet.containerExited(pod, "sidecar", 0)));

        Effects stopped = kubelet.sandboxStopped(pod);
        assertEquals(
                List.of(STATUS_UPDATE_REQUESTED, POD_TERMINATED),
                types(stopped),
                "the delete waits for the API server to hold the final status");
        assertTrue(kubelet.worker(pod).status().isFinished());
        assertEquals(List.of(DELETION_REQUESTED), types(kubelet.statusWritten(pod, stopped)));

        // The final delete stores grace 0 first (watch MODIFIED), then removes the pod (DELETED), as upstream.
        Pod atGraceZero = kubelet.markedTerminating(pod, 0);
        assertTrue(
                kubelet.apiserver(OBJECT_MARKED_TERMINATING, atGraceZero).isEmpty(),
                "a finished worker has nothing to kill, and its final delete is sent already");
        Effects removed = kubelet.apiserver(OBJECT_REMOVED, atGraceZero);
        assertEquals(List.of(REMOVE_POD_SANDBOX_REQUESTED), types(removed));
        assertEquals(new SandboxRef(NODE, "uid-web-1"), only(removed, REMOVE_POD_SANDBOX_REQUESTED, SandboxRef.class));
        assertNull(kubelet.worker(pod), "the worker is forgotten");
        assertFalse(kubelet.state.hasPod("uid-web-1"), "and the pod left the cache");
    }

    @Test
    void theStatusWritesItsTimesInWholeSecondsAsMetav1TimeIs() {
        Pod pod = web1();
        kubelet.at(T0.plusMillis(1_250)).apiserver(POD_BOUND, pod);
        kubelet.sandboxStarted(pod);
        kubelet.containerStarted(pod, "app");

        PodStatus running = only(
                        kubelet.after(2).containerStarted(pod, "sidecar"),
                        STATUS_UPDATE_REQUESTED,
                        StatusUpdateRequest.class)
                .status();

        assertEquals("2026-03-01T10:00:01Z", running.getStartTime(), "started at 10:00:01.250");
        assertEquals(
                List.of("2026-03-01T10:00:01Z", "2026-03-01T10:00:03Z", "2026-03-01T10:00:03Z", "2026-03-01T10:00:01Z"),
                running.getConditions().stream()
                        .map(PodCondition::getLastTransitionTime)
                        .toList());
    }

    @Nested
    class EffectiveGracePeriod {
        private final PodSyncStatus fresh = new PodSyncStatus(T0);

        private PodWorkers.EffectiveGracePeriod grace(PodSyncStatus status, Long spec, Long deletion) {
            var b = aPod("p").withUid("u").onNode(NODE);
            if (spec != null) {
                b.withGrace(spec);
            }
            if (deletion != null) {
                b.terminating(T0, deletion);
            }
            return PodWorkers.calculateEffectiveGracePeriod(status, b.build(), Compat.NONE);
        }

        @Test
        void usesTheSpecsTerminationGracePeriodWhenNoDeletionGracePeriodIsSet() {
            assertEquals(30, grace(fresh, 30L, null).seconds());
        }

        @Test
        void usesTheDeletionGracePeriodWhenSet() {
            assertEquals(5, grace(fresh, 30L, 5L).seconds());
        }

        @Test
        void usesOneWhenTheDeletionGracePeriodIsZero() {
            assertEquals(1, grace(fresh, 30L, 0L).seconds(), "a force delete is an override, not 'unset'");
        }

        @Test
        void defaultsToThirtySecondsWithoutASpecValue() {
            assertEquals(30, grace(fresh, null, null).seconds());
        }

        @Test
        void neverGoesBelowOneSecond() {
            assertEquals(1, grace(fresh, 0L, null).seconds());
        }

        @Test
        void neverGoesBeyondWhatAGoDurationHolds() {
            assertEquals(9_223_372_036L, grace(fresh, Long.MAX_VALUE, null).seconds());
        }

        @Test
        void anAbsurdGracePeriodTheApiServerAcceptedGetsATerminationWithADeadline() {
            Pod pod = kubelet.running(aPod("db-0")
                    .withUid("uid-db-0")
                    .onNode(NODE)
                    .withGrace(Long.MAX_VALUE)
                    .build());
            Pod terminating = new PodBuilder(pod)
                    .editMetadata()
                    .withDeletionTimestamp(T0.toString())
                    .withDeletionGracePeriodSeconds(Long.MAX_VALUE)
                    .endMetadata()
                    .build();
            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, terminating);
            PodTermination started = only(kill, POD_TERMINATION_STARTED, PodTermination.class);
            assertEquals(9_223_372_036L, started.gracePeriodSeconds());
            assertTrue(
                    started.deadline().isAfter(T0.plus(Duration.ofDays(365 * 292))),
                    started.deadline().toString());
        }

        @Test
        void onlyDecreases() {
            PodSyncStatus recorded = new PodSyncStatus(T0);
            recorded.gracePeriod = 10;
            assertEquals(new PodWorkers.EffectiveGracePeriod(10, false, null), grace(recorded, 30L, 20L));
            assertEquals(new PodWorkers.EffectiveGracePeriod(10, false, null), grace(recorded, 30L, 10L));
            assertEquals(new PodWorkers.EffectiveGracePeriod(3, true, null), grace(recorded, 30L, 3L));
        }

        @Test
        void theFirstValueIsNoShortening() {
            assertFalse(grace(fresh, 30L, 5L).shortened());
        }

        @Test
        void theDeletionGracePeriodReachesTheStopRequest() {
            Pod pod = kubelet.running(
                    aPod("db-0").withUid("uid-db-0").onNode(NODE).withGrace(30).build());
            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 5));
            assertEquals(
                    5, only(kill, POD_TERMINATION_STARTED, PodTermination.class).gracePeriodSeconds());
            assertEquals(
                    5, only(kill, STOP_CONTAINER_REQUESTED, StopContainer.class).timeoutSeconds());
        }
    }

    @Nested
    class GracePeriodChangesWhileTerminating {
        private final Pod pod = kubelet.running(web1());
        private final Pod terminating = kubelet.markedTerminating(pod, 30);

        GracePeriodChangesWhileTerminating() {
            kubelet.apiserver(OBJECT_MARKED_TERMINATING, terminating);
        }

        @Test
        void aShorterGracePeriodIsRecordedButTheKillInFlightKeepsItsDeadline() {
            Effects shortened =
                    kubelet.after(10).apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 15));

            assertEquals(List.of(GRACE_PERIOD_SHORTENED), types(shortened));
            GracePeriodShortened event = only(shortened, GRACE_PERIOD_SHORTENED, GracePeriodShortened.class);
            assertEquals(30, event.previousGracePeriodSeconds());
            assertEquals(15, event.gracePeriodSeconds());
            assertEquals(T0.plusSeconds(15), event.deadline(), "counted from when termination began");
            assertEquals(T0.plusSeconds(30), event.killDeadline());
            assertEquals(15, kubelet.worker(pod).status().gracePeriod());
        }

        @Test
        void aForceDeleteKillsOnItsGraceZeroMarkingAsTheRemovalAloneWouldAndTheRemovalOnlyOrphansIt() {
            KubeletDriver removalOnly = new KubeletDriver();
            Pod other = removalOnly.running(web1());
            removalOnly.apiserver(OBJECT_MARKED_TERMINATING, terminating);
            Effects killedByRemoval =
                    removalOnly.after(10).apiserver(OBJECT_REMOVED, removalOnly.markedTerminating(other, 0));

            Pod forced = kubelet.after(10).markedTerminating(pod, 0);
            Effects killedByMarking = kubelet.apiserver(OBJECT_MARKED_TERMINATING, forced);
            Effects removed = kubelet.apiserver(OBJECT_REMOVED, forced);

            assertEquals(
                    List.of(GRACE_PERIOD_SHORTENED),
                    types(killedByMarking),
                    "a released kubelet's kill in flight keeps its deadline");
            assertEquals(
                    killedByRemoval.events().stream().map(Event::data).toList(),
                    killedByMarking.events().stream().map(Event::data).toList(),
                    "the same kill, one fact earlier");
            assertTrue(removed.isEmpty(), "the shortening was recorded already");
            assertTrue(kubelet.worker(pod).isOrphan(), "no final status, no final delete");
        }

        @Test
        void aLongerOrEqualGracePeriodChangesNothing() {
            assertTrue(kubelet.after(5)
                    .apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 60))
                    .isEmpty());
            assertTrue(kubelet.apiserver(OBJECT_MARKED_TERMINATING, terminating).isEmpty());
            assertTrue(kubelet.apiserver(POD_STATUS_UPDATED, terminating).isEmpty());
            assertEquals(30, kubelet.worker(pod).status().gracePeriod());
        }
    }

    @Nested
    class FinalStatusAndDelete {
        private final Pod pod = kubelet.running(web1());

        FinalStatusAndDelete() {
            kubelet.after(1).apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));
        }

        @Test
        void isFailedWhenAContainerExitedWith143() {
            Effects done = exitAndStopSandbox(pod, 143, 0);
            PodStatus status = only(done, STATUS_UPDATE_REQUESTED, StatusUpdateRequest.class)
                    .status();
            assertEquals("Failed", status.getPhase());
            var app = status.getContainerStatuses().get(0).getState().getTerminated();
            assertEquals(143, app.getExitCode());
            assertEquals("Error", app.getReason());
            assertEquals("podfall://" + KubeletDriver.containerId(pod, "app"), app.getContainerID());
            assertFalse(status.getContainerStatuses().get(0).getReady());
            assertEquals(
                    "False",
                    status.getConditions().stream()
                            .filter(c -> c.getType().equals("Ready"))
                            .findFirst()
                            .orElseThrow()
                            .getStatus());
        }

        @Test
        void isSucceededWhenEveryContainerExitedWithZero() {
            Effects done = exitAndStopSandbox(pod, 0, 0);
            PodStatus status = only(done, STATUS_UPDATE_REQUESTED, StatusUpdateRequest.class)
                    .status();
            assertEquals("Succeeded", status.getPhase());
            assertEquals(
                    "Completed",
                    status.getContainerStatuses()
                            .get(1)
                            .getState()
                            .getTerminated()
                            .getReason());
        }

        @Test
        void theFinalDeleteCarriesGraceZeroAndTheUidPrecondition() {
            Effects done = kubelet.statusWritten(pod, exitAndStopSandbox(pod, 137, 143));
            Event delete = done.events().get(0);
            assertEquals(DELETION_REQUESTED, delete.type());
            assertEquals("/kubelet/node-1", delete.source());
            DeletionRequest request = delete.data(DeletionRequest.class);
            assertEquals("pods", request.resource());
            assertEquals("default", request.namespace());
            assertEquals("web-1", request.name());
            assertEquals(0L, request.options().getGracePeriodSeconds());
            assertEquals("uid-web-1", request.options().getPreconditions().getUid());
        }

        @Test
        void isAskedForOnceWhateverUpdatesFollow() {
            Effects done = exitAndStopSandbox(pod, 0, 0);
            assertEquals(List.of(DELETION_REQUESTED), types(kubelet.statusWritten(pod, done)));
            assertTrue(kubelet.statusWritten(pod, done).isEmpty(), "a redelivered status");
            assertTrue(
                    kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 1))
                            .isEmpty(),
                    "a second DELETE while a finalizer holds the pod");
        }

        @Test
        void podTerminatedCarriesTheGracePeriodItWasKilledWith() {
            PodTermination terminated = only(exitAndStopSandbox(pod, 0, 0), POD_TERMINATED, PodTermination.class);
            assertEquals(30, terminated.gracePeriodSeconds());
            assertEquals("uid-web-1", terminated.podUid());
        }
    }

    @Test
    void podsOfOtherNodesAreIgnored() {
        Pod elsewhere = aPod("web-2").withUid("uid-web-2").onNode("node-2").build();
        assertTrue(kubelet.apiserver(POD_BOUND, elsewhere).isEmpty());
        assertTrue(kubelet.sandboxStarted(elsewhere).isEmpty());
        assertTrue(kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(elsewhere, 30))
                .isEmpty());
        assertFalse(kubelet.state.hasPod("uid-web-2"));
        assertTrue(kubelet.state.workers.isEmpty());
    }

    @Test
    void unscheduledPodsAreCachedNowhereAndStartNothing() {
        assertTrue(kubelet.apiserver(
                        OBJECT_CREATED, aPod("pending").withUid("uid-pending").build())
                .isEmpty());
        assertTrue(kubelet.state.pods.isEmpty());
    }

    @Test
    void oneKubeletRunsThePodsOfEachOfItsNodes() {
        KubeletDriver two = new KubeletDriver("node-1", "node-2");
        Effects bound = two.apiserver(
                POD_BOUND, aPod("web-2").withUid("uid-web-2").onNode("node-2").build());
        assertEquals("/kubelet/node-2", bound.events().get(0).source());
        assertEquals(
                "node-2",
                only(bound, RUN_POD_SANDBOX_REQUESTED, RunPodSandbox.class).node());
    }

    @Test
    void everyFactDeliveredTwiceChangesNothingTheSecondTime() {
        Pod pod = web1();
        kubelet.apiserver(POD_BOUND, pod);
        kubelet.apiserver(POD_BOUND, pod);
        kubelet.sandboxStarted(pod);
        kubelet.containerStarted(pod, "app");
        kubelet.containerStarted(pod, "sidecar");
        kubelet.apiserver(POD_STATUS_UPDATED, pod);
        Pod terminating = kubelet.after(5).markedTerminating(pod, 30);
        kubelet.apiserver(OBJECT_MARKED_TERMINATING, terminating);
        exitAndStopSandbox(pod, 143, 143);
        kubelet.apiserver(POD_STATUS_UPDATED, terminating);
        kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 0));
        kubelet.apiserver(OBJECT_REMOVED, kubelet.markedTerminating(pod, 0));

        for (Event fact : List.copyOf(kubelet.delivered)) {
            assertTrue(kubelet.redeliver(fact).isEmpty(), () -> "a repeated " + fact.type() + " emitted something");
        }
        assertTrue(kubelet.state.workers.isEmpty());
    }

    @Test
    void aRepeatedFactWhileRunningEmitsNothing() {
        Pod pod = web1();
        kubelet.apiserver(POD_BOUND, pod);
        Effects sandbox = kubelet.sandboxStarted(pod);
        Event started = kubelet.delivered.get(kubelet.delivered.size() - 1);
        assertEquals(2, sandbox.events().size());
        assertTrue(kubelet.redeliver(started).isEmpty(), "containers are not started twice");
        kubelet.containerStarted(pod, "app");
        kubelet.containerStarted(pod, "sidecar");
        Event last = kubelet.delivered.get(kubelet.delivered.size() - 1);
        assertEquals(CONTAINER_STARTED, last.type());
        assertTrue(kubelet.redeliver(last).isEmpty(), "the Running status is reported once");
    }

    @Test
    void aForgottenUidIsNeverStartedAgain() {
        Pod pod = kubelet.running(web1());
        Pod terminating = kubelet.markedTerminating(pod, 30);
        kubelet.apiserver(OBJECT_MARKED_TERMINATING, terminating);
        exitAndStopSandbox(pod, 0, 0);
        kubelet.apiserver(OBJECT_REMOVED, terminating);

        assertTrue(kubelet.apiserver(POD_BOUND, pod).isEmpty());
        assertTrue(kubelet.state.isForgotten("uid-web-1"));
        assertFalse(kubelet.state.hasPod("uid-web-1"), "not even cached again");
    }

    @Test
    void aFinishedPodWhoseObjectStaysTakesNoMoreUpdates() {
        Pod pod = kubelet.running(web1());
        Pod terminating = kubelet.markedTerminating(pod, 30);
        kubelet.apiserver(OBJECT_MARKED_TERMINATING, terminating);
        exitAndStopSandbox(pod, 0, 0);

        assertTrue(kubelet.apiserver(POD_STATUS_UPDATED, terminating).isEmpty(), "e.g. held by a finalizer");
        assertTrue(kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 1))
                .isEmpty());
    }

    @Nested
    class ForceRemovedPod {
        private final Pod pod = kubelet.running(web1());

        @Test
        void stillHasItsContainersStoppedButGetsNoFinalStatusOrDelete() {
            Pod forced = kubelet.markedTerminating(pod, 0);
            Effects marked = kubelet.apiserver(OBJECT_MARKED_TERMINATING, forced);
            assertEquals(
                    1,
                    only(marked, POD_TERMINATION_STARTED, PodTermination.class).gracePeriodSeconds());
            assertEquals(
                    List.of(2L, 2L),
                    data(marked, STOP_CONTAINER_REQUESTED, StopContainer.class).stream()
                            .map(StopContainer::timeoutSeconds)
                            .toList(),
                    "killContainer's minimum shutdown window");
            assertTrue(kubelet.apiserver(OBJECT_REMOVED, forced).isEmpty(), "the kill is in flight already");
            assertTrue(kubelet.worker(pod).isOrphan());

            kubelet.containerExited(pod, "app", 137);
            assertEquals(List.of(STOP_POD_SANDBOX_REQUESTED), types(kubelet.containerExited(pod, "sidecar", 137)));
            Effects stopped = kubelet.sandboxStopped(pod);

            assertEquals(List.of(POD_TERMINATED, REMOVE_POD_SANDBOX_REQUESTED), types(stopped));
            assertNull(kubelet.worker(pod), "nothing is left to wait for");
            assertTrue(kubelet.state.isForgotten("uid-web-1"));
        }

        @Test
        void removedWithoutADeletionGracePeriodIsKilledWithTheSpecsGracePeriod() {
            Effects removed = kubelet.after(3).apiserver(OBJECT_REMOVED, pod);
            assertEquals(
                    List.of(POD_TERMINATION_STARTED, STOP_CONTAINER_REQUESTED, STOP_CONTAINER_REQUESTED),
                    types(removed));
            assertEquals(
                    30,
                    only(removed, POD_TERMINATION_STARTED, PodTermination.class).gracePeriodSeconds());
            assertTrue(kubelet.worker(pod).status().isDeleted());
        }
    }

    @Nested
    class PodDeletedBeforeItStarted {
        private final Pod pod = web1();

        @Test
        void seenTerminatingAtOnceIsReportedAndDeletedWithoutTouchingTheRuntime() {
            Effects effects = kubelet.apiserver(OBJECT_CREATED, kubelet.markedTerminating(pod, 30));

            assertEquals(List.of(POD_TERMINATION_STARTED, STATUS_UPDATE_REQUESTED, POD_TERMINATED), types(effects));
            assertEquals(List.of(DELETION_REQUESTED), types(kubelet.statusWritten(pod, effects)));
            PodStatus status = only(effects, STATUS_UPDATE_REQUESTED, StatusUpdateRequest.class)
                    .status();
            assertEquals("Failed", status.getPhase(), "a pod that never ran is not reported successful");
            var app = status.getContainerStatuses().get(0).getState().getTerminated();
            assertEquals(137, app.getExitCode());
            assertEquals("ContainerStatusUnknown", app.getReason());
        }

        @Test
        void withItsSandboxRequestedStopsTheSandboxOnceItRunsAndStartsNoContainer() {
            kubelet.apiserver(POD_BOUND, pod);
            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));
            assertEquals(List.of(POD_TERMINATION_STARTED), types(kill));

            assertEquals(List.of(STOP_POD_SANDBOX_REQUESTED), types(kubelet.sandboxStarted(pod)));
            Effects stopped = kubelet.sandboxStopped(pod);
            assertEquals(List.of(STATUS_UPDATE_REQUESTED, POD_TERMINATED), types(stopped));
            assertEquals(List.of(DELETION_REQUESTED), types(kubelet.statusWritten(pod, stopped)));
        }

        @Test
        void withContainersStartingStopsEachAsItComesUpAndNeverReportsRunning() {
            kubelet.apiserver(POD_BOUND, pod);
            kubelet.sandboxStarted(pod);
            kubelet.containerStarted(pod, "app");
            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));
            assertEquals(List.of(POD_TERMINATION_STARTED, STOP_CONTAINER_REQUESTED), types(kill));

            Effects late = kubelet.after(4).containerStarted(pod, "sidecar");
            assertEquals(List.of(STOP_CONTAINER_REQUESTED), types(late));
            assertEquals(
                    26,
                    only(late, STOP_CONTAINER_REQUESTED, StopContainer.class).timeoutSeconds());

            kubelet.containerExited(pod, "app", 143);
            assertEquals(List.of(STOP_POD_SANDBOX_REQUESTED), types(kubelet.containerExited(pod, "sidecar", 143)));
        }

        @Test
        void removedBeforeTheKubeletSawItBoundHasNoWorkerToTearDown() {
            kubelet.apiserver(OBJECT_CREATED, aPod("web-1").withUid("uid-web-1").build());
            assertTrue(kubelet.apiserver(OBJECT_REMOVED, kubelet.markedTerminating(pod, 0))
                    .isEmpty());
            assertTrue(kubelet.state.workers.isEmpty());
        }
    }

    @Nested
    class NodeRegistration {
        private final KubeletDriver two = new KubeletDriver("node-1", "node-2");

        @Test
        void registersOnlyTheNodesTheApiServerDoesNotHold() {
            Node node1 = new NodeBuilder()
                    .withNewMetadata()
                    .withName("node-1")
                    .endMetadata()
                    .build();
            assertTrue(two.apiserver(OBJECT_CREATED, node1).isEmpty());

            List<Event> requests = two.core.registerNodes(two.state, T0);

            assertEquals(1, requests.size());
            Event request = requests.get(0);
            assertEquals(EventTypes.CREATION_REQUESTED, request.type());
            assertEquals("/kubelet/node-2", request.source());
            assertEquals("nodes/node-2", request.subject());
            assertNull(request.causationId(), "a request of its own");
            CreationRequest creation = request.data(CreationRequest.class);
            assertEquals("nodes", creation.resource());
            assertEquals("", creation.namespace());
            assertEquals(
                    "node-2", creation.object().path("metadata").path("name").asText());
        }

        @Test
        void registersEveryNodeOnAnEmptyLogAndNoneOnceAllAreKnown() {
            assertEquals(
                    List.of("nodes/node-1", "nodes/node-2"),
                    two.core.registerNodes(two.state, T0).stream()
                            .map(Event::subject)
                            .toList());
            for (String name : List.of("node-1", "node-2")) {
                two.apiserver(
                        OBJECT_CREATED,
                        new NodeBuilder()
                                .withNewMetadata()
                                .withName(name)
                                .endMetadata()
                                .build());
            }
            assertEquals(List.of(), two.core.registerNodes(two.state, T0));
        }

        @Test
        void theSameCallGivesTheSameRequests() {
            assertEquals(two.core.registerNodes(two.state, T0), two.core.registerNodes(two.state, T0));
        }

        @Test
        void nodesOfOtherKubeletsAreNotCached() {
            two.apiserver(
                    OBJECT_CREATED,
                    new NodeBuilder()
                            .withNewMetadata()
                            .withName("node-9")
                            .endMetadata()
                            .build());
            assertFalse(two.state.isRegistered("node-9"));
        }
    }

    @Test
    void anUpdatedPodKeepsTheKubeletsViewCurrentAndStartsNothing() {
        KubeletDriver kubelet = new KubeletDriver();
        Pod pod = kubelet.running(web1());
        Pod labelled = new io.fabric8.kubernetes.api.model.PodBuilder(pod)
                .editMetadata()
                .addToLabels("tier", "web")
                .endMetadata()
                .build();

        assertTrue(
                kubelet.apiserver(EventTypes.OBJECT_UPDATED, labelled).events().isEmpty(),
                "a label is no reason to act");
        assertEquals("web", kubelet.worker(pod).pod().getMetadata().getLabels().get("tier"));
    }
}
