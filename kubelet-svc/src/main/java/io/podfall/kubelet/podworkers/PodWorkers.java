package io.podfall.kubelet.podworkers;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.podfall.kubelet.nodestatus.InitialNode;
import io.podfall.kubelet.nodestatus.NodeCapacity;
import io.podfall.kubelet.volumemanager.VolumeManager;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Part;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Ids;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.Projection;
import io.podfall.model.k8s.ResourceType;
import io.podfall.model.kubelet.PodRestart;
import io.podfall.model.runtime.RunPodSandbox;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The pod workers of a kubelet that runs one or many simulated nodes (pkg/kubelet/pod_workers.go).
 *
 * <p>The kubelet watches the API server's facts on the log and keeps an informer cache of the pods bound to its nodes
 * and of its own Node objects. Every pod it sees bound to one of its nodes gets one pod worker, keyed by the pod's UID;
 * every change of that pod, and every fact the runtime reports about it, goes to that worker (upstream's
 * {@code UpdatePod}). A worker drives its pod through three phases, its work type:
 *
 * <ol>
 *   <li><b>SyncPod</b>: the pod should run. The worker has the {@link VolumeManager} mount the pod's CSI volumes and
 *       waits until they are published (none: no wait, no event), then asks the runtime for the sandbox
 *       ({@code RunPodSandboxRequested}), then, once the sandbox runs, starts the init containers one at a time and
 *       then each main container in spec order ({@code StartContainerRequested}; {@link InitContainers}: a regular init
 *       container must have exited 0, a sidecar must run, before the next starts), and once all of them run, the status
 *       manager reports the pod Running ({@code StatusUpdateRequested}). A container that exits by itself is started
 *       again as the pod's restartPolicy says (Always, the default; OnFailure; Never), at once the first time and then
 *       after the crash-loop back-off ({@link ContainerBackOff}), and the status shows it (restartCount, lastState,
 *       waiting CrashLoopBackOff). Once nothing runs and nothing will be started again, the pod's phase is Succeeded or
 *       Failed: the status manager writes it and the pod is terminal, so the worker moves on to TerminatingPod.
 *   <li><b>TerminatingPod</b>: the pod has a deletionTimestamp, left the API server, or is in phase Succeeded or
 *       Failed. The worker computes the effective grace period ({@link #calculateEffectiveGracePeriod}), announces it
 *       ({@code kubelet.PodTerminationStarted}, with the deadline {@code terminatingAt + gracePeriod}) and kills every
 *       running container as killContainer does (pkg/kubelet/kuberuntime/kuberuntime_container.go): a container with a
 *       preStop hook runs it first ({@code kubelet.PreStopHookStarted}; a timer wakes the worker when the hook ends or
 *       the deadline comes, whichever is first: {@code kubelet.PreStopHookFinished}); a sidecar then waits for its
 *       turn, until the main containers and the sidecars declared after it have exited or the grace period is spent;
 *       then the runtime is asked to stop it with what is left until the deadline, never less than
 *       {@link Termination#MINIMUM_GRACE_PERIOD_SECONDS} ({@code StopContainerRequested}). Once every container has
 *       exited, it stops the sandbox ({@code StopPodSandboxRequested}). A pod in which nothing runs any more (a pod
 *       already Succeeded or Failed) thus goes straight on to its sandbox: there is nothing to wait for. Once the
 *       runtime reports the sandbox stopped, killPod has returned, and the status manager writes the terminal status at
 *       once (Succeeded if every container exited 0, else Failed; a pod that ended by itself has it already), before
 *       any volume is unmounted (pkg/kubelet/kubelet.go SyncTerminatingPod).
 *   <li><b>TerminatedPod</b>: the volume manager unmounts the pod's volumes, and once none is left published (at once
 *       for a pod without CSI volumes) the worker records it ({@code kubelet.PodTerminated}) and is finished. Once the
 *       pod is marked for deletion and the API server holds its terminal phase, the status manager sends its own DELETE
 *       with grace period 0 and a UID precondition (pkg/kubelet/status/status_manager.go canBeDeleted: the pod may go
 *       once its worker finished). When the API server reports the pod removed, the worker asks the runtime to remove
 *       the sandbox ({@code RemovePodSandboxRequested}) and is forgotten.
 * </ol>
 *
 * <p>Invariants, as upstream states them:
 *
 * <ul>
 *   <li><i>Once terminating, every update is a kill.</i> An update of a terminating pod never starts anything; it can
 *       only shorten the grace period. A container whose start was asked for before the kill and that reports running
 *       after it is stopped at once.
 *   <li><i>The grace period may only decrease.</i> A later deletion with a shorter grace period is recorded as
 *       {@code kubelet.GracePeriodShortened}, not as a second PodTerminationStarted: the termination began once
 *       (terminatingAt does not move) and only its deadline moved, so a reader counting terminations counts each once
 *       and still sees the old and the new grace period side by side. As in every released kubelet, the kill in flight
 *       keeps its first deadline: UpdatePod cancels the sync, but SyncTerminatingPod kills on a context of its own
 *       (pkg/kubelet/kubelet.go, the comment naming #113606), so only the API server's deletionTimestamp moves
 *       (#83916). The unmerged fix is a switch ({@link Compat#shortenedGraceKillsAgain()}). A longer or equal grace
 *       period changes nothing.
 *   <li><i>Each container's preStop hook runs at most once</i>, and its time counts against the grace period.
 *   <li><i>A terminated pod is never restarted.</i> A finished or forgotten UID takes no more updates; a create of a
 *       UID whose worker is terminating or finished is recorded ({@code kubelet.PodRestartRequested}, restartRequested)
 *       and not admitted.
 *   <li><i>Once terminating, no container is started again</i>, whatever the restart policy; a container waiting out
 *       its back-off stays exited.
 *   <li><i>Only the API server's pods are deleted.</i> A pod that left the API server while its containers ran (a force
 *       delete) is still torn down on the node, volumes included, but gets no final status and no final delete: there
 *       is nothing left to write to.
 *   <li><i>A pod is terminated only once its volumes are unmounted</i>, so the final delete waits for them: a slow
 *       unmount keeps the pod Terminating, its phase already terminal.
 * </ul>
 *
 * <p>Who calls what: the API server's facts ({@code ObjectCreated}, {@code PodBound}, {@code PodStatusUpdated},
 * {@code ObjectMarkedTerminating}, {@code ObjectRemoved}) are the kubelet's config source, handled here; the runtime's
 * facts ({@code SandboxStarted}, {@code ContainerStarted}, {@code ContainerExited}, {@code SandboxStopped}) are its
 * PLEG ({@link Pleg}); the CSI plugin's ({@code VolumeStaged}, {@code VolumePublished}, {@code VolumeUnpublished},
 * {@code VolumeUnstaged}) go to the volume manager, which tells the worker when its pod's volumes are all published or
 * all unpublished. The worker reacts within the same step, so upstream's pending update and cancellation of a sync in
 * flight collapse into the order of the log. Every fact is applied only if it changes what the worker knows, so a
 * repeated fact emits nothing. The teardown is {@link Termination}'s, restarts are {@link ContainerRestarts}', pods
 * only the runtime knows are housekeeping's ({@link PodCleanups}), pressure on a node is the {@link EvictionManager}'s
 * and a pod's readiness, liveness and startup probes are the {@link Prober}'s (it hears the runtime's
 * {@code ContainerSignalled}, as a process that stops accepting on SIGTERM fails its readiness); each keys its timers
 * by a {@link PodWorkerTimer} of its own, and a timer that no longer matches what it was set for is stale and does
 * nothing. Node registration is the one action without a fact to react to: the wiring asks {@link #registerNodes} once
 * the kubelet has caught up with the log.
 *
 * <p><b>Time.</b> A decision takes its time from the fact it answers (the event's time on the log), not from when the
 * kubelet reads it: the start of a termination, of a preStop hook, and the timers that follow from them. So a kubelet
 * rebuilding its state from the log after a restart decides exactly what it decided live, sets its timers at the same
 * instants, and recognises every effect it had appended already. The events it emits still carry the time they were
 * decided at.
 *
 * <p>{@link Compat} switches move the kubelet away from the release: an unmerged fix (a shortened grace period kills
 * again) and an older defect (a force delete given the spec's grace period); the event carrying a decision a switch
 * changed names the switch in its {@code compat} field.
 */
public final class PodWorkers implements Part<PodWorkersState> {
    /**
     * What the informer cache keeps of a pod: all of its metadata and spec, and of its status only the phase and the
     * conditions (a condition it does not own stays on the status it writes, {@link PodStatuses}); the container
     * statuses and IPs the API server holds are what this kubelet wrote, and it never reads them back.
     */
    static final Projection CACHED_POD =
            Projection.of("apiVersion", "kind", "metadata", "spec", "status.phase", "status.conditions");
    /** The default of pod.spec.terminationGracePeriodSeconds (pkg/apis/core/v1/defaults.go). */
    static final long DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
    /**
     * The longest grace period the kubelet works with: what a Go time.Duration holds (math.MaxInt64 ns, about 292
     * years). The API server accepts any int64 (rest/delete.go); upstream's kubelet turns the seconds into a Duration
     * for its kill (kuberuntime_container.go), so anything longer is no longer a wait it can keep.
     */
    static final long MAX_GRACE_PERIOD_SECONDS = Long.MAX_VALUE / 1_000_000_000L;

    private final List<String> nodeNames;
    private final Compat compat;
    private final KubeletTiming timing;
    private final NodeCapacity capacity;
    /** What else the kubelet records of itself on the Nodes it registers (its kube-proxies' timing). */
    private final Map<String, String> nodeAnnotations;

    private final Termination termination;
    private final EvictionManager evictionManager;
    private final ContainerRestarts restarts;
    private final PodCleanups cleanups;
    private final Pleg pleg;
    private final Prober prober;

    public PodWorkers(Collection<String> nodeNames) {
        this(nodeNames, Compat.NONE);
    }

    /** Pod workers that wait for nothing ({@link KubeletTiming#FAST}), as most tests want them. */
    public PodWorkers(Collection<String> nodeNames, Compat compat) {
        this(nodeNames, compat, EvictionManager.DEFAULT_MAX_POD_GRACE_PERIOD_SECONDS, KubeletTiming.FAST);
    }

    /**
     * @param evictionMaxPodGracePeriodSeconds {@code podfall.kubelet.eviction-max-pod-grace-period}, upstream's
     *     {@code --eviction-max-pod-grace-period}: the grace period of a pod evicted under node pressure
     * @param timing the kubelet's own waits
     */
    public PodWorkers(
            Collection<String> nodeNames, Compat compat, long evictionMaxPodGracePeriodSeconds, KubeletTiming timing) {
        this(nodeNames, compat, evictionMaxPodGracePeriodSeconds, timing, NodeCapacity.DEFAULT);
    }

    /** @param capacity what each node registers with and reports */
    public PodWorkers(
            Collection<String> nodeNames,
            Compat compat,
            long evictionMaxPodGracePeriodSeconds,
            KubeletTiming timing,
            NodeCapacity capacity) {
        this(nodeNames, compat, evictionMaxPodGracePeriodSeconds, timing, capacity, Map.of());
    }

    /** @param nodeAnnotations what else the kubelet records of itself on the Nodes it registers, for a replay */
    public PodWorkers(
            Collection<String> nodeNames,
            Compat compat,
            long evictionMaxPodGracePeriodSeconds,
            KubeletTiming timing,
            NodeCapacity capacity,
            Map<String, String> nodeAnnotations) {
        this.capacity = capacity;
        this.nodeAnnotations = Map.copyOf(nodeAnnotations);
        this.nodeNames = nodeNames.stream()
                .map(String::trim)
                .filter(n -> !n.isEmpty())
                .distinct()
                .toList();
        if (this.nodeNames.isEmpty()) {
            throw new IllegalArgumentException("a kubelet needs at least one node name");
        }
        this.compat = compat;
        this.timing = timing;
        this.termination = new Termination(compat, timing);
        this.evictionManager = new EvictionManager(evictionMaxPodGracePeriodSeconds, termination);
        this.restarts = new ContainerRestarts(termination);
        this.cleanups = new PodCleanups(this.nodeNames, compat, termination);
        this.pleg = new Pleg(termination, restarts, cleanups, timing);
        this.prober = new Prober(timing);
    }

    public Compat compat() {
        return compat;
    }

    public KubeletTiming timing() {
        return timing;
    }

    public List<String> nodeNames() {
        return nodeNames;
    }

    public NodeCapacity capacity() {
        return capacity;
    }

    @Override
    public PodWorkersState newState() {
        return new PodWorkersState();
    }

    @Override
    public void handle(PodWorkersState state, Event event, Effects.Builder out) {
        switch (event.type()) {
            case EventTypes.OBJECT_CREATED,
                    EventTypes.POD_BOUND,
                    EventTypes.POD_STATUS_UPDATED,
                    EventTypes.OBJECT_UPDATED,
                    EventTypes.OBJECT_MARKED_TERMINATING -> objectChanged(state, event, out);
            case EventTypes.OBJECT_LISTED -> objectListed(state, event, out);
            case EventTypes.OBJECT_REMOVED -> objectRemoved(state, event, out);
            case EventTypes.SANDBOX_STARTED -> pleg.sandboxStarted(state, event, out);
            case EventTypes.CONTAINER_STARTED -> pleg.containerStarted(state, event, out);
            case EventTypes.CONTAINER_EXITED -> pleg.containerExited(state, event, out);
            case EventTypes.CONTAINER_SIGNALLED -> prober.containerSignalled(state, event, out);
            case EventTypes.SANDBOX_STOPPED -> pleg.sandboxStopped(state, event, out);
            case EventTypes.VOLUME_STAGED,
                    EventTypes.VOLUME_PUBLISHED,
                    EventTypes.VOLUME_UNPUBLISHED,
                    EventTypes.VOLUME_UNSTAGED -> volumeChanged(state, event, out);
            default -> {}
        }
    }

    /**
     * The end of a preStop hook, or the deadline that cuts it short; the end of a container's crash-loop back-off; a
     * cycle of the eviction manager; housekeeping of a pod only the runtime knows; the PLEG's relist a worker waits
     * for; the container garbage collector's run; a probe's run and the kill a failed probe waits for: each to the one
     * that set it.
     */
    @Override
    public void fire(PodWorkersState state, Timer timer, Effects.Builder out) {
        if (timer.key() instanceof PodWorkerTimer.Sync key) {
            termination.syncDue(state, key, timer, out);
        } else if (timer.key() instanceof PodWorkerTimer.Relist key) {
            pleg.relist(state, key, timer, out);
        } else if (timer.key() instanceof PodWorkerTimer.ContainerGc key) {
            termination.containerGc(key, out);
        } else if (timer.key() instanceof PodWorkerTimer.Housekeeping key) {
            cleanups.killOrphanedPod(state, key, timer, out);
        } else if (timer.key() instanceof PodWorkerTimer.Eviction key) {
            evictionManager.synchronize(state, key.node(), timer.at(), out);
        } else if (timer.key() instanceof PodWorkerTimer.BackOff key) {
            restarts.backOffEnded(state, key, timer, out);
        } else if (timer.key() instanceof PodWorkerTimer.PreStop key) {
            termination.preStopDue(state, key, timer, out);
        } else if (timer.key() instanceof PodWorkerTimer.Probe key) {
            prober.probeDue(state, key, timer, out);
        } else if (timer.key() instanceof PodWorkerTimer.ProbeKill key) {
            prober.killDue(state, key, timer, out);
        } else if (timer.key() instanceof PodWorkerTimer.Turn key) {
            termination.turnDue(state, key, timer, out);
        }
    }

    /**
     * Requests to register each of this kubelet's nodes the API server does not hold yet, as a kubelet does at start
     * (pkg/kubelet/kubelet_node_status.go registerWithAPIServer). No fact causes them, so they are requests of their
     * own; their ids are derived from the node and the time, so the same call gives the same events.
     */
    public List<Event> registerNodes(PodWorkersState state, Instant now) {
        return nodeNames.stream()
                .filter(node -> !state.isRegistered(node))
                .map(node -> Event.request(
                        Ids.derived("register-node", node, now.toString()),
                        "/kubelet/" + node,
                        EventTypes.CREATION_REQUESTED,
                        Subjects.of("", ResourceType.NODES.plural(), node),
                        now,
                        null,
                        new CreationRequest(
                                ResourceType.NODES.plural(),
                                "",
                                Json.tree(InitialNode.of(node, now, annotations(), capacity.of(node))))))
                .toList();
    }

    /**
     * What the kubelet records of itself on the Nodes it registers, for a replay to run it the same: its waits (nothing
     * for a kubelet that waits for nothing, as kubelets did before these waits existed), and {@link #nodeAnnotations}.
     */
    private Map<String, String> annotations() {
        Map<String, String> annotations = new TreeMap<>(nodeAnnotations);
        if (!timing.equals(KubeletTiming.FAST)) {
            annotations.put(KubeletTiming.ANNOTATION, timing.annotation());
        }
        return annotations;
    }

    /**
     * The grace period to kill a pod with, and whether it shortened the one recorded (pkg/kubelet/pod_workers.go
     * calculateEffectiveGracePeriod): the recorded value may only decrease; the API server's deletionGracePeriodSeconds
     * is "bedrock truth" and taken when smaller (an explicit 0, a force delete, is an override, not "unset"); so is the
     * kubelet's own override, an eviction's ({@code override}, null for none); without either, the pod's own
     * spec.terminationGracePeriodSeconds; never below 1.
     *
     * <p>With {@link Compat#forceDeleteUsesSpecGrace()} it is the version before the {@code overridden} guard (upstream
     * issue #120449): a grace period of 0 is taken for "unset" and replaced by the spec's, so a force delete gets 30 s
     * at the node. The result names the switch when it changed the value.
     */
    static EffectiveGracePeriod calculateEffectiveGracePeriod(PodSyncStatus status, Pod pod, Compat compat) {
        return calculateEffectiveGracePeriod(status, pod, null, compat);
    }

    static EffectiveGracePeriod calculateEffectiveGracePeriod(
            PodSyncStatus status, Pod pod, Long override, Compat compat) {
        long gracePeriod = effectiveGracePeriod(status, pod, override, false);
        String changedBy = null;
        if (compat.forceDeleteUsesSpecGrace()) {
            long old = effectiveGracePeriod(status, pod, override, true);
            if (old != gracePeriod) {
                gracePeriod = old;
                changedBy = Compat.FORCE_DELETE_USES_SPEC_GRACE;
            }
        }
        return new EffectiveGracePeriod(
                gracePeriod, status.gracePeriod != 0 && status.gracePeriod != gracePeriod, changedBy);
    }

    private static long effectiveGracePeriod(PodSyncStatus status, Pod pod, Long kubeletOverride, boolean zeroIsUnset) {
        long gracePeriod = status.gracePeriod;
        boolean overridden = false;
        // The API server's value first ("bedrock truth"), then the kubelet's own, each only if it is shorter.
        for (Long override : new Long[] {pod.getMetadata().getDeletionGracePeriodSeconds(), kubeletOverride}) {
            if (override != null && (gracePeriod == 0 || override < gracePeriod)) {
                gracePeriod = override;
                overridden = true;
            }
        }
        if ((zeroIsUnset || !overridden) && gracePeriod == 0) {
            Long spec = pod.getSpec().getTerminationGracePeriodSeconds();
            gracePeriod = spec != null ? spec : DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
        }
        return Math.min(Math.max(gracePeriod, 1), MAX_GRACE_PERIOD_SECONDS);
    }

    /** The grace period, whether it shortened the recorded one, and the compatibility switch that changed it. */
    record EffectiveGracePeriod(long seconds, boolean shortened, String compat) {}

    // --- the API server's facts: the kubelet's config source ---

    /**
     * An object listed at the start of a slice of the log: a Node of this kubelet is its Node as registered. A pod is
     * not taken in: what its worker and the runtime did with it before the slice is no API object, so a slice does not
     * hold it, and a worker started now would run the pod a second time.
     */
    private void objectListed(PodWorkersState state, Event event, Effects.Builder out) {
        ObjectChange change = ObjectChange.of(event);
        if (ResourceType.NODES.plural().equals(change.resource())) {
            nodeChanged(state, event, change.object(Node.class), out);
        }
    }

    private void objectChanged(PodWorkersState state, Event event, Effects.Builder out) {
        ObjectChange change = ObjectChange.of(event);
        if (ResourceType.NODES.plural().equals(change.resource())) {
            nodeChanged(state, event, change.object(Node.class), out);
            return;
        }
        Pod pod = boundPod(change);
        if (pod == null) {
            return;
        }
        String uid = pod.getMetadata().getUid();
        // Once a pod is terminated by UID it cannot re-enter the pod worker: a late or repeated update of a
        // forgotten UID is neither cached nor handed to a worker.
        if (state.forgotten.contains(uid)) {
            return;
        }
        state.pods.add(uid);
        PodWorker known = state.workers.get(uid);
        if (known != null
                && known.finalStatusRequestId != null
                && event.is(EventTypes.POD_STATUS_UPDATED)
                && known.finalStatusRequestId.equals(event.causationId())) {
            known.finalStatusPending = false;
        }
        if (known != null && event.is(EventTypes.OBJECT_CREATED) && known.status.isTerminationRequested()) {
            restartRequested(known, pod, out);
            return;
        }
        if (known != null && known.status.isTerminated()) {
            statusSeen(known, pod, out);
            return;
        }
        updatePod(state, pod, event.time(), out);
    }

    /**
     * UpdatePod with SyncPodCreate for a UID whose worker is terminating or finished: two pods with the same UID
     * (pod_workers.go: "assume that two pods with the same UID were created in close temporal proximity"). The worker
     * records restartRequested, once, and nothing else changes: upstream's housekeeping would start the UID again after
     * termination (only static pods reuse UIDs), but podfall never re-admits a UID it terminated. A repeat of the
     * create the worker began with (an older resourceVersion than the pod it holds) is no new create.
     */
    private void restartRequested(PodWorker w, Pod pod, Effects.Builder out) {
        if (w.status.restartRequested || !isNewer(pod, w.pod())) {
            return;
        }
        w.status.restartRequested = true;
        out.emit(
                w.source(),
                EventTypes.POD_RESTART_REQUESTED,
                w.subject(),
                new PodRestart(
                        w.node,
                        w.uid,
                        w.namespace(),
                        w.name(),
                        w.status.workType().name(),
                        w.status.isFinished()));
    }

    /**
     * A terminated pod takes no more updates (it is never restarted), but the status manager still watches it: once it
     * is marked for deletion and the API server holds the final status the kubelet wrote (the PodStatusUpdated caused
     * by that request), the pod can be deleted.
     */
    private void statusSeen(PodWorker w, Pod pod, Effects.Builder out) {
        w.pod(pod);
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            w.status.deleted = true;
        }
        termination.deleteIfReclaimed(w, out);
    }

    private void objectRemoved(PodWorkersState state, Event event, Effects.Builder out) {
        ObjectChange change = ObjectChange.of(event);
        if (ResourceType.NODES.plural().equals(change.resource())) {
            state.nodes.remove(change.object(Node.class).getMetadata().getName());
            return;
        }
        Pod pod = boundPod(change);
        if (pod == null) {
            return;
        }
        String uid = pod.getMetadata().getUid();
        state.pods.remove(uid);
        PodWorker w = state.workers.get(uid);
        if (w == null) {
            return;
        }
        if (w.status.isFinished()) {
            termination.forget(state, w, out);
            return;
        }
        // Removed before the worker finished (force delete): the containers may still run and must be stopped
        // anyway, with the grace period of the pod's last state.
        w.pod(pod);
        w.orphan = true;
        w.status.deleted = true;
        boolean becameTerminating = false;
        if (!w.status.isTerminationRequested()) {
            w.status.terminatingAt = event.time();
            becameTerminating = true;
        }
        termination.kill(state, w, becameTerminating, KillPodOptions.NONE, event.time(), out);
    }

    /**
     * At a stopped node's start, a pod that left the API server while it was away:
     * {@link PodCleanups#removedWhileAway}.
     */
    public boolean removedWhileAway(PodWorkersState state, Event event, Effects.Builder out) {
        return event.is(EventTypes.OBJECT_REMOVED)
                && cleanups.removedWhileAway(state, boundPod(ObjectChange.of(event)), event.time(), out);
    }

    /**
     * A Node of this kubelet was stored: kept in the cache unless an older revision (a redelivered fact), and handed to
     * the eviction manager, whose cycles its pressure annotation starts or ends.
     */
    private void nodeChanged(PodWorkersState state, Event event, Node node, Effects.Builder out) {
        String name = node.getMetadata().getName();
        Node known = state.nodes.get(name);
        if (!nodeNames.contains(name)
                || (known == null && !event.is(EventTypes.OBJECT_CREATED) && !event.is(EventTypes.OBJECT_LISTED))
                || (known != null && !isNewer(node, known))) {
            return;
        }
        state.nodes.put(name, node);
        evictionManager.nodeChanged(state, node, event.time(), out);
    }

    private static boolean isNewer(HasMetadata object, HasMetadata known) {
        return resourceVersion(object) > resourceVersion(known);
    }

    /** The API server's resourceVersion, a number in podfall; 0 where there is none. */
    private static long resourceVersion(HasMetadata object) {
        String rv = object.getMetadata().getResourceVersion();
        return rv == null || rv.isEmpty() ? 0 : Long.parseLong(rv);
    }

    /**
     * The pod of a change, if it is bound to one of this kubelet's nodes: the node is read off the tree first, so that
     * the pods of other kubelets' nodes (most of a cluster's) are never converted.
     */
    private Pod boundPod(ObjectChange change) {
        if (!ResourceType.PODS.plural().equals(change.resource())) {
            return null;
        }
        String node = change.object().path("spec").path("nodeName").textValue();
        return node != null && nodeNames.contains(node)
                ? Json.convert(CACHED_POD.apply(change.object()), Pod.class)
                : null;
    }

    /**
     * UpdatePod: hands the pod's latest state to its worker. The pod becomes terminating on a deletionTimestamp; once
     * terminating, the update is a kill; otherwise a pod not started yet is started.
     */
    private void updatePod(PodWorkersState state, Pod pod, Instant at, Effects.Builder out) {
        PodWorker w =
                state.workers.computeIfAbsent(pod.getMetadata().getUid(), u -> new PodWorker(pod, at, state.recent));
        w.pod(pod);
        PodSyncStatus status = w.status;
        boolean becameTerminating = false;
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            status.deleted = true;
        }
        // pod_workers.go UpdatePod: a pod marked for deletion, or in a terminal phase, begins teardown.
        if (!status.isTerminationRequested() && (status.deleted || PodStatuses.isTerminal(pod))) {
            status.terminatingAt = at;
            becameTerminating = true;
        }
        if (status.isTerminationRequested()) {
            termination.kill(state, w, becameTerminating, KillPodOptions.NONE, at, out);
            return;
        }
        if (!status.isStarted() && state.volumeManager.waitForAttachAndMount(pod, out)) {
            runPodSandbox(w, at, out);
        }
    }

    /** SyncPod, once the pod's volumes are mounted: the runtime is asked for the sandbox, and the pod is started. */
    private void runPodSandbox(PodWorker w, Instant at, Effects.Builder out) {
        w.status.startedAt = at;
        w.lastSyncAt = at;
        prober.addPod(w, at, out);
        out.emit(
                w.source(),
                EventTypes.RUN_POD_SANDBOX_REQUESTED,
                w.subject(),
                new RunPodSandbox(
                        w.node,
                        w.uid,
                        w.namespace(),
                        w.name(),
                        Stream.concat(
                                        InitContainers.of(w.pod()).stream()
                                                .map(c -> new RunPodSandbox.ContainerSpec(
                                                        c.getName(),
                                                        c.getImage(),
                                                        InitContainers.isSidecar(c) ? null : Boolean.TRUE)),
                                        w.pod().getSpec().getContainers().stream()
                                                .map(c -> new RunPodSandbox.ContainerSpec(c.getName(), c.getImage())))
                                .toList(),
                        w.pod().getMetadata().getAnnotations() == null
                                ? Map.of()
                                : w.pod().getMetadata().getAnnotations()));
    }

    // --- the CSI plugin's facts: the volume manager's actual state ---

    /**
     * A volume staged, published, unpublished or unstaged: the volume manager takes it in and reconciles; the pod whose
     * volume it was may now start (all its volumes published) or be terminated (all unpublished after its sandbox
     * stopped). The decision takes its time from the fact.
     */
    private void volumeChanged(PodWorkersState state, Event event, Effects.Builder out) {
        VolumeManager volumes = state.volumeManager;
        volumes.handle(event, out).map(state.workers::get).ifPresent(w -> {
            if (volumes.isUnmounted(w.uid)) {
                termination.volumesUnmounted(state, w, out);
            } else if (volumes.isMounted(w.uid) && !w.status.isStarted() && !w.status.isTerminationRequested()) {
                runPodSandbox(w, event.time(), out);
            }
        });
    }
}
