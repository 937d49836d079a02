package io.podfall.controller.scheduler;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.podfall.controller.PodUtil;
import io.podfall.controller.ResourceVersions;
import io.podfall.controller.scheduler.SchedulerState.CachedNode;
import io.podfall.controller.scheduler.SchedulerState.CachedPod;
import io.podfall.model.Json;
import io.podfall.model.apiserver.BindingRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Part;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.MetaTimes;
import io.podfall.model.k8s.ResourceType;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A minimal kube-scheduler: it places every pod that nobody has placed yet on the ready node, whose taints it
 * tolerates, that holds the fewest pods, by asking the API server for a binding ({@code apiserver.BindingRequested}).
 *
 * <p><b>The cache.</b> The scheduler folds every apiserver fact about nodes and pods into its cache (upstream
 * {@code pkg/scheduler/backend/cache}). A node is schedulable while its Ready condition is True, it is not cordoned
 * ({@code spec.unschedulable}) and it is not being deleted; a pod fits on it if it also tolerates each of the node's
 * NoSchedule and NoExecute taints ({@link TaintToleration}): the node lifecycle controller taints a node under memory,
 * disk or PID pressure, or not ready or unreachable, so such a node gets no new pods. A pod leaves the cache when it is
 * removed or when it reaches phase Succeeded or Failed: upstream the scheduler's pod informer watches with the field
 * selector {@code status.phase!=Succeeded,status.phase!=Failed} ({@code pkg/scheduler/scheduler.go}), so a finished pod
 * no longer counts on its node. A fact older than the cached one (lower numeric resourceVersion, as from a redelivered
 * event) is ignored.
 *
 * <p><b>Which pods it places</b> ({@code pkg/scheduler/eventhandlers.go}, {@code schedule_one.go}): a pod with no
 * {@code spec.nodeName}, no {@code deletionTimestamp}, whose {@code spec.schedulerName} is ours
 * ({@value #SCHEDULER_NAME}, or empty, which the API server defaults to it) and that is not assumed. Such pods wait in
 * the queue in the order the scheduler first saw them (creation order on the log).
 *
 * <p><b>Where.</b> The node the pod fits on with the fewest pods bound or assumed to it; among equals, the first by
 * name, so the choice is deterministic. This stands in for upstream's scoring plugins (least allocated, spreading).
 *
 * <p><b>Assume, then confirm or forget</b> ({@code pkg/scheduler/backend/cache/interface.go}): with the binding request
 * the pod is assumed on its node and counts there at once, so the next pod in the same pass sees it. The assumption
 * ends when the API server confirms the binding (a fact showing the pod's nodeName: the pod is now simply bound), when
 * it refuses it ({@code apiserver.RequestRejected} caused by our BindingRequested: the assumption is forgotten and the
 * pod waits again), or when the pod is removed.
 *
 * <p><b>When.</b> After every fact that changed the cache, one pass over the queue, oldest first: a new pod is placed
 * at once, pods that found no node to fit on are placed when a node registers (or becomes ready, or loses the taint
 * that kept them away), and a pod whose binding was refused is retried with the next change, not at once (upstream
 * moves it to the backoff queue).
 *
 * <p>Invariants: a pod is never the subject of two bindings in flight; a pod that is bound or being deleted is never
 * bound; a fact that changes nothing in the cache (a duplicate) starts no pass, so it emits nothing.
 */
public final class Scheduler implements Part<SchedulerState> {
    /** The event source of every binding request. */
    public static final String SOURCE = "/controller/scheduler";
    /** The scheduler profile name upstream's default scheduler answers to. */
    public static final String SCHEDULER_NAME = "default-scheduler";

    private static final TypeReference<List<Toleration>> TOLERATIONS = new TypeReference<>() {};

    @Override
    public SchedulerState newState() {
        return new SchedulerState();
    }

    @Override
    public void handle(SchedulerState state, Event event, Effects.Builder effects) {
        if (event.is(EventTypes.REQUEST_REJECTED)) {
            bindingRejected(state, event);
        } else if (EventTypes.OBJECT_CHANGES.contains(event.type())
                && cacheChanged(state, event)
                && !event.is(EventTypes.OBJECT_LISTED)) { // listed at a slice's start: cached, more may follow
            schedulePending(state, effects);
        }
    }

    /** Whether the pod is one this scheduler must place, as long as nothing is assumed for it. */
    static boolean waitsForNode(CachedPod pod) {
        return !pod.assigned()
                && !pod.deleting()
                && (pod.schedulerName() == null
                        || pod.schedulerName().isEmpty()
                        || SCHEDULER_NAME.equals(pod.schedulerName()));
    }

    private boolean cacheChanged(SchedulerState state, Event event) {
        ObjectChange change = ObjectChange.of(event);
        boolean removed = event.is(EventTypes.OBJECT_REMOVED);
        if (ResourceType.NODES.plural().equals(change.resource())) {
            return nodeChanged(state, change.object(Node.class), removed);
        }
        if (ResourceType.PODS.plural().equals(change.resource())) {
            return podChanged(state, change.object(), removed);
        }
        return false;
    }

    private boolean nodeChanged(SchedulerState state, Node node, boolean removed) {
        String name = node.getMetadata().getName();
        Optional<CachedNode> cached = state.node(name);
        if (removed) {
            cached.ifPresent(n -> state.removeNode(name));
            return cached.isPresent();
        }
        CachedNode updated = new CachedNode(
                name,
                node.getMetadata().getResourceVersion(),
                isReady(node),
                node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable()),
                node.getMetadata().getDeletionTimestamp() != null,
                node.getSpec() == null ? List.of() : List.copyOf(node.getSpec().getTaints()),
                allocatablePods(node));
        if (!isNews(cached, updated, CachedNode::resourceVersion)) {
            return false;
        }
        state.putNode(updated);
        return true;
    }

    /** {@code status.allocatable.pods}, or no limit when the node reports none. */
    private static int allocatablePods(Node node) {
        Quantity pods = node.getStatus() == null || node.getStatus().getAllocatable() == null
                ? null
                : node.getStatus().getAllocatable().get("pods");
        return pods == null
                ? Integer.MAX_VALUE
                : Quantity.getAmountInBytes(pods).intValue();
    }

    /**
     * Reads the few fields the cache keeps from the fact's tree: every pod change passes here, and a whole {@code Pod}
     * conversion per change was the scheduler's largest cost in a mass deletion.
     */
    private boolean podChanged(SchedulerState state, JsonNode pod, boolean removed) {
        JsonNode meta = pod.path("metadata");
        String uid = meta.path("uid").textValue();
        if (uid == null) {
            return false;
        }
        Optional<CachedPod> cached = state.pod(uid);
        String phase = pod.path("status").path("phase").textValue();
        if (removed || "Succeeded".equals(phase) || "Failed".equals(phase)) {
            cached.ifPresent(p -> state.removePod(uid));
            return cached.isPresent();
        }
        JsonNode spec = pod.path("spec");
        JsonNode tolerations = spec.path("tolerations");
        CachedPod updated = new CachedPod(
                uid,
                PodUtil.shared(meta.path("namespace")),
                meta.path("name").textValue(),
                meta.path("resourceVersion").textValue(),
                PodUtil.shared(spec.path("nodeName")),
                !meta.path("deletionTimestamp").isMissingNode()
                        && !meta.path("deletionTimestamp").isNull(),
                PodUtil.shared(spec.path("schedulerName")),
                tolerations.isEmpty() ? List.of() : List.copyOf(Json.MAPPER.convertValue(tolerations, TOLERATIONS)),
                cached.map(CachedPod::arrival).orElseGet(state::nextArrival));
        if (!isNews(cached, updated, CachedPod::resourceVersion)) {
            return false;
        }
        state.putPod(updated);
        return true;
    }

    /**
     * Places the waiting pods, oldest first. A pod that fits on no node stays Pending and is told why, once: its
     * PodScheduled condition False with reason Unschedulable, as upstream's handleSchedulingFailure writes it
     * ({@code pkg/scheduler/schedule_one.go}).
     */
    private void schedulePending(SchedulerState state, Effects.Builder effects) {
        for (String uid : state.queue()) {
            CachedPod pod = state.pod(uid).orElseThrow();
            Optional<String> node = state.leastLoadedNodeFor(pod);
            if (node.isEmpty()) {
                if (state.reportUnschedulable(uid)) {
                    reportUnschedulable(state, pod, effects);
                }
                continue;
            }
            effects.emit(
                    SOURCE,
                    EventTypes.BINDING_REQUESTED,
                    Subjects.of(pod.namespace(), "pods", pod.name()),
                    new BindingRequest(pod.namespace(), pod.name(), uid, node.get()));
            state.assume(uid, node.get(), effects.lastEventId());
        }
    }

    private static void reportUnschedulable(SchedulerState state, CachedPod pod, Effects.Builder effects) {
        String message = unschedulableMessage(state.nodes(), pod);
        ObjectNode patch = Json.MAPPER.createObjectNode();
        patch.putObject("status")
                .putArray("conditions")
                .addObject()
                .put("type", "PodScheduled")
                .put("status", "False")
                .put("reason", "Unschedulable")
                .put("message", message)
                .put("lastTransitionTime", MetaTimes.format(effects.now()));
        effects.emit(
                SOURCE,
                EventTypes.PATCH_REQUESTED,
                Subjects.of(pod.namespace(), "pods", pod.name()),
                new PatchRequest(
                        ResourceType.PODS.plural(),
                        pod.namespace(),
                        pod.name(),
                        "status",
                        PatchRequest.STRATEGIC,
                        patch));
    }

    /**
     * Why no node fits, as the scheduler's FitError says it: how many nodes each reason ruled out, reasons in
     * alphabetical order.
     */
    static String unschedulableMessage(List<CachedNode> nodes, CachedPod pod) {
        if (nodes.isEmpty()) {
            return "no nodes available to schedule pods";
        }
        Map<String, Integer> reasons = new TreeMap<>();
        for (CachedNode node : nodes) {
            // the first filter a node fails names it, in the default profile's filter order: NodeUnschedulable,
            // TaintToleration, NodeResourcesFit (pkg/scheduler/apis/config/v1/default_plugins.go); a node that
            // passes the first two is full, or the pod would have been placed there
            String reason = !node.schedulable()
                    ? "node(s) were not ready or unschedulable"
                    : !node.fits(pod)
                            ? "node(s) had untolerated taint "
                                    + TaintToleration.describe(
                                            TaintToleration.untolerated(node.taints(), pod.tolerations())
                                                    .orElseThrow())
                            : "Too many pods";
            reasons.merge(reason, 1, Integer::sum);
        }
        StringBuilder message = new StringBuilder("0/" + nodes.size() + " nodes are available: ");
        reasons.forEach((reason, count) ->
                message.append(count).append(' ').append(reason).append(", "));
        return message.substring(0, message.length() - 2) + ".";
    }

    /** A refused binding: forget the assumption; the pod waits for the next change to be placed again. */
    private void bindingRejected(SchedulerState state, Event event) {
        if (event.causationId() != null) {
            state.podAssumedBy(event.causationId()).ifPresent(state::forget);
        }
    }

    private static boolean isReady(Node node) {
        return node.getStatus() != null
                && node.getStatus().getConditions() != null
                && node.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** Whether {@code updated} tells the cache something: it differs from the cached entry and is not older than it. */
    private static <T> boolean isNews(Optional<T> cached, T updated, Function<T, String> resourceVersion) {
        return cached.map(c -> !c.equals(updated)
                        && !ResourceVersions.isOlder(resourceVersion.apply(updated), resourceVersion.apply(c)))
                .orElse(true);
    }
}
