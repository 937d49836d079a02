package io.podfall.controller.nodelifecycle;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.podfall.controller.nodelifecycle.MarkPodsNotReady.PodWrite;
import io.podfall.model.Json;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Part;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.MetaTimes;
import io.podfall.model.k8s.ResourceType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The node lifecycle controller of kube-controller-manager
 * ({@code pkg/controller/nodelifecycle/node_lifecycle_controller.go}): it watches every node's heartbeats and turns
 * what it sees into the node's Ready condition and taints, which the scheduler then honours.
 *
 * <p><b>Health</b> (monitorNodeHealth, tryUpdateNodeHealth). A node is heard from when its Lease in
 * {@code kube-node-lease} shows a later renewTime, or its Ready condition a new lastHeartbeatTime; the controller then
 * notes the probe time (the time the fact was written, upstream its own clock when it sees the change, so that clock
 * skew between nodes and the control plane does not matter). When nothing was heard for the grace period
 * (node-monitor-grace-period, {@value #DEFAULT_GRACE_PERIOD_SECONDS} s since 1.32; a node that never posted Ready gets
 * the startup grace period, {@value #STARTUP_GRACE_PERIOD_SECONDS} s), its Ready, MemoryPressure, DiskPressure and
 * PIDPressure conditions become Unknown, reason {@code NodeStatusUnknown}, "Kubelet stopped posting node status." (a
 * condition never posted: {@code NodeStatusNeverUpdated}), written with a PATCH of {@code nodes/<name>/status} that
 * carries the resourceVersion it read (upstream's UpdateStatus), so a kubelet's post in between wins. Upstream polls
 * every node-monitor-period (5 s); here a timer per node (key {@code nodelifecycle/<node>}) is due exactly when the
 * grace period runs out, and a heartbeat moves it. The kubelet, once back, posts Ready True itself.
 *
 * <p><b>Taints</b>, one level-triggered pass over each node fact. TaintNodesByCondition (doNoScheduleTaintingPass): a
 * NoSchedule taint for each condition that keeps pods away — Ready False {@value #NOT_READY}, Ready Unknown
 * {@value #UNREACHABLE}, MemoryPressure {@value #MEMORY_PRESSURE}, DiskPressure {@value #DISK_PRESSURE}, PIDPressure
 * {@value #PID_PRESSURE}, NetworkUnavailable {@value #NETWORK_UNAVAILABLE} (each True) — and {@value #UNSCHEDULABLE}
 * for a cordoned node. Taint-based eviction's marking (doNoExecuteTaintingPass, markNodeAsReachable):
 * {@value #NOT_READY} or {@value #UNREACHABLE} with effect NoExecute while Ready is False or Unknown, taken away when
 * it is True again. Taints the controller does not own are kept as they are. The new taint list goes in one PATCH
 * carrying the resourceVersion it was computed from (SwapNodeControllerTaint), each taint added with timeAdded.
 *
 * <p>At most one status write and one taint write per node are in flight; each ends with the fact it caused or its
 * refusal. After a refusal (a conflict: the node changed meanwhile) the controller decides again from its cache, which,
 * the log being ordered, already holds the newer node; it asks nothing while its cache still shows the resourceVersion
 * that was refused.
 *
 * <p><b>Pods</b> ({@link MarkPodsNotReady}). When the controller's own write turns a node's Ready from True to Unknown
 * (the fact that answers it), every pod bound to the node gets its Ready condition False, so that its services stop
 * sending it traffic; so does a pod bound later to a node whose Ready is not True (processPod). A refused write of a
 * pod is made again from the newer pod in the cache while its node is still not Ready.
 *
 * <p>The eviction of the pods of a NoExecute-tainted node is the taint eviction controller's
 * ({@link io.podfall.controller.tainteviction.TaintEvictionController}). Not mirrored: the rate limiting of the
 * NoExecute tainting per zone (--node-eviction-rate, 0.1 node/s: upstream's zoneNoExecuteTainter adds the taint to one
 * node every 10 s per zone, the first at once; here every node at once) and the zone disruption modes (which upstream
 * lift the NoExecute taints when every node of the cluster is down, and slow the tainting in a zone that is mostly
 * down).
 */
public final class NodeLifecycleController implements Part<NodeLifecycleState> {
    public static final String SOURCE = "/controller/nodelifecycle";
    /** node-monitor-grace-period: 50 s since 1.32 (kubernetes#126287), 40 s before. */
    public static final long DEFAULT_GRACE_PERIOD_SECONDS = 50;
    /** node-startup-grace-period: for a node that never posted its Ready condition. */
    static final long STARTUP_GRACE_PERIOD_SECONDS = 60;

    static final String NOT_READY = "node.kubernetes.io/not-ready";
    static final String UNREACHABLE = "node.kubernetes.io/unreachable";
    static final String MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure";
    static final String DISK_PRESSURE = "node.kubernetes.io/disk-pressure";
    static final String PID_PRESSURE = "node.kubernetes.io/pid-pressure";
    static final String NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable";
    static final String UNSCHEDULABLE = "node.kubernetes.io/unschedulable";
    static final String NO_SCHEDULE = "NoSchedule";
    static final String NO_EXECUTE = "NoExecute";
    public static final String LEASE_NAMESPACE = "kube-node-lease";
    private static final String READY = "Ready";
    /** nodeConditionToTaintKeyStatusMap: which condition in which status taints the node with which key. */
    private static final Map<String, Map<String, String>> CONDITION_TAINTS = Map.of(
            READY,
            Map.of("False", NOT_READY, "Unknown", UNREACHABLE),
            "MemoryPressure",
            Map.of("True", MEMORY_PRESSURE),
            "DiskPressure",
            Map.of("True", DISK_PRESSURE),
            "NetworkUnavailable",
            Map.of("True", NETWORK_UNAVAILABLE),
            "PIDPressure",
            Map.of("True", PID_PRESSURE));
    /** The conditions a silent node's kubelet can no longer vouch for (NetworkUnavailable is the control plane's). */
    private static final List<String> KUBELET_CONDITIONS =
            List.of(READY, "MemoryPressure", "DiskPressure", "PIDPressure");

    private static final Set<String> NO_SCHEDULE_KEYS = Set.of(
            NOT_READY, UNREACHABLE, MEMORY_PRESSURE, DISK_PRESSURE, PID_PRESSURE, NETWORK_UNAVAILABLE, UNSCHEDULABLE);

    private final Duration gracePeriod;

    public NodeLifecycleController() {
        this(Duration.ofSeconds(DEFAULT_GRACE_PERIOD_SECONDS));
    }

    /** @param gracePeriod node-monitor-grace-period */
    public NodeLifecycleController(Duration gracePeriod) {
        this.gracePeriod = gracePeriod;
    }

    @Override
    public NodeLifecycleState newState() {
        return new NodeLifecycleState();
    }

    @Override
    public void handle(NodeLifecycleState state, Event event, Effects.Builder effects) {
        if (event.is(EventTypes.REQUEST_REJECTED)) {
            Optional<PodWrite> podWrite = state.podWriteAnswered(event.causationId());
            if (podWrite.isPresent()) {
                podWriteRefused(state, podWrite.get(), effects);
                return;
            }
            state.refused(event.causationId()).ifPresent(health -> {
                monitor(health, effects.causeTime(), effects);
                taint(health, effects);
            });
            return;
        }
        if (!EventTypes.OBJECT_CHANGES.contains(event.type())) {
            return;
        }
        ObjectChange change = ObjectChange.of(event);
        if (ResourceType.NODES.plural().equals(change.resource())) {
            nodeChanged(state, event, change.object(Node.class), effects);
        } else if (ResourceType.LEASES.plural().equals(change.resource()) && !event.is(EventTypes.OBJECT_REMOVED)) {
            leaseChanged(state, event, change.object(Lease.class), effects);
        } else if (ResourceType.PODS.plural().equals(change.resource())) {
            podChanged(state, event, change, effects);
        }
    }

    /** The grace period of a node ran out, unless a heartbeat came meanwhile: its conditions become Unknown. */
    @Override
    public void fire(NodeLifecycleState state, Timer timer, Effects.Builder effects) {
        if (timer.key() instanceof NodeMonitorTimer key) {
            state.health(key.node()).ifPresent(h -> monitor(h, timer.at(), effects));
        }
    }

    private void nodeChanged(NodeLifecycleState state, Event event, Node node, Effects.Builder effects) {
        String name = node.getMetadata().getName();
        if (event.is(EventTypes.OBJECT_REMOVED)) {
            state.forget(name);
            effects.cancelTimer(new NodeMonitorTimer(name));
            return;
        }
        NodeHealth health = state.healthOf(name);
        boolean wasReady = isReady(health.node());
        boolean ownStatusWrite = health.answersStatusWrite(event.causationId());
        if (!health.observe(node, event.causationId(), effects.causeTime())) {
            return;
        }
        if (ownStatusWrite && wasReady && !isReady(node)) {
            // monitorNodeHealth: Ready left True by the controller's own write (the kubelet marks its pods itself).
            state.pods.onNode(name).forEach(p -> MarkPodsNotReady.mark(state, p.getKey(), p.getValue(), effects));
        }
        if (!event.is(EventTypes.OBJECT_LISTED)) { // listed at a slice's start: its taints were decided before it
            taint(health, effects);
        }
        watch(health, effects);
    }

    /**
     * A pod fact; a pod newly bound to a node whose Ready is not True is marked NotReady at once (processPod, which
     * upstream queues on a change of spec.nodeName only).
     */
    private void podChanged(NodeLifecycleState state, Event event, ObjectChange change, Effects.Builder effects) {
        state.podWriteAnswered(event.causationId());
        state.pods.observe(event, change).ifPresent(c -> {
            if (c.listed() || c.removed() || c.now().nodeName().isEmpty()) {
                return;
            }
            String nodeName = c.now().nodeName();
            if (c.old() != null && nodeName.equals(c.old().nodeName())) {
                return;
            }
            state.health(nodeName)
                    .map(NodeHealth::node)
                    .map(n -> condition(n, READY))
                    .filter(ready -> !"True".equals(ready.getStatus()))
                    .ifPresent(ready -> MarkPodsNotReady.mark(state, c.key(), c.now(), effects));
        });
    }

    /**
     * A pod's NotReady write was refused (a conflict: the pod changed meanwhile): marked again from the cache, which
     * holds the newer pod, if its node is still not Ready (upstream retries on the next pass, nodesToRetry).
     */
    private void podWriteRefused(NodeLifecycleState state, PodWrite refused, Effects.Builder effects) {
        state.pods.get(refused.pod()).ifPresent(pod -> {
            boolean nodeNotReady =
                    state.health(pod.nodeName()).map(h -> !isReady(h.node())).orElse(false);
            if (nodeNotReady && !Objects.equals(pod.resourceVersion(), refused.resourceVersion())) {
                MarkPodsNotReady.mark(state, refused.pod(), pod, effects);
            }
        });
    }

    private static boolean isReady(Node node) {
        NodeCondition ready = node == null ? null : condition(node, READY);
        return ready != null && "True".equals(ready.getStatus());
    }

    private void leaseChanged(NodeLifecycleState state, Event event, Lease lease, Effects.Builder effects) {
        if (!LEASE_NAMESPACE.equals(lease.getMetadata().getNamespace())
                || lease.getSpec() == null
                || lease.getSpec().getRenewTime() == null) {
            return;
        }
        NodeHealth health = state.healthOf(lease.getMetadata().getName());
        if (health.renewed(lease.getSpec().getRenewTime().toInstant(), effects.causeTime())) {
            watch(health, effects);
        }
    }

    /** Sets the node's timer to when its grace period runs out; none while its Ready is Unknown already. */
    private void watch(NodeHealth health, Effects.Builder effects) {
        NodeCondition ready = health.node() == null ? null : condition(health.node(), READY);
        if (health.node() != null && (ready == null || !"Unknown".equals(ready.getStatus()))) {
            effects.timer(new NodeMonitorTimer(health.name()), health.probedAt().plus(gracePeriodOf(ready)));
        }
    }

    private Duration gracePeriodOf(NodeCondition ready) {
        return ready == null ? Duration.ofSeconds(STARTUP_GRACE_PERIOD_SECONDS) : gracePeriod;
    }

    /**
     * tryUpdateNodeHealth's last part: if nothing was heard for the grace period at {@code now}, every kubelet
     * condition that is not Unknown becomes Unknown, written once Ready changes.
     */
    private void monitor(NodeHealth health, Instant now, Effects.Builder effects) {
        Node node = health.node();
        if (node == null || health.statusInFlight()) {
            return;
        }
        NodeCondition ready = condition(node, READY);
        if (now.isBefore(health.probedAt().plus(gracePeriodOf(ready)))
                || (ready != null && "Unknown".equals(ready.getStatus()))) {
            return;
        }
        String at = MetaTimes.format(now);
        List<NodeCondition> unknown = new ArrayList<>();
        for (String type : KUBELET_CONDITIONS) {
            NodeCondition current = condition(node, type);
            if (current == null) {
                unknown.add(new NodeConditionBuilder()
                        .withType(type)
                        .withStatus("Unknown")
                        .withReason("NodeStatusNeverUpdated")
                        .withMessage("Kubelet never posted node status.")
                        .withLastHeartbeatTime(node.getMetadata().getCreationTimestamp())
                        .withLastTransitionTime(at)
                        .build());
            } else if (!"Unknown".equals(current.getStatus())) {
                unknown.add(new NodeConditionBuilder(current)
                        .withStatus("Unknown")
                        .withReason("NodeStatusUnknown")
                        .withMessage("Kubelet stopped posting node status.")
                        .withLastTransitionTime(at)
                        .build());
            }
        }
        ObjectNode patch = withResourceVersion(node);
        patch.putObject("status").set("conditions", Json.tree(unknown));
        effects.emit(
                SOURCE,
                EventTypes.PATCH_REQUESTED,
                subject(node),
                new PatchRequest(
                        ResourceType.NODES.plural(), "", health.name(), "status", PatchRequest.STRATEGIC, patch));
        health.statusRequested(effects.lastEventId());
    }

    /** The taints the controller owns that the node should have, and, if they differ from those it has, one PATCH. */
    private void taint(NodeHealth health, Effects.Builder effects) {
        Node node = health.node();
        if (node == null || health.taintsInFlight()) {
            return;
        }
        Set<String> wanted = new LinkedHashSet<>();
        if (node.getStatus() != null) {
            for (NodeCondition c : node.getStatus().getConditions()) {
                String key =
                        CONDITION_TAINTS.getOrDefault(c.getType(), Map.of()).get(c.getStatus());
                if (key != null) {
                    wanted.add(key + ":" + NO_SCHEDULE);
                }
            }
        }
        if (node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable())) {
            wanted.add(UNSCHEDULABLE + ":" + NO_SCHEDULE);
        }
        NodeCondition ready = condition(node, READY);
        if (ready != null && "False".equals(ready.getStatus())) {
            wanted.add(NOT_READY + ":" + NO_EXECUTE);
        } else if (ready != null && "Unknown".equals(ready.getStatus())) {
            wanted.add(UNREACHABLE + ":" + NO_EXECUTE);
        }
        List<Taint> current =
                node.getSpec() == null ? List.of() : node.getSpec().getTaints();
        List<Taint> next = new ArrayList<>();
        Set<String> kept = new LinkedHashSet<>();
        for (Taint t : current) {
            if (!owned(t) || wanted.contains(id(t))) {
                next.add(t);
                kept.add(id(t));
            }
        }
        String added = MetaTimes.format(effects.causeTime());
        for (String w : wanted) {
            if (!kept.contains(w)) {
                String[] keyEffect = w.split(":");
                next.add(new TaintBuilder()
                        .withKey(keyEffect[0])
                        .withEffect(keyEffect[1])
                        .withTimeAdded(added)
                        .build());
            }
        }
        if (next.size() == current.size() && kept.size() == current.size()) {
            return;
        }
        ObjectNode patch = withResourceVersion(node);
        patch.putObject("spec").set("taints", Json.tree(next));
        effects.emit(
                SOURCE,
                EventTypes.PATCH_REQUESTED,
                subject(node),
                new PatchRequest(ResourceType.NODES.plural(), "", health.name(), null, PatchRequest.STRATEGIC, patch));
        health.taintsRequested(effects.lastEventId());
    }

    /** Whether the controller owns this taint: a condition's or cordon's NoSchedule, or Ready's NoExecute. */
    private static boolean owned(Taint t) {
        return NO_SCHEDULE.equals(t.getEffect())
                ? NO_SCHEDULE_KEYS.contains(t.getKey())
                : NO_EXECUTE.equals(t.getEffect()) && (NOT_READY.equals(t.getKey()) || UNREACHABLE.equals(t.getKey()));
    }

    /** A taint's identity for the controller, as taintutils.TaintSetDiff matches them: key and effect. */
    private static String id(Taint t) {
        return t.getKey() + ":" + t.getEffect();
    }

    /** A patch that applies only to the node as the controller read it (optimistic concurrency). */
    private static ObjectNode withResourceVersion(Node node) {
        ObjectNode patch = Json.MAPPER.createObjectNode();
        patch.putObject("metadata").put("resourceVersion", node.getMetadata().getResourceVersion());
        return patch;
    }

    static NodeCondition condition(Node node, String type) {
        return node.getStatus() == null
                ? null
                : node.getStatus().getConditions().stream()
                        .filter(c -> Objects.equals(type, c.getType()))
                        .findFirst()
                        .orElse(null);
    }

    private static String subject(Node node) {
        return Subjects.of("", ResourceType.NODES.plural(), node.getMetadata().getName());
    }
}
