package io.podfall.kubelet.podworkers;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.podfall.kubelet.nodestatus.InitialNode;
import io.podfall.kubelet.volumemanager.VolumeManager;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.StatusUpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Part;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Ids;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.Projection;
import io.podfall.model.k8s.ResourceType;
import io.podfall.model.kubelet.GracePeriodShortened;
import io.podfall.model.kubelet.OrphanedPod;
import io.podfall.model.kubelet.PodEviction;
import io.podfall.model.kubelet.PodRestart;
import io.podfall.model.kubelet.PodTermination;
import io.podfall.model.kubelet.PodTerminationStart;
import io.podfall.model.kubelet.PreStopHookResult;
import io.podfall.model.kubelet.PreStopHookStart;
import io.podfall.model.runtime.ContainerRef;
import io.podfall.model.runtime.ContainerState;
import io.podfall.model.runtime.RunPodSandbox;
import io.podfall.model.runtime.Sandbox;
import io.podfall.model.runtime.SandboxRef;
import io.podfall.model.runtime.StopContainer;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The pod workers of a kubelet that runs one or many simulated nodes (pkg/kubelet/pod_workers.go).
 *
 * <p>The kubelet watches the API server's facts on the log and keeps an informer cache of the pods bound to its
 * nodes and of its own Node objects. Every pod it sees bound to one of its nodes gets one pod worker, keyed by
 * the pod's UID; every change of that pod, and every fact the runtime reports about it, goes to that worker
 * (upstream's {@code UpdatePod}). A worker drives its pod through three phases, its work type:
 *
 * <ol>
 *   <li><b>SyncPod</b>: the pod should run. The worker has the {@link VolumeManager} mount the pod's CSI volumes
 *       and waits until they are published (none: no wait, no event), then asks the runtime for the sandbox
 *       ({@code RunPodSandboxRequested}), then, once the sandbox runs, starts each container in spec order
 *       ({@code StartContainerRequested}), and once all of them run, the status manager reports the pod Running
 *       ({@code StatusUpdateRequested}). A container that exits by itself is started again as the pod's
 *       restartPolicy says (Always, the default; OnFailure; Never), at once the first time and then after the
 *       crash-loop back-off ({@link ContainerBackOff}), and the status shows it (restartCount, lastState, waiting
 *       CrashLoopBackOff). Once nothing runs and nothing will be started again, the pod's phase is Succeeded or
 *       Failed: the status manager writes it and the pod is terminal, so the worker moves on to TerminatingPod.</li>
 *   <li><b>TerminatingPod</b>: the pod has a deletionTimestamp, left the API server, or is in phase Succeeded or
 *       Failed. The worker computes the effective grace period ({@link #calculateEffectiveGracePeriod}),
 *       announces it ({@code kubelet.PodTerminationStarted}, with the deadline
 *       {@code terminatingAt + gracePeriod}) and kills every running container as killContainer does
 *       (pkg/kubelet/kuberuntime/kuberuntime_container.go): a container with a preStop hook runs it first
 *       ({@code kubelet.PreStopHookStarted}; a timer wakes the worker when the hook ends or the deadline comes,
 *       whichever is first: {@code kubelet.PreStopHookFinished}); then the runtime is asked to stop it with what
 *       is left until the deadline, never less than {@link #MINIMUM_GRACE_PERIOD_SECONDS}
 *       ({@code StopContainerRequested}). Once every container has exited, it stops the sandbox
 *       ({@code StopPodSandboxRequested}). A pod in which nothing runs any more (a pod already Succeeded or
 *       Failed) thus goes straight on to its sandbox: there is nothing to wait for.</li>
 *   <li><b>TerminatedPod</b>: the runtime reports the sandbox stopped. The volume manager unmounts the pod's
 *       volumes, and once none is left published (at once for a pod without CSI volumes) the worker records it
 *       ({@code kubelet.PodTerminated}); the status manager writes the final status (Succeeded if every
 *       container exited 0, else Failed; a pod that ended by itself has it already) and, once the pod is marked
 *       for deletion and the API server holds that status, sends its own DELETE with grace period 0 and a UID
 *       precondition (pkg/kubelet/status/status_manager.go: the pod may go once its resources are reclaimed).
 *       The worker is then finished. When the API server reports the pod removed, the worker asks the runtime to
 *       remove the sandbox ({@code RemovePodSandboxRequested}) and is forgotten.</li>
 * </ol>
 *
 * <p>Invariants, as upstream states them:
 * <ul>
 *   <li><i>Once terminating, every update is a kill.</i> An update of a terminating pod never starts anything;
 *       it can only shorten the grace period. A container whose start was asked for before the kill and that
 *       reports running after it is stopped at once.</li>
 *   <li><i>The grace period may only decrease.</i> A later deletion with a shorter grace period is recorded as
 *       {@code kubelet.GracePeriodShortened}, not as a second PodTerminationStarted: the termination began once
 *       (terminatingAt does not move) and only its deadline moved, so a reader counting terminations counts each
 *       once and still sees the old and the new grace period side by side. The kill in flight is then re-issued
 *       with the shorter deadline, still counted from terminatingAt, as the API server moves deletionTimestamp
 *       earlier by the difference (upstream cancels the sync in flight and kills again); a running preStop hook
 *       gets the shorter deadline too. A longer or equal grace period changes nothing.</li>
 *   <li><i>Each container's preStop hook runs at most once</i>, and its time counts against the grace period.</li>
 *   <li><i>A terminated pod is never restarted.</i> A finished or forgotten UID takes no more updates; a create
 *       of a UID whose worker is terminating or finished is recorded ({@code kubelet.PodRestartRequested},
 *       restartRequested) and not admitted.</li>
 *   <li><i>Once terminating, no container is started again</i>, whatever the restart policy; a container waiting
 *       out its back-off stays exited.</li>
 *   <li><i>Only the API server's pods are deleted.</i> A pod that left the API server while its containers ran
 *       (a force delete) is still torn down on the node, volumes included, but gets no final status and no final
 *       delete: there is nothing left to write to.</li>
 *   <li><i>A pod is terminated only once its volumes are unmounted</i>, so the final status and the final delete
 *       wait for them: a slow unmount keeps the pod Terminating.</li>
 * </ul>
 *
 * <p>Who calls what: the API server's facts ({@code ObjectCreated}, {@code PodBound}, {@code PodStatusUpdated},
 * {@code ObjectMarkedTerminating}, {@code ObjectRemoved}) are the kubelet's config source; the runtime's facts
 * ({@code SandboxStarted}, {@code ContainerStarted}, {@code ContainerExited}, {@code SandboxStopped}) are its
 * PLEG; the CSI plugin's ({@code VolumeStaged}, {@code VolumePublished}, {@code VolumeUnpublished},
 * {@code VolumeUnstaged}) go to the volume manager, which tells the worker when its pod's volumes are all
 * published or all unpublished. The worker reacts within the same step, so upstream's pending update and
 * cancellation of a sync in flight collapse into the order of the log. Every fact is applied only if it changes what the worker knows, so
 * a repeated fact emits nothing. One timer is the end of a preStop hook, keyed
 * {@code prestop/<node>/<podUid>/<container>}; a timer that no longer matches the container's hook is stale and
 * does nothing. Another is the end of a container's crash-loop back-off, keyed
 * {@code backoff/<node>/<podUid>/<container>}, stale unless it matches the container's wait. Another is
 * housekeeping of an orphaned runtime pod (below). Node registration is the one action without a fact to react to: the wiring asks
 * {@link #registerNodes} once the kubelet has caught up with the log.
 *
 * <p><b>Orphaned runtime pods.</b> A fact of the runtime (SandboxStarted, ContainerStarted) about a pod on one of
 * this kubelet's nodes that it knows from no API object and no worker, finished or not, is a pod nobody wants:
 * one the kubelet lost track of (its history is not on the log it rebuilt from). The kubelet keeps a worker for it
 * built from the facts alone and, as housekeeping does (pkg/kubelet/kubelet_pods.go HandlePodCleanups: "kill any
 * running pods that are not known to the pod worker"), one {@link #HOUSEKEEPING_PERIOD} later, once the facts
 * that came with it are in, records it ({@code kubelet.OrphanedPodFound}) and tears it down like a pod that left
 * the API server: StopContainer for what runs, with the default grace period (nothing tells it the pod's own),
 * StopPodSandbox, and RemovePodSandbox once the sandbox stopped. The timer is keyed
 * {@code housekeeping/<node>/<podUid>}.
 *
 * <p><b>Eviction under node pressure</b> ({@link EvictionManager}, pkg/kubelet/eviction/eviction_manager.go). A
 * Node of this kubelet annotated {@code podfall.io/pressure=<resource>} is under pressure until the annotation goes.
 * Its eviction manager evicts one pod at once and one more every monitoring interval while the pressure lasts
 * (timer {@code eviction/<node>}): it records the choice ({@code kubelet.PodEvicted}) and kills the pod through its
 * worker with the eviction's grace period override, which calculateEffectiveGracePeriod takes like the API
 * server's, and a status function ({@link KillPodOptions}) that the worker applies as the termination starts: the
 * status says Failed, reason Evicted, with the DisruptionTarget condition from then on, and so does the final
 * one; the pod was not
 * marked for deletion, so the status manager does not delete it (canBeDeleted): it stays Failed until someone
 * deletes it.
 *
 * <p><b>Time.</b> A decision takes its time from the fact it answers (the event's time on the log), not from when
 * the kubelet reads it: the start of a termination, of a preStop hook, and the timers that follow from them. So a
 * kubelet rebuilding its state from the log after a restart decides exactly what it decided live, sets its timers
 * at the same instants, and recognises every effect it had appended already. The events it emits still carry the
 * time they were decided at.
 *
 * <p>{@link Compat} switches reproduce two defects of older kubelets (a shortened grace period ignored by the
 * kill in flight; a force delete given the spec's grace period); the event carrying a decision a switch changed
 * names the switch in its {@code compat} field.
 */
public final class PodWorkers implements Part<PodWorkersState> {
    /**
     * What the informer cache keeps of a pod: all of its metadata and spec, and of its status only the phase and the
     * conditions (a condition it does not own stays on the status it writes, {@link PodStatuses}); the container
     * statuses and IPs the API server holds are what this kubelet wrote, and it never reads them back.
     */
    static final Projection CACHED_POD = Projection.of("apiVersion", "kind", "metadata", "spec", "status.phase", "status.conditions");
    /** The default of pod.spec.terminationGracePeriodSeconds (pkg/apis/core/v1/defaults.go). */
    static final long DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
    /**
     * The longest grace period the kubelet works with: what a Go time.Duration holds (math.MaxInt64 ns, about 292
     * years). The API server accepts any int64 (rest/delete.go); upstream's kubelet turns the seconds into a
     * Duration for its kill (kuberuntime_container.go), so anything longer is no longer a wait it can keep.
     */
    static final long MAX_GRACE_PERIOD_SECONDS = Long.MAX_VALUE / 1_000_000_000L;
    /**
     * The least time StopContainer ever gets (pkg/kubelet/kuberuntime/kuberuntime_container.go
     * minimumGracePeriodInSeconds): "always give containers a minimal shutdown window to avoid unnecessary
     * SIGKILLs", also after a preStop hook used up the grace period, and also for a force delete's 1 s.
     */
    static final long MINIMUM_GRACE_PERIOD_SECONDS = 2;
    /**
     * How long after the first fact of a pod nobody wants the kubelet tears it down (pkg/kubelet/kubelet.go
     * housekeepingPeriod, how often HandlePodCleanups runs).
     */
    static final Duration HOUSEKEEPING_PERIOD = Duration.ofSeconds(2);

    private final List<String> nodeNames;
    private final Compat compat;
    private final long evictionMaxPodGracePeriodSeconds;

    public PodWorkers(Collection<String> nodeNames) {
        this(nodeNames, Compat.NONE);
    }

    public PodWorkers(Collection<String> nodeNames, Compat compat) {
        this(nodeNames, compat, EvictionManager.DEFAULT_MAX_POD_GRACE_PERIOD_SECONDS);
    }

    /**
     * @param evictionMaxPodGracePeriodSeconds {@code podfall.kubelet.eviction-max-pod-grace-period}, upstream's
     *                                         {@code --eviction-max-pod-grace-period}: the grace period of a pod
     *                                         evicted under node pressure
     */
    public PodWorkers(Collection<String> nodeNames, Compat compat, long evictionMaxPodGracePeriodSeconds) {
        this.nodeNames = nodeNames.stream().map(String::trim).filter(n -> !n.isEmpty()).distinct().toList();
        if (this.nodeNames.isEmpty()) {
            throw new IllegalArgumentException("a kubelet needs at least one node name");
        }
        this.compat = compat;
        this.evictionMaxPodGracePeriodSeconds = evictionMaxPodGracePeriodSeconds;
    }

    public Compat compat() {
        return compat;
    }

    public List<String> nodeNames() {
        return nodeNames;
    }

    @Override
    public PodWorkersState newState() {
        return new PodWorkersState();
    }

    @Override
    public void handle(PodWorkersState state, Event event, Effects.Builder out) {
        switch (event.type()) {
            case EventTypes.OBJECT_CREATED, EventTypes.POD_BOUND, EventTypes.POD_STATUS_UPDATED, EventTypes.OBJECT_UPDATED,
                    EventTypes.OBJECT_MARKED_TERMINATING -> objectChanged(state, event, out);
            case EventTypes.OBJECT_LISTED -> objectListed(state, event, out);
            case EventTypes.OBJECT_REMOVED -> objectRemoved(state, event, out);
            case EventTypes.SANDBOX_STARTED -> sandboxStarted(state, event, out);
            case EventTypes.CONTAINER_STARTED -> containerStarted(state, event, out);
            case EventTypes.CONTAINER_EXITED -> containerExited(state, event, out);
            case EventTypes.SANDBOX_STOPPED -> sandboxStopped(state, event, out);
            case EventTypes.VOLUME_STAGED, EventTypes.VOLUME_PUBLISHED, EventTypes.VOLUME_UNPUBLISHED,
                    EventTypes.VOLUME_UNSTAGED -> volumeChanged(state, event, out);
            default -> {
            }
        }
    }

    /**
     * The end of a preStop hook, or the deadline that cuts it short: the hook is finished and the container
     * stopped; or the end of a container's crash-loop back-off; or a cycle of the eviction manager; or
     * housekeeping of a pod only the runtime knows. The runtime keeps the kill deadline of each container it stops.
     */
    @Override
    public void fire(PodWorkersState state, Timer timer, Effects.Builder out) {
        if (timer.key() instanceof PodWorkerTimer.Housekeeping key) {
            killOrphanedPod(state, key.node(), key.uid(), timer, out);
            return;
        }
        if (timer.key() instanceof PodWorkerTimer.Eviction key) {
            synchronize(state, key.node(), timer.at(), out);
            return;
        }
        if (timer.key() instanceof PodWorkerTimer.BackOff key) {
            backOffEnded(state, key.node(), key.uid(), key.container(), timer, out);
            return;
        }
        if (!(timer.key() instanceof PodWorkerTimer.PreStop key)) {
            return;
        }
        PodWorker w = worker(state, key.node(), key.uid());
        RuntimeContainer c = w == null ? null : w.container(key.container());
        if (c == null || c.state != RuntimeContainer.State.RUNNING || !c.isInPreStop()
                || !timer.at().equals(c.preStopDueAt)) {
            return;
        }
        finishPreStopHook(w, c, out);
    }

    /**
     * Requests to register each of this kubelet's nodes the API server does not hold yet, as a kubelet does at
     * start (pkg/kubelet/kubelet_node_status.go registerWithAPIServer). No fact causes them, so they are requests
     * of their own; their ids are derived from the node and the time, so the same call gives the same events.
     */
    public List<Event> registerNodes(PodWorkersState state, Instant now) {
        return nodeNames.stream().filter(node -> !state.isRegistered(node))
                .map(node -> Event.request(Ids.derived("register-node", node, now.toString()), source(node),
                        EventTypes.CREATION_REQUESTED, Subjects.of("", ResourceType.NODES.plural(), node), now, null,
                        new CreationRequest(ResourceType.NODES.plural(), "", Json.tree(InitialNode.of(node, now)))))
                .toList();
    }

    /**
     * The grace period to kill a pod with, and whether it shortened the one recorded (pkg/kubelet/pod_workers.go
     * calculateEffectiveGracePeriod): the recorded value may only decrease; the API server's
     * deletionGracePeriodSeconds is "bedrock truth" and taken when smaller (an explicit 0, a force delete, is an
     * override, not "unset"); so is the kubelet's own override, an eviction's ({@code override}, null for none);
     * without either, the pod's own spec.terminationGracePeriodSeconds; never below 1.
     *
     * <p>With {@link Compat#forceDeleteUsesSpecGrace()} it is the version before the {@code overridden} guard
     * (upstream issue #120449): a grace period of 0 is taken for "unset" and replaced by the spec's, so a force
     * delete gets 30 s at the node. The result names the switch when it changed the value.
     */
    static EffectiveGracePeriod calculateEffectiveGracePeriod(PodSyncStatus status, Pod pod, Compat compat) {
        return calculateEffectiveGracePeriod(status, pod, null, compat);
    }

    static EffectiveGracePeriod calculateEffectiveGracePeriod(PodSyncStatus status, Pod pod, Long override,
                                                              Compat compat) {
        long gracePeriod = effectiveGracePeriod(status, pod, override, false);
        String changedBy = null;
        if (compat.forceDeleteUsesSpecGrace()) {
            long old = effectiveGracePeriod(status, pod, override, true);
            if (old != gracePeriod) {
                gracePeriod = old;
                changedBy = Compat.FORCE_DELETE_USES_SPEC_GRACE;
            }
        }
        return new EffectiveGracePeriod(gracePeriod, status.gracePeriod != 0 && status.gracePeriod != gracePeriod,
                changedBy);
    }

    private static long effectiveGracePeriod(PodSyncStatus status, Pod pod, Long kubeletOverride,
                                             boolean zeroIsUnset) {
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
    record EffectiveGracePeriod(long seconds, boolean shortened, String compat) {
    }

    // --- the API server's facts: the kubelet's config source ---

    /**
     * An object listed at the start of a slice of the log: a Node of this kubelet is its Node as registered. A pod is
     * not taken in: what its worker and the runtime did with it before the slice is no API object, so a slice does
     * not hold it, and a worker started now would run the pod a second time.
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
        if (known != null && known.finalStatusRequestId != null && event.is(EventTypes.POD_STATUS_UPDATED)
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
     * (pod_workers.go: "assume that two pods with the same UID were created in close temporal proximity"). The
     * worker records restartRequested, once, and nothing else changes: upstream's housekeeping would start the UID
     * again after termination (only static pods reuse UIDs), but podfall never re-admits a UID it terminated. A
     * repeat of the create the worker began with (an older resourceVersion than the pod it holds) is no new create.
     */
    private void restartRequested(PodWorker w, Pod pod, Effects.Builder out) {
        if (w.status.restartRequested || !isNewer(pod, w.pod())) {
            return;
        }
        w.status.restartRequested = true;
        out.emit(source(w), EventTypes.POD_RESTART_REQUESTED, subject(w), new PodRestart(w.node, w.uid,
                w.namespace(), w.name(), w.status.workType().name(), w.status.isFinished()));
    }

    /**
     * A terminated pod takes no more updates (it is never restarted), but the status manager still watches it:
     * once it is marked for deletion and the API server holds the final status the kubelet wrote (the
     * PodStatusUpdated caused by that request), the pod can be deleted.
     */
    private void statusSeen(PodWorker w, Pod pod, Effects.Builder out) {
        w.pod(pod);
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            w.status.deleted = true;
        }
        deleteIfReclaimed(w, out);
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
            forget(state, w, out);
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
        kill(state, w, becameTerminating, KillPodOptions.NONE, event.time(), out);
    }

    // --- the eviction manager (pkg/kubelet/eviction/eviction_manager.go) ---

    /**
     * A Node of this kubelet was stored: kept in the cache unless an older revision (a redelivered fact); its
     * pressure annotation starts the eviction manager's cycles, at once, or ends them.
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
        Optional<String> pressure = EvictionManager.pressure(node);
        if (pressure.equals(Optional.ofNullable(state.pressure.get(name)))) {
            return;
        }
        if (pressure.isEmpty()) {
            state.pressure.remove(name);
            out.cancelTimer(new PodWorkerTimer.Eviction(name));
        } else {
            state.pressure.put(name, pressure.get());
            synchronize(state, name, event.time(), out);
        }
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
     * One cycle of the eviction manager (synchronize): while the node is under pressure, evict one pod, and look
     * again one monitoring interval later.
     */
    private void synchronize(PodWorkersState state, String node, Instant at, Effects.Builder out) {
        String resource = state.pressure.get(node);
        if (resource == null) {
            return;
        }
        EvictionManager.podToEvict(state.workers.values(), node).ifPresent(w -> evictPod(state, w, resource, at, out));
        out.timer(new PodWorkerTimer.Eviction(node), at.plus(EvictionManager.MONITORING_INTERVAL));
    }

    /**
     * evictPod: the pod's worker kills it with the eviction's grace period override and a PodStatusFunc that makes
     * it Failed, reason Evicted (killPodNow with KillPodOptions{Evict: true}); the status is written as the
     * termination starts (syncTerminatingPod), not only at its end.
     */
    private void evictPod(PodWorkersState state, PodWorker w, String resource, Instant at, Effects.Builder out) {
        long override = EvictionManager.gracePeriodOverride(w.pod(), evictionMaxPodGracePeriodSeconds);
        String message = EvictionManager.message(resource);
        w.status.evicted = true;
        out.emit(source(w), EventTypes.POD_EVICTED, subject(w), new PodEviction(w.node, w.uid, w.namespace(),
                w.name(), EvictionManager.signal(resource), resource, override, message));
        w.status.terminatingAt = at;
        kill(state, w, true, new KillPodOptions(override, status -> PodStatuses.evicted(status, message, at)), at,
                out);
    }

    /**
     * The pod of a change, if it is bound to one of this kubelet's nodes: the node is read off the tree first, so
     * that the pods of other kubelets' nodes (most of a cluster's) are never converted.
     */
    private Pod boundPod(ObjectChange change) {
        if (!ResourceType.PODS.plural().equals(change.resource())) {
            return null;
        }
        String node = change.object().path("spec").path("nodeName").textValue();
        return node != null && nodeNames.contains(node) ? Json.convert(CACHED_POD.apply(change.object()), Pod.class) : null;
    }

    /**
     * UpdatePod: hands the pod's latest state to its worker. The pod becomes terminating on a deletionTimestamp;
     * once terminating, the update is a kill; otherwise a pod not started yet is started.
     */
    private void updatePod(PodWorkersState state, Pod pod, Instant at, Effects.Builder out) {
        PodWorker w = state.workers.computeIfAbsent(pod.getMetadata().getUid(), u -> new PodWorker(pod, at, state.recent));
        w.pod(pod);
        PodSyncStatus status = w.status;
        boolean becameTerminating = false;
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            status.deleted = true;
        }
        // pod_workers.go UpdatePod: a pod marked for deletion, or in a terminal phase, begins teardown.
        if (!status.isTerminationRequested() && (status.deleted || isTerminalPhase(pod))) {
            status.terminatingAt = at;
            becameTerminating = true;
        }
        if (status.isTerminationRequested()) {
            kill(state, w, becameTerminating, KillPodOptions.NONE, at, out);
            return;
        }
        if (!status.isStarted() && state.volumeManager.waitForAttachAndMount(pod, out)) {
            runPodSandbox(w, at, out);
        }
    }

    /** SyncPod, once the pod's volumes are mounted: the runtime is asked for the sandbox, and the pod is started. */
    private void runPodSandbox(PodWorker w, Instant at, Effects.Builder out) {
        w.status.startedAt = at;
        out.emit(source(w), EventTypes.RUN_POD_SANDBOX_REQUESTED, subject(w), new RunPodSandbox(w.node, w.uid,
                w.namespace(), w.name(),
                w.pod().getSpec().getContainers().stream()
                        .map(c -> new RunPodSandbox.ContainerSpec(c.getName(), c.getImage())).toList(),
                w.pod().getMetadata().getAnnotations() == null ? Map.of() : w.pod().getMetadata().getAnnotations()));
    }

    /**
     * A kill of a terminating pod: records the effective grace period and, the first time, starts the
     * termination; when the grace period got shorter, moves the kill in flight to the new deadline; any other
     * kill changes nothing. {@code options} are the kubelet's own (an eviction's).
     */
    private void kill(PodWorkersState state, PodWorker w, boolean becameTerminating, KillPodOptions options,
                      Instant at, Effects.Builder out) {
        long previous = w.status.gracePeriod;
        EffectiveGracePeriod grace = calculateEffectiveGracePeriod(w.status, w.pod(), options.gracePeriodOverride(),
                compat);
        w.status.gracePeriod = grace.seconds();
        if (becameTerminating) {
            w.podStatusFunc = options.podStatusFunc();
            syncTerminatingPod(state, w, grace.compat(), at, out);
        } else if (grace.shortened()) {
            gracePeriodShortened(w, previous, at, out);
        }
    }

    /**
     * Announces the termination with its deadline and kills every running container. A kill with a PodStatusFunc
     * (an eviction) first has the status manager write the status it sets (kubelet.go SyncTerminatingPod); any
     * other kill leaves the status as it is until the end.
     */
    private void syncTerminatingPod(PodWorkersState state, PodWorker w, String changedBy, Instant at,
                                    Effects.Builder out) {
        w.status.startedTerminating = true;
        w.status.killDeadline = w.status.deadline();
        out.emit(source(w), EventTypes.POD_TERMINATION_STARTED, subject(w), new PodTerminationStart(w.node, w.uid,
                w.namespace(), w.name(), w.status.gracePeriod, w.status.deadline(), changedBy));
        if (w.podStatusFunc != null) {
            out.emit(source(w), EventTypes.STATUS_UPDATE_REQUESTED, subject(w),
                    new StatusUpdateRequest(w.namespace(), w.name(), w.uid, PodStatuses.generate(w, at, false)));
        }
        w.containers().stream().filter(c -> c.state == RuntimeContainer.State.RUNNING)
                .forEach(c -> killContainer(w, c, at, out));
        stopPodSandboxOnceContainersExited(state, w, out);
    }

    /**
     * The grace period got shorter while the pod terminates (upstream: UpdatePod cancels the sync in flight and
     * syncTerminatingPod runs again with the shorter grace period). Every container already asked to stop gets a
     * new StopContainer with what is left until the new deadline (the runtime moves its kill earlier); a running
     * preStop hook is cut short at the new deadline. Under {@link Compat#shortenedGraceIgnored()} the kill in
     * flight never hears of it: it keeps the original deadline, and the event says so.
     */
    private void gracePeriodShortened(PodWorker w, long previous, Instant at, Effects.Builder out) {
        boolean ignored = compat.shortenedGraceIgnored();
        out.emit(source(w), EventTypes.GRACE_PERIOD_SHORTENED, subject(w), new GracePeriodShortened(w.node, w.uid,
                w.namespace(), w.name(), previous, w.status.gracePeriod, w.status.deadline(),
                ignored ? Compat.SHORTENED_GRACE_IGNORED : null));
        if (ignored) {
            return;
        }
        w.status.killDeadline = w.status.deadline();
        for (RuntimeContainer c : w.containers()) {
            if (c.state != RuntimeContainer.State.RUNNING) {
                continue;
            }
            if (c.isInPreStop()) {
                awaitPreStopHook(w, c, at, out);
            } else if (c.stopRequested) {
                stopContainer(w, c, at, out);
            }
        }
    }

    /**
     * killContainer (pkg/kubelet/kuberuntime/kuberuntime_container.go): the preStop hook first, if the container
     * has one and there is time left for it; then StopContainer.
     */
    private void killContainer(PodWorker w, RuntimeContainer c, Instant at, Effects.Builder out) {
        Optional<PreStopHook> hook = c.preStopDone ? Optional.empty() : PreStopHook.of(w.pod(), c.name);
        c.preStopDone = true;
        if (hook.isEmpty() || !w.status.killDeadline.isAfter(at)) {
            stopContainer(w, c, at, out);
            return;
        }
        c.preStop = hook.get();
        c.preStopStartedAt = at;
        out.emit(source(w), EventTypes.PRE_STOP_HOOK_STARTED, subject(w), new PreStopHookStart(w.node, w.uid,
                w.namespace(), w.name(), c.containerId, c.name, c.preStop.handler(),
                remainingSeconds(w.status, at), at));
        awaitPreStopHook(w, c, at, out);
    }

    /**
     * executePreStopHook waits for the hook, but no longer than the grace period: the timer is due at the hook's
     * end or at the kill deadline, whichever comes first. Due already (a hook of no time, a deadline passed):
     * finished at once.
     */
    private void awaitPreStopHook(PodWorker w, RuntimeContainer c, Instant at, Effects.Builder out) {
        Instant end = c.preStopStartedAt.plus(c.preStop.duration());
        Instant due = end.isBefore(w.status.killDeadline) ? end : w.status.killDeadline;
        if (!due.isAfter(at)) {
            c.preStopDueAt = at;
            finishPreStopHook(w, c, out);
        } else if (!due.equals(c.preStopDueAt)) {
            c.preStopDueAt = due;
            out.timer(new PodWorkerTimer.PreStop(w.node, w.uid, c.name), due);
        }
    }

    /**
     * The hook ended, or the kubelet stopped waiting for it: the time it took counts against the grace period,
     * and the container is stopped with what is left (at least the minimum). A hook cut short is not killed; it
     * ends with its container.
     */
    private void finishPreStopHook(PodWorker w, RuntimeContainer c, Effects.Builder out) {
        Instant finishedAt = c.preStopDueAt;
        boolean exhausted = c.preStopStartedAt.plus(c.preStop.duration()).isAfter(finishedAt);
        preStopHookFinished(w, c, finishedAt, exhausted, null, out);
        stopContainer(w, c, finishedAt, out);
    }

    private void preStopHookFinished(PodWorker w, RuntimeContainer c, Instant finishedAt, boolean exhausted,
                                     String error, Effects.Builder out) {
        out.emit(source(w), EventTypes.PRE_STOP_HOOK_FINISHED, subject(w), new PreStopHookResult(w.node, w.uid,
                w.namespace(), w.name(), c.containerId, c.name, c.preStop.handler(),
                Duration.between(c.preStopStartedAt, finishedAt).getSeconds(), exhausted, c.preStopStartedAt,
                finishedAt, error));
        c.preStop = null;
        c.preStopDueAt = null;
    }

    private void stopContainer(PodWorker w, RuntimeContainer c, Instant at, Effects.Builder out) {
        c.stopRequested = true;
        out.emit(source(w), EventTypes.STOP_CONTAINER_REQUESTED, subject(w), new StopContainer(w.node, w.uid,
                c.containerId, c.name, Math.max(remainingSeconds(w.status, at), MINIMUM_GRACE_PERIOD_SECONDS)));
    }

    /**
     * The whole seconds left now until the kill deadline, rounded up so that no container is killed before the
     * deadline the API server announced; 0 once it has passed. At the start of a termination this is exactly the
     * grace period.
     */
    static long remainingSeconds(PodSyncStatus status, Instant now) {
        Duration left = Duration.between(now, status.killDeadline);
        long seconds = left.getSeconds() + (left.getNano() > 0 ? 1 : 0);
        return Math.max(seconds, 0);
    }

    private static boolean isTerminalPhase(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    /**
     * Once no container can be running any more: stop the sandbox; or, if the pod never got as far as asking for
     * one, it is terminated already. A sandbox asked for but not reported yet is stopped when it is reported.
     */
    private void stopPodSandboxOnceContainersExited(PodWorkersState state, PodWorker w, Effects.Builder out) {
        if (w.hasContainersThatCouldBeRunning()) {
            return;
        }
        if (w.sandbox == PodWorker.SandboxState.READY && !w.sandboxStopRequested) {
            w.sandboxStopRequested = true;
            out.emit(source(w), EventTypes.STOP_POD_SANDBOX_REQUESTED, subject(w), new SandboxRef(w.node, w.uid));
        } else if (!w.status.isStarted()
                || (w.sandbox == PodWorker.SandboxState.NOTREADY && !w.status.isTerminated())) {
            // Never started, or (a pod only the runtime knows) its sandbox seen stopped before the kill.
            waitForUnmount(state, w, out);
        }
    }

    /**
     * The pod's runtime is gone (its sandbox stopped, or it never got one): the volume manager unmounts its
     * volumes, and the pod is terminated once none is left (kubelet.go SyncTerminatedPod waits in WaitForUnmount
     * before the status manager terminates the pod), now or on the last VolumeUnpublished.
     */
    private void waitForUnmount(PodWorkersState state, PodWorker w, Effects.Builder out) {
        if (state.volumeManager.waitForUnmount(w.uid, out)) {
            syncTerminatedPod(state, w, out);
        }
    }

    /**
     * Every container and the sandbox are stopped and the volumes unmounted: the pod is terminated. The status
     * manager writes the final status; the delete waits for the API server to hold it ({@link #deleteIfReclaimed}).
     * An orphan has neither: it is forgotten at once. A pod the kubelet never started whose phase is terminal
     * already has nothing new to report.
     */
    private void syncTerminatedPod(PodWorkersState state, PodWorker w, Effects.Builder out) {
        w.status.terminatedAt = out.now();
        out.emit(source(w), EventTypes.POD_TERMINATED, subject(w), termination(w));
        if (!w.orphan && w.finalStatusRequestId == null && (w.status.isStarted() || !isTerminalPhase(w.pod()))) {
            requestFinalStatus(w, PodStatuses.generate(w, out.now(), true), out);
        }
        w.status.finished = true;
        if (w.orphan) {
            forget(state, w, out);
        } else {
            deleteIfReclaimed(w, out);
        }
    }

    /**
     * The status manager writes the pod's final status; the final delete waits until the API server holds it.
     */
    private void requestFinalStatus(PodWorker w, PodStatus status, Effects.Builder out) {
        out.emit(source(w), EventTypes.STATUS_UPDATE_REQUESTED, subject(w),
                new StatusUpdateRequest(w.namespace(), w.name(), w.uid, status));
        w.finalStatusRequestId = out.lastEventId();
        w.finalStatusPending = true;
    }

    /**
     * The status manager's final delete, grace 0, only for this UID (pkg/kubelet/status/status_manager.go syncPod
     * and canBeDeleted): the pod is marked for deletion, its resources are reclaimed, and its final status is on
     * the API server. Upstream sends the DELETE after the status PATCH returned; here it follows the fact that
     * the status was written, so it never overtakes the status on the log. The UID precondition keeps a new pod
     * of the same name safe. A pod not marked for deletion (torn down because its phase is terminal) is not
     * deleted by the kubelet, until someone marks it.
     */
    private void deleteIfReclaimed(PodWorker w, Effects.Builder out) {
        if (w.orphan || !w.status.isFinished() || !w.status.isDeleted() || w.finalStatusPending
                || w.finalDeleteRequested) {
            return;
        }
        w.finalDeleteRequested = true;
        out.emit(source(w), EventTypes.DELETION_REQUESTED, subject(w),
                new DeletionRequest(ResourceType.PODS.plural(), w.namespace(), w.name(),
                        new DeleteOptionsBuilder().withGracePeriodSeconds(0L)
                                .withNewPreconditions().withUid(w.uid).endPreconditions().build()));
    }

    /** The pod is gone from the API server and its worker finished: clean up the runtime and forget the UID. */
    private void forget(PodWorkersState state, PodWorker w, Effects.Builder out) {
        if (w.status.isStarted()) {
            out.emit(source(w), EventTypes.REMOVE_POD_SANDBOX_REQUESTED, subject(w), new SandboxRef(w.node, w.uid));
        }
        state.workers.remove(w.uid);
        state.recent.forget(w.uid);
        state.forgotten.add(w.uid);
        state.volumeManager.forget(w.uid);
    }

    // --- the runtime's facts: the kubelet's PLEG ---

    private void sandboxStarted(PodWorkersState state, Event event, Effects.Builder out) {
        Sandbox sandbox = event.data(Sandbox.class);
        PodWorker w = workerOrRuntimeOnly(state, event, sandbox.node(), sandbox.podUid(), out);
        if (w == null || w.sandbox != null) {
            return;
        }
        w.sandbox = PodWorker.SandboxState.READY;
        w.sandboxId = sandbox.sandboxId();
        w.podIP = sandbox.ip();
        if (w.status.isTerminationStarted()) {
            stopPodSandboxOnceContainersExited(state, w, out);
            return;
        }
        if (w.runtimeOnly) {
            // Nothing to start: it has no spec. Housekeeping decides.
            return;
        }
        for (Container c : w.pod().getSpec().getContainers()) {
            w.putContainer(new RuntimeContainer(c.getName(), c.getImage()));
            out.emit(source(w), EventTypes.START_CONTAINER_REQUESTED, subject(w),
                    new ContainerRef(w.node, w.uid, c.getName(), 0));
        }
    }

    private void containerStarted(PodWorkersState state, Event event, Effects.Builder out) {
        ContainerState reported = event.data(ContainerState.class);
        PodWorker w = workerOrRuntimeOnly(state, event, reported.node(), reported.podUid(), out);
        RuntimeContainer c = w == null ? null : runtimeContainer(w, reported);
        if (c == null || c.state != RuntimeContainer.State.CREATED) {
            return;
        }
        c.state = RuntimeContainer.State.RUNNING;
        c.containerId = reported.containerId();
        c.image = reported.image();
        c.startedAt = reported.startedAt();
        if (w.status.isTerminationStarted()) {
            // Its start was asked for before the kill: once terminating, every update is a kill.
            killContainer(w, c, event.time(), out);
        } else if (!w.runtimeOnly
                && w.containers().stream().noneMatch(x -> x.state == RuntimeContainer.State.CREATED)) {
            // Every container the kubelet started has been heard of: the first time, the pod is Running; after a
            // restart, the status shows the new container and the restart count.
            out.emit(source(w), EventTypes.STATUS_UPDATE_REQUESTED, subject(w),
                    new StatusUpdateRequest(w.namespace(), w.name(), w.uid, PodStatuses.generate(w, out.now(), false)));
        }
    }

    private void containerExited(PodWorkersState state, Event event, Effects.Builder out) {
        ContainerState reported = event.data(ContainerState.class);
        PodWorker w = worker(state, reported.node(), reported.podUid());
        RuntimeContainer c = w == null ? null : runtimeContainer(w, reported);
        if (c == null || c.state == RuntimeContainer.State.EXITED) {
            return;
        }
        c.state = RuntimeContainer.State.EXITED;
        c.containerId = reported.containerId();
        c.exitCode = reported.exitCode();
        c.reason = reported.reason();
        c.startedAt = reported.startedAt();
        c.finishedAt = reported.finishedAt();
        if (!w.status.isTerminationStarted()) {
            if (!w.runtimeOnly) {
                syncPodAfterExit(state, w, c, event.time(), out);
            }
            return;
        }
        if (c.isInPreStop()) {
            // The hook ends with its container, failed (an exec in a stopped container fails): nothing is left to
            // wait for, and no StopContainer follows for a container that is gone.
            out.cancelTimer(new PodWorkerTimer.PreStop(w.node, w.uid, c.name));
            Instant exitedAt = c.finishedAt != null ? c.finishedAt : event.time();
            preStopHookFinished(w, c, exitedAt, false,
                    "the container exited with code " + c.exitCode + " while its preStop hook ran", out);
        }
        stopPodSandboxOnceContainersExited(state, w, out);
    }

    // --- a container that exited by itself: restart policy, crash-loop back-off, a pod that ends by itself ---

    /**
     * SyncPod after a container of a pod that should run exited by itself (kuberuntime_manager.go
     * computePodActions and SyncPod): if the restart policy wants it back ({@link #shouldContainerBeRestarted}),
     * it is started again at once or once its back-off has passed ({@link #startOrBackOff}). Then the status: a
     * pod whose phase is now Succeeded or Failed (getPhase: nothing runs and nothing will be started again) is
     * terminal, so its status is written and the worker tears it down as for any terminal pod (SyncPod returns
     * isTerminal, the worker moves on to TerminatingPod): nothing to stop, its sandbox stopped, its volumes
     * unmounted; the object stays on the API server, Completed or Error, until someone deletes it. Otherwise
     * the status shows the container terminated or in CrashLoopBackOff, except when it is started again at
     * once: then the status follows when the new container runs.
     */
    private void syncPodAfterExit(PodWorkersState state, PodWorker w, RuntimeContainer c, Instant at,
                                  Effects.Builder out) {
        if (shouldContainerBeRestarted(w.pod(), c) && startOrBackOff(w, c, at, out)) {
            return;
        }
        PodStatus status = PodStatuses.generate(w, at, false);
        if (!PodStatuses.SUCCEEDED.equals(status.getPhase()) && !PodStatuses.FAILED.equals(status.getPhase())) {
            out.emit(source(w), EventTypes.STATUS_UPDATE_REQUESTED, subject(w),
                    new StatusUpdateRequest(w.namespace(), w.name(), w.uid, status));
            return;
        }
        requestFinalStatus(w, status, out);
        w.status.terminatingAt = at;
        kill(state, w, true, KillPodOptions.NONE, at, out);
    }

    /**
     * pkg/kubelet/container/helpers.go ShouldContainerBeRestarted, for a container that exited: never once the pod
     * is marked for deletion; with restartPolicy Never, never; with OnFailure, only after a non-zero exit; with
     * Always (the default), always.
     */
    static boolean shouldContainerBeRestarted(Pod pod, RuntimeContainer c) {
        if (pod.getMetadata().getDeletionTimestamp() != null || c.state != RuntimeContainer.State.EXITED) {
            return false;
        }
        String policy = pod.getSpec().getRestartPolicy();
        if ("Never".equals(policy)) {
            return false;
        }
        return !"OnFailure".equals(policy) || c.exitCode == null || c.exitCode != 0;
    }

    /**
     * doBackOff, then the start: a container in its back-off waits (state.waiting CrashLoopBackOff) until its
     * exit plus the back-off, when a timer ({@code backoff/<node>/<podUid>/<container>}) wakes the worker;
     * otherwise it is started again now, as the next attempt. Returns whether it was started.
     */
    private boolean startOrBackOff(PodWorker w, RuntimeContainer c, Instant at, Effects.Builder out) {
        Instant exitedAt = c.finishedAt != null ? c.finishedAt : at;
        if (c.backOff.isInBackOffSince(exitedAt, at)) {
            c.backOffUntil = exitedAt.plus(c.backOff.current());
            out.timer(new PodWorkerTimer.BackOff(w.node, w.uid, c.name), c.backOffUntil);
            return false;
        }
        c.backOff.next(exitedAt, at);
        c.restarting();
        out.emit(source(w), EventTypes.START_CONTAINER_REQUESTED, subject(w),
                new ContainerRef(w.node, w.uid, c.name, c.attempt));
        return true;
    }

    /**
     * The back-off of a container in CrashLoopBackOff has passed: unless the pod began terminating meanwhile, the
     * container is started again. A timer that no longer matches the container's wait is stale.
     */
    private void backOffEnded(PodWorkersState state, String node, String uid, String container, Timer timer,
                              Effects.Builder out) {
        PodWorker w = worker(state, node, uid);
        RuntimeContainer c = w == null ? null : w.container(container);
        if (c == null || w.status.isTerminationRequested() || !timer.at().equals(c.backOffUntil)) {
            return;
        }
        startOrBackOff(w, c, timer.at(), out);
    }

    private void sandboxStopped(PodWorkersState state, Event event, Effects.Builder out) {
        Sandbox sandbox = event.data(Sandbox.class);
        PodWorker w = worker(state, sandbox.node(), sandbox.podUid());
        if (w == null || w.sandbox != PodWorker.SandboxState.READY) {
            return;
        }
        w.sandbox = PodWorker.SandboxState.NOTREADY;
        if (w.status.isTerminationStarted() && !w.status.isTerminated()) {
            waitForUnmount(state, w, out);
        }
    }

    // --- the CSI plugin's facts: the volume manager's actual state ---

    /**
     * A volume staged, published, unpublished or unstaged: the volume manager takes it in and reconciles; the pod
     * whose volume it was may now start (all its volumes published) or be terminated (all unpublished after its
     * sandbox stopped). The decision takes its time from the fact.
     */
    private void volumeChanged(PodWorkersState state, Event event, Effects.Builder out) {
        VolumeManager volumes = state.volumeManager;
        volumes.handle(event, out).map(state.workers::get).ifPresent(w -> {
            if (volumes.isUnmounted(w.uid)) {
                if (w.status.isTerminationStarted() && !w.status.isTerminated()) {
                    syncTerminatedPod(state, w, out);
                }
            } else if (volumes.isMounted(w.uid) && !w.status.isStarted() && !w.status.isTerminationRequested()) {
                runPodSandbox(w, event.time(), out);
            }
        });
    }

    /**
     * The worker of the pod a runtime fact is about; for a pod of one of this kubelet's nodes that it knows from
     * no API object and no worker (finished or forgotten), a new one built from the fact alone, with housekeeping
     * set to look at it; null for anything else.
     */
    private PodWorker workerOrRuntimeOnly(PodWorkersState state, Event event, String node, String uid,
                                          Effects.Builder out) {
        PodWorker w = worker(state, node, uid);
        if (w != null || uid == null || !nodeNames.contains(node) || state.workers.containsKey(uid)
                || state.forgotten.contains(uid) || state.pods.contains(uid)) {
            return w;
        }
        String subject = event.subject();
        int slash = subject == null ? -1 : subject.lastIndexOf("/pods/");
        if (slash < 0) {
            return null;
        }
        Pod pod = new PodBuilder().withNewMetadata().withUid(uid).withNamespace(Subjects.namespaceOf(subject))
                .withName(subject.substring(slash + "/pods/".length())).endMetadata()
                .withNewSpec().withNodeName(node).endSpec().build();
        w = new PodWorker(pod, event.time(), state.recent);
        w.runtimeOnly = true;
        w.orphan = true;
        w.status.startedAt = event.time();
        state.workers.put(uid, w);
        out.timer(new PodWorkerTimer.Housekeeping(node, uid), event.time().plus(HOUSEKEEPING_PERIOD));
        return w;
    }

    /**
     * The container a runtime fact is about: one the worker asked for, or, for a pod only the runtime knows, any
     * the runtime reports (a container runs only in a ready sandbox, so that one is taken as ready too).
     */
    private static RuntimeContainer runtimeContainer(PodWorker w, ContainerState reported) {
        RuntimeContainer c = w.container(reported.containerName());
        if (c != null && c.attempt != reported.attempt()) {
            // A fact of an earlier container of the name (a redelivery), or of one not asked for yet.
            return null;
        }
        if (c == null && w.runtimeOnly && reported.containerName() != null) {
            c = new RuntimeContainer(reported.containerName(), reported.image());
            c.attempt = reported.attempt();
            w.putContainer(c);
            if (w.sandbox == null) {
                w.sandbox = PodWorker.SandboxState.READY;
            }
        }
        return c;
    }

    /**
     * Housekeeping of a pod only the runtime knows (HandlePodCleanups): unless something else began to terminate
     * it meanwhile, it is recorded as orphaned and killed with the default grace period, then torn down.
     */
    private void killOrphanedPod(PodWorkersState state, String node, String uid, Timer timer, Effects.Builder out) {
        PodWorker w = worker(state, node, uid);
        if (w == null || !w.runtimeOnly || w.status.isTerminationRequested()) {
            return;
        }
        out.emit(source(w), EventTypes.ORPHANED_POD_FOUND, subject(w), new OrphanedPod(node, uid, w.namespace(),
                w.name(), w.containers().stream().filter(c -> c.state == RuntimeContainer.State.RUNNING)
                        .map(c -> c.name).toList(), calculateEffectiveGracePeriod(w.status, w.pod(), compat).seconds()));
        w.status.deleted = true;
        w.status.terminatingAt = timer.at();
        kill(state, w, true, KillPodOptions.NONE, timer.at(), out);
    }

    /** The worker of a pod UID on one of this kubelet's nodes; null for anything else. */
    private PodWorker worker(PodWorkersState state, String node, String uid) {
        PodWorker w = uid == null ? null : state.workers.get(uid);
        return w != null && w.node.equals(node) ? w : null;
    }

    private static PodTermination termination(PodWorker w) {
        return new PodTermination(w.node, w.uid, w.namespace(), w.name(), w.status.gracePeriod,
                w.status.deadline());
    }

    private static String source(PodWorker w) {
        return source(w.node);
    }

    private static String source(String node) {
        return "/kubelet/" + node;
    }

    private static String subject(PodWorker w) {
        return Subjects.of(w.namespace(), ResourceType.PODS.plural(), w.name());
    }
}
