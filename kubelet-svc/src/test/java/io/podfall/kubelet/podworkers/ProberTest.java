package io.podfall.kubelet.podworkers;

import static io.podfall.kubelet.podworkers.KubeletDriver.NODE;
import static io.podfall.kubelet.podworkers.KubeletDriver.T0;
import static io.podfall.model.event.EventTypes.CONTAINER_PROBE_FAILED;
import static io.podfall.model.event.EventTypes.OBJECT_MARKED_TERMINATING;
import static io.podfall.model.event.EventTypes.POD_BOUND;
import static io.podfall.model.event.EventTypes.START_CONTAINER_REQUESTED;
import static io.podfall.model.event.EventTypes.STATUS_UPDATE_REQUESTED;
import static io.podfall.model.event.EventTypes.STOP_CONTAINER_REQUESTED;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.podfall.model.apiserver.StatusUpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.core.TimerQueue;
import io.podfall.model.event.Event;
import io.podfall.model.kubelet.ContainerProbeFailure;
import io.podfall.model.runtime.ContainerRef;
import io.podfall.model.runtime.StopContainer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The prober (pkg/kubelet/prober): readiness, liveness and startup probes whose outcome the pod declares, their
 * thresholds and initial values, readiness in the status, the kill of a failed liveness or startup probe with the
 * probe's grace period, and the probes' end with the pod's termination.
 */
class ProberTest {
    private static final String UID = "uid-web-1";

    /** A kubelet with a timer queue: every effect's timers are kept and fired in order as the clock moves. */
    private static final class Run {
        final KubeletDriver kubelet;
        final TimerQueue timers = new TimerQueue();
        final List<Event> events = new ArrayList<>();
        final List<Timer> set = new ArrayList<>();

        Run(KubeletTiming timing) {
            kubelet = new KubeletDriver(new PodWorkers(List.of(NODE), Compat.NONE, 30, timing));
        }

        Effects track(Effects effects) {
            timers.apply(effects);
            events.addAll(effects.events());
            set.addAll(effects.timers());
            return effects;
        }

        /** The pod bound, its sandbox and its container started, all at T0. */
        Run started(Pod pod) {
            track(kubelet.at(T0).apiserver(POD_BOUND, pod));
            track(kubelet.sandboxStarted(pod));
            track(kubelet.containerStarted(pod, "app"));
            return this;
        }

        /** Fires every timer due up to {@code t}, in order, and moves the clock there. */
        Run until(Instant t) {
            for (var next = timers.pollDue(t); next.isPresent(); next = timers.pollDue(t)) {
                track(kubelet.fire(next.get()));
            }
            kubelet.at(t);
            return this;
        }

        Effects at(Instant t, Supplier<Effects> fact) {
            until(t);
            return track(fact.get());
        }

        List<Event> of(String type) {
            return events.stream().filter(e -> e.is(type)).toList();
        }

        List<PodStatus> statuses() {
            return of(STATUS_UPDATE_REQUESTED).stream()
                    .map(e -> e.data(StatusUpdateRequest.class).status())
                    .toList();
        }

        /** Whether a probe timer is still set. */
        boolean probing() {
            return set.stream().anyMatch(t -> t.key() instanceof PodWorkerTimer.Probe && timers.isCurrent(t));
        }
    }

    private static Probe probe(int period, int failureThreshold, Long grace) {
        return new ProbeBuilder()
                .withNewExec()
                .withCommand("true")
                .endExec()
                .withPeriodSeconds(period)
                .withFailureThreshold(failureThreshold)
                .withTerminationGracePeriodSeconds(grace)
                .build();
    }

    private static PodBuilder pod(Map<String, String> annotations) {
        return new PodBuilder(
                        aPod("web-1").withUid(UID).onNode(NODE).withGrace(30).build())
                .editMetadata()
                .withAnnotations(annotations)
                .endMetadata();
    }

    private static Pod withReadiness(Map<String, String> annotations, Probe readiness) {
        return pod(annotations)
                .editSpec()
                .editFirstContainer()
                .withReadinessProbe(readiness)
                .endContainer()
                .endSpec()
                .build();
    }

