package io.podfall.cli.analysis;

import io.podfall.cli.analysis.Check.Finding;
import io.podfall.cli.analysis.Check.Level;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.kubelet.ContainerProbeFailure;
import io.podfall.model.kubelet.GracePeriodShortened;
import io.podfall.model.kubelet.PodTerminationStart;
import io.podfall.model.runtime.ContainerSignal;
import io.podfall.model.runtime.RunPodSandbox;
import io.podfall.model.runtime.StopContainer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@code killed-though-exiting}: a container got SIGKILL although its process would have exited on the stop signal
 * within the grace period it was owed: the kill cut a graceful exit short. The process is read from the annotations the
 * runtime got at RunPodSandbox, else from the pod object on the log ({@link SimulatedProcess}). Owed is the grace
 * period the deletion requested (the API server's first deletionGracePeriodSeconds: the delete's, else the spec's), or
 * the pod's spec.terminationGracePeriodSeconds when that was 0 (a force deletion) or no delete asked (the kubelet's
 * eviction), counted from the start of termination as the kubelet counts it. A warning when the kubelet honoured a
 * shorter grace period, which the log explains (a force deletion, a second delete with less, an eviction's override);
 * an error when it honoured all that was owed and the process was killed anyway. A container killed for a failed
 * liveness or startup probe (ContainerProbeFailed) was owed that kill's grace period, counted from its StopContainer.
 */
final class KilledThoughExiting {
    private KilledThoughExiting() {}

    static List<Finding> of(List<Event> log) {
        Map<String, PodRecord> pods = new HashMap<>();
        List<Finding> out = new ArrayList<>();
        for (Event e : log) {
            if (DeletionFlow.isPod(e.subject()) && EventTypes.OBJECT_CHANGES.contains(e.type())) {
                KubeObject pod = KubeObject.of(e);
                pods.computeIfAbsent(pod.uid(), k -> new PodRecord()).object(e, pod);
                continue;
            }
            switch (e.type()) {
                case EventTypes.RUN_POD_SANDBOX_REQUESTED -> {
                    RunPodSandbox r = e.data(RunPodSandbox.class);
                    pod(pods, r.podUid()).ifPresent(p -> p.sandbox(e, r.annotations()));
                }
                case EventTypes.POD_TERMINATION_STARTED -> {
                    PodTerminationStart t = e.data(PodTerminationStart.class);
                    pod(pods, t.podUid()).ifPresent(p -> {
                        p.started = p.started == null ? e : p.started;
                        p.honoured = new Grace(e, t.gracePeriodSeconds(), compat(t.compat()));
                    });
                }
                case EventTypes.GRACE_PERIOD_SHORTENED -> {
                    GracePeriodShortened s = e.data(GracePeriodShortened.class);
                    if (s.reachesKill()) {
                        pod(pods, s.podUid())
                                .ifPresent(p -> p.honoured = new Grace(
                                        e, s.gracePeriodSeconds(), " from " + s.previousGracePeriodSeconds() + " s"));
                    }
                }
                case EventTypes.CONTAINER_PROBE_FAILED -> {
                    ContainerProbeFailure f = e.data(ContainerProbeFailure.class);
                    pod(pods, f.podUid())
                            .ifPresent(p ->
                                    p.probeKills.putIfAbsent(Check.container(f.containerId(), f.containerName()), e));
                }
                case EventTypes.STOP_CONTAINER_REQUESTED -> {
                    StopContainer s = e.data(StopContainer.class);
                    pod(pods, s.podUid())
                            .ifPresent(
                                    p -> p.stops.putIfAbsent(Check.container(s.containerId(), s.containerName()), e));
                }
                case EventTypes.CONTAINER_SIGNALLED -> {
                    ContainerSignal s = e.data(ContainerSignal.class);
                    Optional<PodRecord> pod = pod(pods, s.podUid());
                    if (!DeletionFlow.isKill(s)) {
                        pod.ifPresent(
                                p -> p.signals.putIfAbsent(Check.container(s.containerId(), s.containerName()), e));
                    } else {
                        pod.flatMap(p -> p.killedThoughExiting(e, s)).ifPresent(out::add);
                    }
                }
                default -> {}
            }
        }
        return out;
    }

    /** The record of the pod an event of the node names by its uid; none when the event names none. */
    private static Optional<PodRecord> pod(Map<String, PodRecord> pods, String podUid) {
        return podUid == null ? Optional.empty() : Optional.of(pods.computeIfAbsent(podUid, k -> new PodRecord()));
    }

    private static String compat(String compat) {
        return compat == null ? "" : ", compat " + compat;
    }

    /** A grace period the kubelet honoured, the event that says so, and what that event tells of why. */
    private record Grace(Event by, long seconds, String why) {}

    /** The grace period a pod was owed, the event that says so, and why that one. */
    private record Owed(long seconds, Event by, String why) {}

    /** What the log told so far of one pod (by uid) that decides whether a kill cut its graceful exit short. */
    private static final class PodRecord {
        /** The event whose annotations describe the pod's processes: RunPodSandboxRequested, else a whole pod. */
        Event behaviour;

        Map<String, String> annotations;
        /** The latest whole pod object: its spec.terminationGracePeriodSeconds. */
        Event spec;

        long specGrace;
        /** The first ObjectMarkedTerminating: the grace period the deletion requested. */
        Event marked;

        Long requestedGrace;
        /** The kubelet's PodTerminationStarted: where the grace period counts from. */
        Event started;
        /** The kubelet's latest grace period that reached the kill: PodTerminationStarted or GracePeriodShortened. */
        Grace honoured;
        /** Each container's first StopContainerRequested and first stop signal. */
        final Map<String, Event> stops = new HashMap<>();

        final Map<String, Event> signals = new HashMap<>();
        /** Each container's kill for a failed liveness or startup probe, if it had one. */
        final Map<String, Event> probeKills = new HashMap<>();

        void sandbox(Event e, Map<String, String> podAnnotations) {
            behaviour = e;
            annotations = podAnnotations == null ? Map.of() : podAnnotations;
        }

        /** A stored state of the pod: a whole object (one with its containers) tells its spec and annotations. */
        void object(Event e, KubeObject pod) {
            if (pod.hasContainers()) {
                spec = e;
                specGrace = pod.terminationGracePeriodSeconds();
                if (behaviour == null || !behaviour.is(EventTypes.RUN_POD_SANDBOX_REQUESTED)) {
                    behaviour = e;
                    annotations = pod.annotations();
                }
            }
            if (marked == null && e.is(EventTypes.OBJECT_MARKED_TERMINATING)) {
                marked = e;
                requestedGrace = pod.deletionGracePeriodSeconds();
            }
        }

        Optional<Finding> killedThoughExiting(Event kill, ContainerSignal killed) {
            String c = Check.container(killed.containerId(), killed.containerName());
            Event signal = signals.get(c);
            Event stop = stops.get(c);
            // the runtime counts the exit delay, as the kill's timeout, from StopContainer (ContainerRuntime)
            Event asked = stop != null ? stop : signal;
            if (behaviour == null || asked == null) {
                return Optional.empty();
            }
            SimulatedProcess process = SimulatedProcess.of(annotations);
            Instant exit = asked.time().plus(process.exitDelay());
            Event probeKill = probeKills.get(c);
            Owed owed = probeKill == null ? owed() : probeKillOwed(probeKill);
            if (!process.exits() || !kill.time().isBefore(exit) || owed == null) {
                return Optional.empty();
            }
            Instant from = probeKill != null
                    ? asked.time()
                    : started != null ? started.time() : marked != null ? marked.time() : asked.time();
            if (exit.isAfter(from.plusSeconds(owed.seconds()))) {
                return Optional.empty();
            }
            Grace given = honoured != null && probeKill == null
                    ? honoured
                    : stop == null
                            ? null
                            : new Grace(stop, stop.data(StopContainer.class).timeoutSeconds(), "");
            boolean shortened = given != null && given.seconds() >= 0 && given.seconds() < owed.seconds();
            Event signalled = signal != null ? signal : stop;
            List<String> ids = Stream.of(kill, signal, stop, behaviour, owed.by(), given == null ? null : given.by())
                    .filter(Objects::nonNull)
                    .map(Event::id)
                    .distinct()
                    .toList();
            return Optional.of(new Finding(
                    shortened ? Level.WARNING : Level.ERROR,
                    "killed-though-exiting",
                    kill.subject(),
                    "container " + killed.containerName() + " got SIGKILL "
                            + Duration.between(signalled.time(), kill.time()).toMillis() + " ms after "
                            + (signal != null
                                    ? signal.data(ContainerSignal.class).signal()
                                    : "StopContainer")
                            + ", though its process (" + SimulatedProcess.describe(annotations) + ") would have exited "
                            + process.exitDelay().toMillis() + " ms after "
                            + (stop != null ? "StopContainer" : "it") + ", within the " + owed.seconds()
                            + " s grace period it was owed (" + owed.why() + "); the kubelet honoured "
                            + (given == null
                                    ? "no grace period on the log"
                                    : given.seconds() + " s (" + given.by().type() + given.why() + ")"),
                    ids));
        }

        /**
         * A probe's kill: its grace period (kuberuntime_container.go setTerminationGracePeriod), as the kubelet says.
         */
        private static Owed probeKillOwed(Event probeKill) {
            ContainerProbeFailure f = probeKill.data(ContainerProbeFailure.class);
            return new Owed(f.gracePeriodSeconds(), probeKill, f.message());
        }

        /** What the deletion requested, unless 0 or nothing: then the pod's spec; null when the log tells neither. */
        private Owed owed() {
            if (requestedGrace != null && requestedGrace > 0) {
                return new Owed(requestedGrace, marked, "requested: deletionGracePeriodSeconds " + requestedGrace);
            }
            if (spec == null) {
                return null;
            }
            return new Owed(
                    specGrace,
                    spec,
                    "spec.terminationGracePeriodSeconds; "
                            + (marked == null
                                    ? "no delete requested one"
                                    : "the delete requested 0 s: a force deletion"));
        }
    }
}
