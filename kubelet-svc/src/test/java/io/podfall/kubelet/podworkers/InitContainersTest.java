package io.podfall.kubelet.podworkers;

import static io.podfall.kubelet.podworkers.KubeletDriver.NODE;
import static io.podfall.kubelet.podworkers.KubeletDriver.only;
import static io.podfall.kubelet.podworkers.KubeletDriver.types;
import static io.podfall.model.event.EventTypes.OBJECT_MARKED_TERMINATING;
import static io.podfall.model.event.EventTypes.POD_BOUND;
import static io.podfall.model.event.EventTypes.POD_TERMINATION_STARTED;
import static io.podfall.model.event.EventTypes.PRE_STOP_HOOK_STARTED;
import static io.podfall.model.event.EventTypes.START_CONTAINER_REQUESTED;
import static io.podfall.model.event.EventTypes.STATUS_UPDATE_REQUESTED;
import static io.podfall.model.event.EventTypes.STOP_CONTAINER_REQUESTED;
import static io.podfall.model.event.EventTypes.STOP_POD_SANDBOX_REQUESTED;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.podfall.model.apiserver.StatusUpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.kubelet.PreStopHookStart;
import io.podfall.model.runtime.ContainerRef;
import io.podfall.model.runtime.RunPodSandbox;
import io.podfall.model.runtime.StopContainer;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Init containers and sidecars: started one after the other before the main containers (kuberuntime_manager.go
 * computePodActions), the status they give the pod (kubelet_pods.go getPhase, status/generate.go), and the order they
 * are stopped in (kuberuntime_container.go killContainersWithSyncResult, kuberuntime_termination_order.go).
 */
class InitContainersTest {
    private static final String UID = "uid-web-1";

    private final KubeletDriver kubelet = new KubeletDriver();

    /**
     * A regular init container {@code setup}, the sidecars {@code proxy} then {@code log}, and the main {@code app}.
     */
    private static Pod pod(String restartPolicy) {
        var b = aPod("web-1")
                .withUid(UID)
                .onNode(NODE)
                .withGrace(30)
                .withInitContainer("setup")
                .withSidecar("proxy")
                .withSidecar("log");
        return (restartPolicy == null ? b : b.withRestartPolicy(restartPolicy)).build();
    }

    /** Two sidecars and the main container, no regular init container. */
    private static Pod sidecarsOnly() {
        return aPod("web-1")
                .withUid(UID)
                .onNode(NODE)
                .withGrace(30)
                .withSidecar("proxy")
                .withSidecar("log")
                .build();
    }

    private static List<String> started(Effects effects) {
        return effects.events().stream()
                .filter(e -> e.is(START_CONTAINER_REQUESTED))
                .map(e -> e.data(ContainerRef.class).containerName())
                .toList();
    }

    private static List<String> stopped(Effects effects) {
        return effects.events().stream()
                .filter(e -> e.is(STOP_CONTAINER_REQUESTED))
                .map(e -> e.data(StopContainer.class).containerName() + "="
                        + e.data(StopContainer.class).timeoutSeconds())
                .toList();
    }

    private static PodStatus status(Effects effects) {
        List<Event> all = effects.events().stream()
                .filter(e -> e.is(STATUS_UPDATE_REQUESTED))
                .toList();
        return all.get(all.size() - 1).data(StatusUpdateRequest.class).status();
    }

    private static PodCondition condition(PodStatus status, String type) {
        return status.getConditions().stream()
                .filter(c -> c.getType().equals(type))
                .findFirst()
                .orElseThrow();
    }

    private static ContainerStatus named(List<ContainerStatus> statuses, String name) {
        return statuses.stream()
                .filter(c -> c.getName().equals(name))
                .findFirst()
                .orElseThrow();
    }

    private static Timer turn(Effects effects, String container) {
        return effects.timers().stream()
                .filter(t -> t.key().equals(new PodWorkerTimer.Turn(NODE, UID, container)))
                .findFirst()
                .orElseThrow();
    }

    /** Runs a pod of sidecars (and no regular init container) until every container runs. */
    private Pod running(Pod pod) {
        kubelet.apiserver(POD_BOUND, pod);
        kubelet.sandboxStarted(pod);
        for (var c : pod.getSpec().getInitContainers()) {
            kubelet.containerStarted(pod, c.getName());
        }
        kubelet.containerStarted(pod, "app");
        return pod;
    }