    private static Pod withLiveness(Map<String, String> annotations, Probe liveness) {
        return pod(annotations)
                .editSpec()
                .editFirstContainer()
                .withLivenessProbe(liveness)
                .endContainer()
                .endSpec()
                .build();
    }

    private static ContainerStatus app(PodStatus status) {
        return status.getContainerStatuses().get(0);
    }

    private static String condition(PodStatus status, String type) {
        return status.getConditions().stream()
                .filter(c -> c.getType().equals(type))
                .findFirst()
                .orElseThrow()
                .getStatus();
    }

    private static Instant firstReadyAt(Run run) {
        return run.of(STATUS_UPDATE_REQUESTED).stream()
                .filter(e -> "True"
                        .equals(condition(e.data(StatusUpdateRequest.class).status(), "Ready")))
                .map(Event::time)
                .findFirst()
                .orElse(null);
    }

    @Test
    void aProbeTakesUpstreamsDefaults() {
        Pod pod = withReadiness(
                Map.of(), new ProbeBuilder().withNewTcpSocket().endTcpSocket().build());
        assertEquals(
                List.of(new ProbeSpec("app", ProbeType.READINESS, "tcpSocket", 0, 10, 1, 3, null)),
                ProbeSpec.of(pod.getSpec().getContainers()));
    }

    @Test
    void aPodWithoutProbesSetsNoProbeTimerAndIsReadyAsSoonAsItRuns() {
        Run run = new Run(KubeletTiming.FAST)
                .started(aPod("web-1").withUid(UID).onNode(NODE).build());
        run.until(T0.plusSeconds(60));

        assertTrue(run.set.stream().noneMatch(t -> t.key() instanceof PodWorkerTimer.Probe));
        assertEquals(1, run.statuses().size());
        assertEquals("True", condition(run.statuses().get(0), "Ready"));
        assertTrue(app(run.statuses().get(0)).getStarted());
    }

    @Nested
    class Readiness {
        @Test
        void aRunningContainerIsNotReadyUntilItsProbeSucceedsWhichRunsAtOnce() {
            Run run = new Run(KubeletTiming.FAST).started(withReadiness(Map.of(), probe(10, 3, null)));

            PodStatus running = run.statuses().get(0);
            assertEquals("Running", running.getPhase());
            assertFalse(app(running).getReady(), "readiness starts from Failure");
            assertEquals("False", condition(running, "Ready"));
            assertEquals("False", condition(running, "ContainersReady"));

            run.until(T0);

            assertEquals(2, run.statuses().size(), "the status manager's manual trigger: a run at once");
            assertEquals(T0, firstReadyAt(run));
            assertTrue(app(run.statuses().get(1)).getReady());
            assertEquals("True", condition(run.statuses().get(1), "ContainersReady"));
        }

        @Test
        void readyAfterSecondsHoldsTheContainerUnreadyThatLongThenTheNextTickFindsItReady() {
            Run run = new Run(KubeletTiming.FAST)
                    .started(withReadiness(Map.of(ProbeOutcomes.READY_AFTER_SECONDS, "5"), probe(1, 3, null)));
            run.until(T0.plusSeconds(10));

            Instant ready = firstReadyAt(run);
            assertNotNull(ready);
            assertTrue(!ready.isBefore(T0.plusSeconds(5)) && ready.isBefore(T0.plusSeconds(6)), ready.toString());
            assertEquals(2, run.statuses().size(), "a status when it turned ready, not one a probe");
        }

