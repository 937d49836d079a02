package io.podfall.kubelet.podworkers;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.kubelet.OrphanedPod;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Housekeeping of orphaned runtime pods (pkg/kubelet/kubelet_pods.go HandlePodCleanups: "kill any running pods that are
 * not known to the pod worker"). A fact of the runtime (SandboxStarted, ContainerStarted) about a pod on one of this
 * kubelet's nodes that it knows from no API object and no worker, finished or not, is a pod nobody wants: one the
 * kubelet lost track of (its history is not on the log it rebuilt from). The kubelet keeps a worker for it built from
 * the facts alone and, one {@link #HOUSEKEEPING_PERIOD} later, once the facts that came with it are in, records it
 * ({@code kubelet.OrphanedPodFound}) and tears it down like a pod that left the API server: StopContainer for what
 * runs, with a grace period of 1 s ({@link #ORPHAN_GRACE_PERIOD_SECONDS}, which killContainer raises to its minimum of
 * 2 s), StopPodSandbox, and RemovePodSandbox once the sandbox stopped. The timer is a
 * {@link PodWorkerTimer.Housekeeping}.
 */
final class PodCleanups {
    /**
     * How long after the first fact of a pod nobody wants the kubelet tears it down (pkg/kubelet/kubelet.go
     * housekeepingPeriod, how often HandlePodCleanups runs).
     */
    static final Duration HOUSEKEEPING_PERIOD = Duration.ofSeconds(2);
    /**
     * The grace period of a pod only the runtime knows: HandlePodCleanups kills it with
     * PodTerminationGracePeriodSecondsOverride 1, and SyncTerminatingRuntimePod with gracePeriod 1
     * (pkg/kubelet/kubelet.go, "this should probably be zero, to bypass any waiting").
     */
    static final long ORPHAN_GRACE_PERIOD_SECONDS = 1;

    private static final String PODS = "/pods/";

    private final List<String> nodeNames;
    private final Compat compat;
    private final Termination termination;

    PodCleanups(List<String> nodeNames, Compat compat, Termination termination) {
        this.nodeNames = nodeNames;
        this.compat = compat;
        this.termination = termination;
    }

    /**
     * The worker of the pod a runtime fact is about; for a pod of one of this kubelet's nodes that it knows from no API
     * object and no worker (finished or forgotten), a new one built from the fact alone, with housekeeping set to look
     * at it; null for anything else.
     */
    PodWorker workerOrRuntimeOnly(PodWorkersState state, Event event, String node, String uid, Effects.Builder out) {
        PodWorker w = state.workerOn(node, uid);
        if (w != null
                || uid == null
                || !nodeNames.contains(node)
                || state.workers.containsKey(uid)
                || state.forgotten.contains(uid)
                || state.pods.contains(uid)) {
            return w;
        }
        String subject = event.subject();
        int slash = subject == null ? -1 : subject.lastIndexOf(PODS);
        if (slash < 0) {
            return null;
        }
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withUid(uid)
                .withNamespace(Subjects.namespaceOf(subject))
                .withName(subject.substring(slash + PODS.length()))
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .endSpec()
                .build();
        w = new PodWorker(pod, event.time(), state.recent);
        w.runtimeOnly = true;
        w.orphan = true;
        w.status.startedAt = event.time();
        state.workers.put(uid, w);
        out.timer(new PodWorkerTimer.Housekeeping(node, uid), event.time().plus(HOUSEKEEPING_PERIOD));
        return w;
    }

    /**
     * Housekeeping of a pod only the runtime knows (HandlePodCleanups): unless something else began to terminate it
     * meanwhile, it is recorded as orphaned and killed with a grace period of 1 s, then torn down.
     */
    void killOrphanedPod(PodWorkersState state, PodWorkerTimer.Housekeeping key, Timer timer, Effects.Builder out) {
        PodWorker w = state.workerOn(key.node(), key.uid());
        if (w == null || !w.runtimeOnly || w.status.isTerminationRequested()) {
            return;
        }
        killOrphanedPod(state, w, timer.at(), out);
    }

    /**
     * At a stopped node's start, a pod (bound to one of its nodes; null: none) that left the API server while the node
     * was away: if its worker had not begun to terminate it, the restarted kubelet finds its containers in the runtime
     * and the pod in no config, an orphan that HandlePodCleanups kills (pkg/kubelet/kubelet_pods.go: "kill any running
     * pods that are not known to the pod worker", with a grace period of 1 s), rather than the pod's own grace period a
     * watched removal gets. Whether it was such a pod, and so handled.
     */
    boolean removedWhileAway(PodWorkersState state, Pod pod, Instant at, Effects.Builder out) {
        PodWorker w = pod == null ? null : state.workers.get(pod.getMetadata().getUid());
        if (w == null || w.status.isTerminationRequested()) {
            return false;
        }
        state.pods.remove(w.uid);
        w.pod(pod);
        killOrphanedPod(state, w, at, out);
        return true;
    }

    /**
     * A pod the runtime runs that is in no config any more, killed as HandlePodCleanups kills a runtime pod the pod
     * workers do not know: recorded as orphaned, killed with a grace period of 1 s from {@code at}, then torn down.
     */
    void killOrphanedPod(PodWorkersState state, PodWorker w, Instant at, Effects.Builder out) {
        List<String> running = w.containers().stream()
                .filter(c -> c.state == RuntimeContainer.State.RUNNING)
                .map(c -> c.name)
                .toList();
        KillPodOptions options = new KillPodOptions(ORPHAN_GRACE_PERIOD_SECONDS, null);
        long gracePeriod = PodWorkers.calculateEffectiveGracePeriod(
                        w.status, w.pod(), options.gracePeriodOverride(), compat)
                .seconds();
        out.emit(
                w.source(),
                EventTypes.ORPHANED_POD_FOUND,
                w.subject(),
                new OrphanedPod(w.node, w.uid, w.namespace(), w.name(), running, gracePeriod));
        w.orphan = true;
        w.status.deleted = true;
        w.status.terminatingAt = at;
        termination.kill(state, w, true, options, at, out);
    }
}