    @Nested
    class Startup {
        @Test
        void initContainersStartOneAfterTheOtherThenTheMainContainers() {
            Pod pod = pod(null);
            Effects bound = kubelet.apiserver(POD_BOUND, pod);
            RunPodSandbox sandbox = only(bound, "runtime.RunPodSandboxRequested", RunPodSandbox.class);
            assertEquals(
                    List.of("setup=true", "proxy=null", "log=null", "app=null"),
                    sandbox.containers().stream()
                            .map(c -> c.name() + "=" + c.init())
                            .toList(),
                    "init containers first; only the regular one runs to completion");

            assertEquals(List.of("setup"), started(kubelet.sandboxStarted(pod)));
            assertEquals(List.of(), started(kubelet.containerStarted(pod, "setup")), "setup must complete first");
            assertEquals(List.of("proxy"), started(kubelet.containerExited(pod, "setup", 0)));
            assertEquals(List.of("log"), started(kubelet.containerStarted(pod, "proxy")), "a sidecar must run");
            assertEquals(List.of("app"), started(kubelet.containerStarted(pod, "log")));

            PodStatus running = status(kubelet.containerStarted(pod, "app"));
            assertEquals("Running", running.getPhase());
            assertEquals("True", condition(running, "Initialized").getStatus());
            assertEquals("True", condition(running, "ContainersReady").getStatus());
            assertEquals("True", condition(running, "Ready").getStatus());
            ContainerStatus setup = named(running.getInitContainerStatuses(), "setup");
            assertEquals("Completed", setup.getState().getTerminated().getReason());
            assertEquals(true, setup.getReady());
            ContainerStatus proxy = named(running.getInitContainerStatuses(), "proxy");
            assertEquals(true, proxy.getStarted());
            assertEquals(true, proxy.getReady());
        }

        /** With upstream's waits, each next step waits for the PLEG's relist that sees the last one. */
        @Test
        void withUpstreamsWaitsEachStepComesAtTheRelistThatSawTheLastOne() {
            KubeletDriver k = new KubeletDriver(new PodWorkers(List.of(NODE), Compat.NONE, 30, KubeletTiming.UPSTREAM));
            Pod pod = pod(null);
            k.apiserver(POD_BOUND, pod);
            assertEquals(List.of("setup"), started(k.sandboxStarted(pod)), "RunPodSandbox returned within SyncPod");

            k.containerStarted(pod, "setup");
            Effects exited = k.after(1).containerExited(pod, "setup", 0);
            assertEquals(List.of(), started(exited), "not before the relist");
            Timer relist = exited.timers().stream()
                    .filter(t -> t.key().equals(new PodWorkerTimer.Relist(NODE, UID)))
                    .findFirst()
                    .orElseThrow();
            Effects synced = k.fire(relist);
            assertEquals(List.of("proxy"), started(synced));
            assertEquals(
                    1,
                    synced.events().stream()
                            .filter(e -> e.is(STATUS_UPDATE_REQUESTED))
                            .count(),
                    "one sync, one status");

            Effects proxy = k.containerStarted(pod, "proxy");
            assertEquals(List.of(), started(proxy));
            Timer next = proxy.timers().stream()
                    .filter(t -> t.key().equals(new PodWorkerTimer.Relist(NODE, UID)))
                    .findFirst()
                    .orElseThrow();
            assertTrue(next.at().isAfter(k.now));
            assertEquals(List.of("log"), started(k.fire(next)));
        }