        @Test
        void aProcessThatStopsAcceptingOnSigtermTurnsThePodUnreadyAtTheNextProbeWhileItStillRuns() {
            Pod pod = withReadiness(Map.of(ProbeOutcomes.UNREADY_ON_SIGTERM, "true"), probe(1, 1, null));
            Run run = new Run(KubeletTiming.FAST).started(pod);
            run.until(T0.plusSeconds(3));
            assertEquals(T0, firstReadyAt(run));

            Instant sigterm = T0.plusSeconds(3);
            run.at(
                    sigterm,
                    () -> run.kubelet.apiserver(OBJECT_MARKED_TERMINATING, run.kubelet.markedTerminating(pod, 30)));
            run.at(sigterm, () -> run.kubelet.containerSignalled(pod, "app", "SIGTERM", 0));
            int before = run.statuses().size();
            run.until(sigterm.plusSeconds(5));

            List<Event> after = run.of(STATUS_UPDATE_REQUESTED)
                    .subList(before, run.statuses().size());
            assertEquals(1, after.size(), "one status: the readiness change");
            PodStatus unready = after.get(0).data(StatusUpdateRequest.class).status();
            assertEquals("False", condition(unready, "Ready"));
            assertNotNull(app(unready).getState().getRunning(), "the container still runs");
            assertTrue(
                    after.get(0).time().isAfter(sigterm) && !after.get(0).time().isAfter(sigterm.plusSeconds(1)));
            Event signal = run.kubelet.delivered.get(run.kubelet.delivered.size() - 1);
            assertEquals(
                    signal.correlationId(),
                    after.get(0).correlationId(),
                    "the readiness run belongs to the flow of the signal");
            assertTrue(run.probing(), "readiness goes on probing while the containers stop");
        }

        @Test
        void readinessFailsOnlyAfterFailureThresholdProbesInARow() {
            Pod pod = withReadiness(Map.of(ProbeOutcomes.UNREADY_ON_SIGTERM, "true"), probe(1, 3, null));
            Run run = new Run(KubeletTiming.FAST).started(pod);
            Instant sigterm = T0.plusSeconds(3);
            run.at(sigterm, () -> run.kubelet.containerSignalled(pod, "app", "SIGTERM", 0));
            int before = run.statuses().size();
            run.until(sigterm.plusSeconds(5));

            Event unready = run.of(STATUS_UPDATE_REQUESTED).get(before);
            assertTrue(
                    unready.time().isAfter(sigterm.plusSeconds(2))
                            && !unready.time().isAfter(sigterm.plusSeconds(3)),
                    "the third failing probe: " + unready.time());
        }

        @Test
        void onceTheKillReturnedEveryProbeIsRemoved() {
            Pod pod = withReadiness(Map.of(), probe(1, 1, null));
            Run run = new Run(KubeletTiming.FAST).started(pod);
            run.until(T0.plusSeconds(2));
            run.at(
                    T0.plusSeconds(2),
                    () -> run.kubelet.apiserver(OBJECT_MARKED_TERMINATING, run.kubelet.markedTerminating(pod, 30)));
            run.track(run.kubelet.containerExited(pod, "app", 143));
            run.track(run.kubelet.sandboxStopped(pod));

            assertFalse(run.probing());
        }
    }

    @Nested
    class Liveness {
        private final Map<String, String> failsAfter5 = Map.of(ProbeOutcomes.LIVENESS_FAILS_AFTER_SECONDS, "5");

        @Test
        void aFailedLivenessProbeKillsTheContainerWithTheProbesGracePeriodAndItIsStartedAgainAtOnce() {
            Pod pod = withLiveness(failsAfter5, probe(1, 1, 2L));
            Run run = new Run(KubeletTiming.FAST).started(pod);
            run.until(T0.plusSeconds(7));

            assertEquals(1, run.of(CONTAINER_PROBE_FAILED).size(), "on hold until a new container");
            Event failed = run.of(CONTAINER_PROBE_FAILED).get(0);
            ContainerProbeFailure f = failed.data(ContainerProbeFailure.class);
            assertEquals("Container app failed liveness probe, will be restarted", f.message());
            assertEquals("liveness", f.probe());
            assertEquals(2, f.gracePeriodSeconds(), "the probe's, not the pod's 30");
            assertTrue(
                    !failed.time().isBefore(T0.plusSeconds(5)) && failed.time().isBefore(T0.plusSeconds(6)));
            StopContainer stop = run.of(STOP_CONTAINER_REQUESTED).get(0).data(StopContainer.class);
            assertEquals(2, stop.timeoutSeconds());
            assertEquals(KubeletDriver.containerId(pod, "app"), stop.containerId());

            Effects exited = run.track(run.kubelet.containerExited(pod, "app", 137));
            assertEquals(
                    new ContainerRef(NODE, UID, "app", 1),
                    exited.events().stream()
                            .filter(e -> e.is(START_CONTAINER_REQUESTED))
                            .findFirst()
                            .orElseThrow()
                            .data(ContainerRef.class));
        }

