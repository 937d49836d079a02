package io.podfall.kubelet.podworkers;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.kubelet.ContainerProbeFailure;
import io.podfall.model.runtime.ContainerSignal;
import io.podfall.model.runtime.StopContainer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The kubelet's prober (pkg/kubelet/prober/prober_manager.go and worker.go): one worker per container and probe
 * (readiness, liveness, startup), added when the pod worker starts the pod (SyncPod's {@code AddPod}).
 *
 * <p><b>Runs.</b> A worker probes at every tick of its period, on a grid of its own whose phase is derived from the
 * pod, the container and the probe (upstream's ticker starts with the worker, at a random offset after a kubelet
 * start), so a live run and its replay probe at the same instants. It reads the container the status manager last
 * wrote, not the runtime's latest fact: a container is probed once a status showed it running, which is at the PLEG's
 * relist under {@link KubeletTiming#UPSTREAM} and at once under {@link KubeletTiming#FAST}. When the status manager
 * writes a status showing a new container running that a readiness probe has not yet found ready, that probe runs at
 * once (UpdatePodStatus's manual trigger), so a pod whose readiness succeeds at once is Ready right after it is
 * Running.
 *
 * <p><b>Results.</b> What a probe finds is declared ({@link ProbeOutcomes}). A worker starts each new container from
 * its initial value (readiness Failure, liveness Success, startup Unknown), skips it while it has run fewer than
 * initialDelaySeconds, and counts equal results in a row: the result it holds changes only once successThreshold
 * successes or failureThreshold failures follow each other. Liveness and readiness wait until startup has succeeded; a
 * startup probe stops probing once it has. A container that no longer runs fails its probes.
 *
 * <p><b>What results change.</b> Readiness and startup show in the container's {@code ready} and {@code started}, and
 * so in the pod's Ready and ContainersReady conditions: when a result changes what the last status said, the status
 * manager writes the pod's status at once (status_manager.go SetContainerReadiness, SetContainerStartup), and that
 * status update is the change on the log. A liveness or startup failure is a kill (kuberuntime_manager.go
 * computePodActions): recorded as {@code kubelet.ContainerProbeFailed} with upstream's Killing message, it stops the
 * container with the probe's terminationGracePeriodSeconds, else the pod's (kuberuntime_container.go
 * setTerminationGracePeriod), at least {@link Termination#MINIMUM_GRACE_PERIOD_SECONDS}, at the pod worker's next sync;
 * once the container is gone the sync goes on and starts it again as the restart policy says
 * ({@link ContainerRestarts}, with its back-off). The failed worker then waits for the new container.
 *
 * <p><b>Termination.</b> SyncTerminatingPod stops the liveness and startup workers before it kills the pod, and removes
 * every worker once the kill returned (pkg/kubelet/kubelet.go): readiness keeps probing while the containers stop, so a
 * process that stops accepting on SIGTERM turns its pod unready before it is gone. Results are kept when a worker
 * stops. A pod without probes has no workers, no timers and no events of the prober.
 */
final class Prober {
    private final KubeletTiming timing;

    Prober(KubeletTiming timing) {
        this.timing = timing;
    }

    /** AddPod: a worker for each probe of the pod's containers, each waiting for its first tick. */
    void addPod(PodWorker w, Instant at, Effects.Builder out) {
        List<ProbeSpec> specs = ProbeSpec.of(w.pod().getSpec().getContainers());
        if (specs.isEmpty()) {
            return;
        }
        List<ProbeWorker> workers = new ArrayList<>(specs.size());
        for (ProbeSpec spec : specs) {
            ProbeWorker pw = new ProbeWorker(
                    spec,
                    new PodWorkerTimer.Probe(
                            w.node, w.uid, spec.container(), spec.type().label()));
            pw.dueAt = nextTick(pw, at);
            out.timer(pw.key, pw.dueAt);
            workers.add(pw);
        }
        w.probes = new PodProbes(workers, ProbeOutcomes.of(w.pod().getMetadata().getAnnotations()));
    }

    /**
     * The first tick of the worker's grid after {@code t}: every periodSeconds, at a phase derived from the pod, the
     * container and the probe.
     */
    private static Instant nextTick(ProbeWorker pw, Instant t) {
        return KubeletTiming.next(Duration.ofSeconds(pw.spec.periodSeconds()), pw.key.id(), t);
    }

    /** A worker's timer: it probes, then waits for its next tick. A timer that no longer matches is stale. */
    void probeDue(PodWorkersState state, PodWorkerTimer.Probe key, Timer timer, Effects.Builder out) {
        PodWorker w = state.workerOn(key.node(), key.uid());
        ProbeWorker pw = w == null || w.probes == null ? null : find(w.probes, key);
        if (pw == null || pw.stopped || !timer.at().equals(pw.dueAt)) {
            return;
        }
        doProbe(w, pw, timer.at(), out);
        if (!pw.stopped) {
            pw.dueAt = nextTick(pw, timer.at());
            out.timer(pw.key, pw.dueAt);
        }
    }

    private static ProbeWorker find(PodProbes probes, PodWorkerTimer.Probe key) {
        for (ProbeWorker pw : probes.workers) {
            if (pw.key.equals(key)) {
                return pw;
            }
        }
        return null;
    }

    /** worker.go doProbe, on the status the status manager last wrote. */
    private void doProbe(PodWorker w, ProbeWorker pw, Instant at, Effects.Builder out) {
        PodProbes probes = w.probes;
        String name = pw.spec.container();
        PodProbes.Reported seen = probes.reported.get(name);
        if (seen == null || seen.containerId() == null) {
            return; // "Probe target container not found": wait for more information
        }
        if (!seen.containerId().equals(pw.containerId)) {
            // A new container: its result starts from the initial value, and probing resumes.
            pw.containerId = seen.containerId();
            pw.onHold = false;
            set(w, pw, pw.spec.type().initialValue, at, out);
        }
        if (pw.onHold) {
            return;
        }
        RuntimeContainer c = w.container(name);
        if (c == null || c.state != RuntimeContainer.State.RUNNING || !pw.containerId.equals(c.containerId)) {
            // "Non-running container probed": a process that is gone answers no probe.
            set(w, pw, ProbeResult.FAILURE, at, out);
            return;
        }
        if (Duration.between(c.startedAt, at).getSeconds() < pw.spec.initialDelaySeconds()) {
            return;
        }
        boolean started = started(w, c);
        if (pw.spec.type() == ProbeType.STARTUP ? started : !started) {
            return; // startup stops once it succeeded; the others wait for it
        }
        ProbeResult result =
                probes.outcomes.probe(pw.spec.type(), c.startedAt, probes.stopSignalAt(name, c.containerId), at);
        if (result == pw.lastResult) {
            pw.resultRun++;
        } else {
            pw.lastResult = result;
            pw.resultRun = 1;
        }
        if ((result == ProbeResult.FAILURE && pw.resultRun < pw.spec.failureThreshold())
                || (result == ProbeResult.SUCCESS && pw.resultRun < pw.spec.successThreshold())) {
            return; // below the threshold: the result held stays
        }
        set(w, pw, result, at, out);
        if (pw.spec.type() != ProbeType.READINESS && result == ProbeResult.FAILURE) {
            // The container will be restarted: no more probes until a new container is seen.
            pw.onHold = true;
            pw.resultRun = 0;
            failed(w, pw, at, out);
        }
    }

    /**
     * The results manager's Set: only a change is an update. A readiness or startup change that makes the container's
     * ready or started differ from the status last written has the status manager write the pod's status at once.
     */
    private void set(PodWorker w, ProbeWorker pw, ProbeResult result, Instant at, Effects.Builder out) {
        if (result == pw.result) {
            return;
        }
        pw.result = result;
        if (pw.spec.type() == ProbeType.LIVENESS || w.orphan || w.finalStatusRequestId != null) {
            return;
        }
        String name = pw.spec.container();
        PodProbes.Reported said = w.probes.reported.get(name);
        RuntimeContainer c = w.container(name);
        boolean current = said != null
                && c != null
                && c.state == RuntimeContainer.State.RUNNING
                && c.containerId != null
                && c.containerId.equals(said.containerId());
        if (said == null) {
            return; // the status manager holds no status of the container: nothing to change
        }
        boolean started = current && started(w, c);
        boolean ready = current && ready(w, c);
        if (started != said.started() || ready != said.ready()) {
            PodStatuses.set(w, PodStatuses.generate(w, at, false), out);
        }
    }

    /**
     * A liveness or startup probe failed: the pod worker syncs (handleProbeSync), once it may (the PLEG's next relist
     * after its last sync), and kills the container.
     */
    private void failed(PodWorker w, ProbeWorker pw, Instant at, Effects.Builder out) {
        if (w.status.isTerminationRequested()) {
            return;
        }
        pw.killedContainerId = pw.containerId;
        Instant syncAt = timing.syncAllowed(w.node, w.lastSyncAt, at);
        if (syncAt.isAfter(at)) {
            pw.killDueAt = syncAt;
            out.timer(
                    new PodWorkerTimer.ProbeKill(
                            w.node, w.uid, pw.spec.container(), pw.spec.type().label()),
                    syncAt);
        } else {
            kill(w, pw, at, out);
        }
    }

    /** The sync a failed probe waited for. A timer that no longer matches is stale. */
    void killDue(PodWorkersState state, PodWorkerTimer.ProbeKill key, Timer timer, Effects.Builder out) {
        PodWorker w = state.workerOn(key.node(), key.uid());
        if (w == null || w.probes == null) {
            return;
        }
        for (ProbeWorker pw : w.probes.workers) {
            if (pw.spec.container().equals(key.container())
                    && pw.spec.type().label().equals(key.probe())
                    && timer.at().equals(pw.killDueAt)) {
                pw.killDueAt = null;
                kill(w, pw, timer.at(), out);
            }
        }
    }

    /**
     * SyncPod's computePodActions for a container that failed its liveness or startup probe: killContainer with
     * upstream's message ("Container app failed liveness probe, will be restarted") and the probe's grace period. A pod
     * terminating meanwhile, or a container already gone, has nothing left to kill here.
     */
    private void kill(PodWorker w, ProbeWorker pw, Instant at, Effects.Builder out) {
        RuntimeContainer c = w.container(pw.spec.container());
        if (w.status.isTerminationRequested()
                || c == null
                || c.state != RuntimeContainer.State.RUNNING
                || !c.containerId.equals(pw.killedContainerId)) {
            return;
        }
        Pod pod = w.pod();
        boolean restart = !"Never".equals(pod.getSpec().getRestartPolicy()); // shouldRestartOnFailure
        long grace = Math.max(killGracePeriod(pod, pw.spec), Termination.MINIMUM_GRACE_PERIOD_SECONDS);
        w.lastSyncAt = at;
        out.emit(
                w.source(),
                EventTypes.CONTAINER_PROBE_FAILED,
                w.subject(),
                new ContainerProbeFailure(
                        w.node,
                        w.uid,
                        w.namespace(),
                        w.name(),
                        c.containerId,
                        c.name,
                        pw.spec.type().label(),
                        "Container " + c.name + " failed " + pw.spec.type().label() + " probe"
                                + (restart ? ", will be restarted" : ""),
                        grace));
        out.emit(
                w.source(),
                EventTypes.STOP_CONTAINER_REQUESTED,
                w.subject(),
                new StopContainer(w.node, w.uid, c.containerId, c.name, grace));
    }

    /**
     * kuberuntime_container.go setTerminationGracePeriod for a probe's kill: the pod's deletionGracePeriodSeconds if it
     * has one; else the probe's terminationGracePeriodSeconds if set; else the pod's spec (defaulted to 30 s).
     */
    static long killGracePeriod(Pod pod, ProbeSpec probe) {
        Long deletion = pod.getMetadata().getDeletionGracePeriodSeconds();
        if (deletion != null) {
            return deletion;
        }
        if (probe.terminationGracePeriodSeconds() != null) {
            return probe.terminationGracePeriodSeconds();
        }
        Long spec = pod.getSpec().getTerminationGracePeriodSeconds();
        return spec != null ? spec : PodWorkers.DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
    }

    /**
     * Whether a probe's kill stopped this container: its StopContainer returned within SyncPod, which goes on to start
     * it again without waiting for a relist.
     */
    static boolean killedByProbe(PodWorker w, RuntimeContainer c) {
        if (w.probes == null || c.containerId == null) {
            return false;
        }
        for (ProbeWorker pw : w.probes.workers) {
            if (pw.spec.container().equals(c.name) && c.containerId.equals(pw.killedContainerId)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The runtime signalled a container: the first signal that is not SIGKILL is its stop signal, which a process that
     * stops accepting on it ({@value ProbeOutcomes#UNREADY_ON_SIGTERM}) answers readiness probes with failure from then
     * on. Its readiness worker's next run is set again by this fact, so what it finds belongs to the flow that stopped
     * the container (at the same instant as before).
     */
    void containerSignalled(PodWorkersState state, Event event, Effects.Builder out) {
        ContainerSignal s = event.data(ContainerSignal.class);
        PodWorker w = state.workerOn(s.node(), s.podUid());
        if (w == null || w.probes == null || "SIGKILL".equals(s.signal()) || s.containerId() == null) {
            return;
        }
        PodProbes.Signalled known = w.probes.signalled.get(s.containerName());
        if (known != null && known.containerId().equals(s.containerId())) {
            return;
        }
        w.probes.signalled.put(s.containerName(), new PodProbes.Signalled(s.containerId(), event.time()));
        ProbeWorker readiness = w.probes.worker(s.containerName(), ProbeType.READINESS);
        if (readiness != null && !readiness.stopped) {
            out.timer(readiness.key, readiness.dueAt);
        }
    }

    /**
     * The status manager wrote the pod's status: it is what the workers read from now on. A container it shows running
     * for the first time whose readiness has not succeeded gets a readiness run at once (prober_manager.go
     * UpdatePodStatus: "Trigger an immediate run of the readinessProbe to update ready state").
     */
    static void statusWritten(PodWorker w, PodStatus status, Effects.Builder out) {
        PodProbes probes = w.probes;
        if (probes == null || status.getContainerStatuses() == null) {
            return;
        }
        Instant at = out.causeTime();
        for (ContainerStatus cs : status.getContainerStatuses()) {
            String id = cs.getContainerID() == null
                    ? null
                    : cs.getContainerID().substring(PodStatuses.CONTAINER_ID_SCHEME.length());
            boolean running = cs.getState() != null && cs.getState().getRunning() != null;
            PodProbes.Reported before = probes.reported.put(
                    cs.getName(),
                    new PodProbes.Reported(
                            id, running, Boolean.TRUE.equals(cs.getStarted()), Boolean.TRUE.equals(cs.getReady())));
            boolean newlyRunning = running && (before == null || !before.running() || !id.equals(before.containerId()));
            ProbeWorker readiness = probes.worker(cs.getName(), ProbeType.READINESS);
            if (newlyRunning
                    && !Boolean.TRUE.equals(cs.getReady())
                    && Boolean.TRUE.equals(cs.getStarted())
                    && readiness != null
                    && !readiness.stopped
                    && readiness.dueAt.isAfter(at)) {
                readiness.dueAt = at;
                out.timer(readiness.key, at);
            }
        }
    }

    /**
     * prober_manager.go UpdatePodStatus: a running container is started once its startup probe succeeded (at once
     * without one), and ready once started and its readiness probe succeeded (at once without one).
     */
    static boolean started(PodWorker w, RuntimeContainer c) {
        return holds(w, c, ProbeType.STARTUP);
    }

    static boolean ready(PodWorker w, RuntimeContainer c) {
        return started(w, c) && holds(w, c, ProbeType.READINESS);
    }

    private static boolean holds(PodWorker w, RuntimeContainer c, ProbeType type) {
        ProbeWorker pw = w.probes == null ? null : w.probes.worker(c.name, type);
        return pw == null
                || (c.containerId != null && c.containerId.equals(pw.containerId) && pw.result == ProbeResult.SUCCESS);
    }

    /** StopLivenessAndStartup, before SyncTerminatingPod kills the pod: readiness goes on probing. */
    static void stopLivenessAndStartup(PodWorker w, Effects.Builder out) {
        stop(w, false, out);
    }

    /** RemovePod, once the kill returned: no worker is left. */
    static void removePod(PodWorker w, Effects.Builder out) {
        stop(w, true, out);
    }

    private static void stop(PodWorker w, boolean readinessToo, Effects.Builder out) {
        if (w.probes == null) {
            return;
        }
        for (ProbeWorker pw : w.probes.workers) {
            if (pw.stopped || (pw.spec.type() == ProbeType.READINESS && !readinessToo)) {
                continue;
            }
            pw.stopped = true;
            out.cancelTimer(pw.key);
            if (pw.killDueAt != null) {
                pw.killDueAt = null;
                out.cancelTimer(new PodWorkerTimer.ProbeKill(
                        w.node, w.uid, pw.spec.container(), pw.spec.type().label()));
            }
        }
    }
}