        @Test
        void whileInitContainersRunThePodIsPendingAndNotInitialized() {
            Pod pod = pod(null);
            kubelet.apiserver(POD_BOUND, pod);
            kubelet.sandboxStarted(pod);

            PodStatus init = status(kubelet.containerStarted(pod, "setup"));
            assertEquals("Pending", init.getPhase());
            PodCondition initialized = condition(init, "Initialized");
            assertEquals("False", initialized.getStatus());
            assertEquals("ContainersNotInitialized", initialized.getReason());
            assertEquals("containers with incomplete status: [setup proxy log]", initialized.getMessage());
            ContainerStatus setup = named(init.getInitContainerStatuses(), "setup");
            assertEquals(true, setup.getStarted());
            assertEquals(false, setup.getReady(), "a regular init container is ready once it completed");
            assertEquals(
                    "PodInitializing",
                    named(init.getInitContainerStatuses(), "proxy")
                            .getState()
                            .getWaiting()
                            .getReason());
            assertEquals(
                    "PodInitializing",
                    named(init.getContainerStatuses(), "app")
                            .getState()
                            .getWaiting()
                            .getReason());
            assertEquals(
                    "containers with unready status: [proxy log app]",
                    condition(init, "ContainersReady").getMessage(),
                    "sidecars count for readiness, a regular init container does not");

            kubelet.containerExited(pod, "setup", 0);
            PodStatus sidecar = status(kubelet.containerStarted(pod, "proxy"));
            assertEquals("Pending", sidecar.getPhase());
            assertEquals(
                    "containers with incomplete status: [log]",
                    condition(sidecar, "Initialized").getMessage());
        }

        @Test
        void aFailedInitContainerIsRestartedWithTheBackOffAndHoldsTheRest() {
            Pod pod = pod("OnFailure");
            kubelet.apiserver(POD_BOUND, pod);
            kubelet.sandboxStarted(pod);
            kubelet.containerStarted(pod, "setup");

            Effects failed = kubelet.containerExited(pod, "setup", 1);
            assertEquals(List.of("setup"), started(failed), "the first restart comes at once");
            assertEquals(
                    1,
                    only(failed, START_CONTAINER_REQUESTED, ContainerRef.class).attempt());

            kubelet.after(1).containerStarted(pod, "setup", 1);
            Effects again = kubelet.after(1).containerExited(pod, "setup", 1, 1);
            assertEquals(List.of(), started(again), "then it waits out the back-off");
            PodStatus status = status(again);
            assertEquals("Pending", status.getPhase());
            assertEquals(
                    PodStatuses.CRASH_LOOP_BACK_OFF,
                    named(status.getInitContainerStatuses(), "setup")
                            .getState()
                            .getWaiting()
                            .getReason());
            assertTrue(again.timers().stream()
                    .anyMatch(t -> t.key().equals(new PodWorkerTimer.BackOff(NODE, UID, "setup"))));
        }

        @Test
        void aFailedInitContainerFailsThePodUnderRestartPolicyNever() {
            Pod pod = pod("Never");
            kubelet.apiserver(POD_BOUND, pod);
            kubelet.sandboxStarted(pod);
            kubelet.containerStarted(pod, "setup");

            Effects failed = kubelet.containerExited(pod, "setup", 1);
            assertEquals(List.of(), started(failed), "neither restarted nor followed by the sidecars");
            assertEquals("Failed", status(failed).getPhase());
            assertEquals("False", condition(status(failed), "Initialized").getStatus());
            assertTrue(types(failed).contains(POD_TERMINATION_STARTED));
            assertTrue(types(failed).contains(STOP_POD_SANDBOX_REQUESTED), "nothing runs: the sandbox goes");
        }

        @Test
        void aSidecarIsRestartedWhateverThePodsRestartPolicy() {
            Pod pod = running(aPod("web-1")
                    .withUid(UID)
                    .onNode(NODE)
                    .withRestartPolicy("Never")
                    .withSidecar("proxy")
                    .build());

            Effects exited = kubelet.after(5).containerExited(pod, "proxy", 1);
            assertEquals(List.of("proxy"), started(exited));
            assertEquals(
                    1,
                    only(exited, START_CONTAINER_REQUESTED, ContainerRef.class).attempt());
        }

        @Test
        void aPodWhoseMainContainersCompletedEndsAndStopsItsSidecars() {
            Pod pod = running(aPod("web-1")
                    .withUid(UID)
                    .onNode(NODE)
                    .withGrace(30)
                    .withRestartPolicy("Never")
                    .withSidecar("proxy")
                    .withSidecar("log")
                    .build());

            Effects done = kubelet.after(5).containerExited(pod, "app", 0);
            assertEquals("Succeeded", status(done).getPhase(), "running sidecars do not hold the pod");
            assertEquals(List.of("log=30"), stopped(done), "the last sidecar first");
            assertEquals(List.of("proxy=29"), stopped(kubelet.after(1).containerExited(pod, "log", 143)));
        }
    }