        @Test
        void theNewContainerIsProbedAfreshAndFailsAgainAfterItsOwnTime() {
            Pod pod = withLiveness(failsAfter5, probe(1, 1, 2L));
            Run run = new Run(KubeletTiming.FAST).started(pod);
            run.until(T0.plusSeconds(7));
            run.track(run.kubelet.containerExited(pod, "app", 137));
            run.track(run.kubelet.containerStarted(pod, "app", 1));
            run.until(T0.plusSeconds(11));
            assertEquals(1, run.of(CONTAINER_PROBE_FAILED).size(), "the new container runs its 5 s first");
            run.until(T0.plusSeconds(13));
            assertEquals(2, run.of(CONTAINER_PROBE_FAILED).size());
            assertEquals(
                    KubeletDriver.containerId(pod, "app", 1),
                    run.of(CONTAINER_PROBE_FAILED)
                            .get(1)
                            .data(ContainerProbeFailure.class)
                            .containerId());
        }

        @Test
        void withoutAGracePeriodOfItsOwnTheProbesKillTakesThePodsAfterFailureThresholdFailures() {
            Run run = new Run(KubeletTiming.FAST).started(withLiveness(failsAfter5, probe(1, 3, null)));
            run.until(T0.plusSeconds(10));

            Event failed = run.of(CONTAINER_PROBE_FAILED).get(0);
            assertEquals(30, failed.data(ContainerProbeFailure.class).gracePeriodSeconds());
            assertTrue(
                    !failed.time().isBefore(T0.plusSeconds(7)) && failed.time().isBefore(T0.plusSeconds(8)));
        }

        @Test
        void underRestartPolicyNeverTheMessageDoesNotPromiseARestart() {
            Pod pod = new PodBuilder(withLiveness(failsAfter5, probe(1, 1, 2L)))
                    .editSpec()
                    .withRestartPolicy("Never")
                    .endSpec()
                    .build();
            Run run = new Run(KubeletTiming.FAST).started(pod);
            run.until(T0.plusSeconds(7));
            assertEquals(
                    "Container app failed liveness probe",
                    run.of(CONTAINER_PROBE_FAILED)
                            .get(0)
                            .data(ContainerProbeFailure.class)
                            .message());
        }

        @Test
        void aPodThatBeginsTerminatingStopsItsLivenessProbe() {
            Pod pod = withLiveness(failsAfter5, probe(1, 1, 2L));
            Run run = new Run(KubeletTiming.FAST).started(pod);
            run.at(
                    T0.plusSeconds(2),
                    () -> run.kubelet.apiserver(OBJECT_MARKED_TERMINATING, run.kubelet.markedTerminating(pod, 30)));
            run.until(T0.plusSeconds(20));

            assertEquals(List.of(), run.of(CONTAINER_PROBE_FAILED));
            assertFalse(run.probing());
        }
    }

    @Nested
    class Startup {
        @Test
        void livenessAndReadinessWaitForStartupWhichShowsInTheStatusWhenItSucceeds() {
            Pod pod = pod(Map.of(
                            ProbeOutcomes.STARTUP_AFTER_SECONDS, "3", ProbeOutcomes.LIVENESS_FAILS_AFTER_SECONDS, "1"))
                    .editSpec()
                    .editFirstContainer()
                    .withStartupProbe(probe(1, 30, null))
                    .withLivenessProbe(probe(1, 1, 2L))
                    .endContainer()
                    .endSpec()
                    .build();
            Run run = new Run(KubeletTiming.FAST).started(pod);
            assertFalse(app(run.statuses().get(0)).getStarted());
            run.until(T0.plusSeconds(10));

            Event started = run.of(STATUS_UPDATE_REQUESTED).get(1);
            assertTrue(app(started.data(StatusUpdateRequest.class).status()).getStarted());
            assertTrue(!started.time().isBefore(T0.plusSeconds(3))
                    && started.time().isBefore(T0.plusSeconds(4)));
            Event failed = run.of(CONTAINER_PROBE_FAILED).get(0);
            assertTrue(failed.time().isAfter(started.time()), "liveness waited for startup");
        }

        @Test
        void aStartupProbeThatKeepsFailingKillsTheContainer() {
            Pod pod = pod(Map.of(ProbeOutcomes.STARTUP_AFTER_SECONDS, "100"))
                    .editSpec()
                    .editFirstContainer()
                    .withStartupProbe(probe(1, 2, null))
                    .endContainer()
                    .endSpec()
                    .build();
            Run run = new Run(KubeletTiming.FAST).started(pod);
            run.until(T0.plusSeconds(3));

            Event failed = run.of(CONTAINER_PROBE_FAILED).get(0);
            assertEquals(
                    "Container app failed startup probe, will be restarted",
                    failed.data(ContainerProbeFailure.class).message());
            assertTrue(
                    failed.time().isAfter(T0.plusSeconds(1)) && !failed.time().isAfter(T0.plusSeconds(2)));
        }
    }

    @Nested
    class UpstreamTiming {
        @Test
        void aProbeSeesTheContainerOnlyOnceTheRelistReportedIt() {
            Run run = new Run(KubeletTiming.UPSTREAM).started(withReadiness(Map.of(), probe(1, 3, null)));
            Instant relist = KubeletTiming.UPSTREAM.nextRelist(NODE, T0);
            run.until(relist.minusNanos(1));
            assertEquals(List.of(), run.statuses());

            run.until(relist);
            assertEquals(relist, firstReadyAt(run), "Running at the relist, and Ready right after it");
        }

        @Test
        void theKillOfAFailedLivenessProbeWaitsForTheRelistAfterThePodWorkersLastSync() {
            Run run = new Run(KubeletTiming.UPSTREAM)
                    .started(withLiveness(Map.of(ProbeOutcomes.LIVENESS_FAILS_AFTER_SECONDS, "0"), probe(1, 1, 2L)));
            run.until(T0.plusSeconds(10));

            Instant lastSync = KubeletTiming.UPSTREAM.nextRelist(NODE, T0);
            assertEquals(
                    lastSync.plusSeconds(1),
                    run.of(CONTAINER_PROBE_FAILED).get(0).time(),
                    "the sync that reported it Running was at the relist: the kill waits for the next one");
        }

        @Test
        void aKillLongAfterThePodWorkersLastSyncWaitsForNothing() {
            Run run = new Run(KubeletTiming.UPSTREAM)
                    .started(withLiveness(Map.of(ProbeOutcomes.LIVENESS_FAILS_AFTER_SECONDS, "5"), probe(1, 1, 2L)));
            run.until(T0.plusSeconds(10));

            assertTrue(run.set.stream().noneMatch(t -> t.key() instanceof PodWorkerTimer.ProbeKill));
            assertEquals(1, run.of(CONTAINER_PROBE_FAILED).size());
        }
    }

    @Test
    void theSameFactsGiveTheSameProbesAndTheSameEvents() {
        Pod pod = withLiveness(Map.of(ProbeOutcomes.LIVENESS_FAILS_AFTER_SECONDS, "5"), probe(1, 1, 2L));
        List<String> first = replayed(pod);
        assertEquals(first, replayed(pod));
        assertTrue(first.stream().anyMatch(s -> s.contains(CONTAINER_PROBE_FAILED)));
    }

    private static List<String> replayed(Pod pod) {
        Run run = new Run(KubeletTiming.UPSTREAM).started(pod);
        run.until(T0.plusSeconds(30));
        return run.events.stream()
                .map(e -> e.id() + " " + e.type() + " " + e.time())
                .toList();
    }
}