    @Nested
    class Termination {
        private final Pod pod = running(sidecarsOnly());

        @Test
        void mainContainersStopFirstThenTheSidecarsInReverseOrder() {
            Effects kill = kubelet.after(10).apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));
            assertEquals(List.of("app=30"), stopped(kill), "each sidecar waits for its turn");
            assertEquals(kubelet.now.plusSeconds(30), turn(kill, "proxy").at(), "bounded by the grace period");
            assertEquals(kubelet.now.plusSeconds(30), turn(kill, "log").at());

            Effects appExited = kubelet.after(3).containerExited(pod, "app", 143);
            assertEquals(List.of("log=27"), stopped(appExited), "the grace period left");
            assertEquals(List.of(new PodWorkerTimer.Turn(NODE, UID, "log")), appExited.cancelledTimers());

            Effects logExited = kubelet.after(1).containerExited(pod, "log", 143);
            assertEquals(List.of("proxy=26"), stopped(logExited));

            Effects proxyExited = kubelet.after(1).containerExited(pod, "proxy", 143);
            assertEquals(List.of(STOP_POD_SANDBOX_REQUESTED), types(proxyExited));
        }

        @Test
        void aSidecarsWaitEndsWithTheGracePeriodAndItGetsTheMinimum() {
            Effects kill = kubelet.after(10).apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));

            Effects logTurn = kubelet.fire(turn(kill, "log"));
            assertEquals(List.of("log=2"), stopped(logTurn), "minimumGracePeriodInSeconds");
            Effects proxyTurn = kubelet.fire(turn(kill, "proxy"));
            assertEquals(List.of("proxy=2"), stopped(proxyTurn), "its own wait ended too, whatever log does");
            assertNull(kubelet.worker(pod).container("proxy").turnDueAt);
            assertEquals(List.of(), stopped(kubelet.containerExited(pod, "app", 137)), "nobody waits any more");
        }

        @Test
        void aSidecarsPreStopHookRunsAtOnceBeforeItWaitsForItsTurn() {
            Pod hooked = new PodBuilder(pod)
                    .editSpec()
                    .editMatchingInitContainer(c -> c.getName().equals("proxy"))
                    .withNewLifecycle()
                    .withNewPreStop()
                    .withNewSleep()
                    .withSeconds(5L)
                    .endSleep()
                    .endPreStop()
                    .endLifecycle()
                    .endInitContainer()
                    .endSpec()
                    .build();
            Effects kill =
                    kubelet.after(10).apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(hooked, 30));
            assertEquals(
                    "proxy",
                    only(kill, PRE_STOP_HOOK_STARTED, PreStopHookStart.class).containerName());
            assertEquals(List.of("app=30"), stopped(kill), "in parallel with the main container's stop");

            Timer hook = kill.timers().stream()
                    .filter(t -> t.key().equals(new PodWorkerTimer.PreStop(NODE, UID, "proxy")))
                    .findFirst()
                    .orElseThrow();
            Effects hookDone = kubelet.fire(hook);
            assertEquals(List.of(), stopped(hookDone), "app and log still run: proxy waits");
            assertEquals(kubelet.now.plusSeconds(25), turn(hookDone, "proxy").at(), "what the hook left of the grace");

            kubelet.after(1).containerExited(pod, "app", 143);
            assertEquals(List.of("proxy=23"), stopped(kubelet.after(1).containerExited(pod, "log", 143)));
        }

        @Test
        void aRunningRegularInitContainerIsStoppedAtOnceAndNotWaitedFor() {
            Pod init = aPod("web-1")
                    .withUid(UID)
                    .onNode(NODE)
                    .withGrace(30)
                    .withSidecar("proxy")
                    .withInitContainer("migrate")
                    .build();
            KubeletDriver k = new KubeletDriver();
            k.apiserver(POD_BOUND, init);
            k.sandboxStarted(init);
            k.containerStarted(init, "proxy");
            k.containerStarted(init, "migrate");

            Effects kill = k.after(1).apiserver(OBJECT_MARKED_TERMINATING, k.markedTerminating(init, 30));
            assertEquals(List.of("proxy=30", "migrate=30"), stopped(kill), "no main container runs: no wait");
        }
    }
}
