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
import io.podfall.controller.scheduler.SchedulerState.Requirements;
import io.podfall.controller.scheduler.SchedulerState.Unschedulable;
import io.podfall.model.Json;
import io.podfall.model.SharedValues;
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
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * A minimal kube-scheduler: it places every pod that nobody has placed yet on the node, among those that pass the
 * default profile's filters, that holds the fewest pods, by asking the API server for a binding
 * ({@code apiserver.BindingRequested}).
 *
 * <p><b>The cache.</b> The scheduler folds every apiserver fact about nodes and pods into its cache (upstream
 * {@code pkg/scheduler/backend/cache}). A pod fits a node if it passes {@link Filters}: the node is not cordoned
 * (NodeUnschedulable), the pod tolerates each of its NoSchedule and NoExecute taints (TaintToleration), its labels
 * match the pod's node selector and required node affinity ({@link NodeAffinity}), and it has room for the pod's
 * requests ({@link Resources}; NodeResourcesFit). As upstream, the scheduler reads no node condition: the node
 * lifecycle controller taints a node that is not ready or unreachable, or under memory, disk or PID pressure, and the
 * taint keeps new pods away. A pod counts on its node, with its requests, from its binding (or assumption) until it is
 * removed or reaches phase Succeeded or Failed, terminating or not: upstream the scheduler's pod informer watches with
 * the field selector {@code status.phase!=Succeeded,status.phase!=Failed} ({@code pkg/scheduler/scheduler.go}), so a
 * finished pod no longer counts on its node, while a terminating one does until it is gone. A fact older than the
 * cached one (lower numeric resourceVersion, as from a redelivered event) is ignored.
 *
 * <p><b>Which pods it places</b> ({@code pkg/scheduler/eventhandlers.go}, {@code schedule_one.go}): a pod with no
 * {@code spec.nodeName} (a pod created with one is never scheduled, so the NodeName filter has nothing to turn down),
 * no {@code deletionTimestamp}, whose {@code spec.schedulerName} is ours ({@value #SCHEDULER_NAME}, or empty, which the
 * API server defaults to it) and that is not assumed. Such pods wait in the queue in the order the scheduler first saw
 * them (creation order on the log).
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
 * at once, pods that found no node to fit on are tried again with every change (a node that registers, loses a taint or
 * is uncordoned; a pod that leaves its node), and a pod whose binding was refused is retried with the next change, not
 * at once (upstream moves it to the backoff queue). Upstream retries an unschedulable pod only on the cluster events
 * its filters name (queueing hints), and at the latest after five minutes; trying on every change places it at the same
 * moment.
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
        Map<String, Quantity> allocatable =
                node.getStatus() == null || node.getStatus().getAllocatable() == null
                        ? Map.of()
                        : node.getStatus().getAllocatable();
        CachedNode updated = new CachedNode(
                name,
                node.getMetadata().getResourceVersion(),
                node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable()),
                node.getMetadata().getLabels() == null
                        ? Map.of()
                        : SharedValues.shared(Map.copyOf(node.getMetadata().getLabels())),
                node.getSpec() == null ? List.of() : List.copyOf(node.getSpec().getTaints()),
                new Resources(allocatable(allocatable, "cpu", 1000), allocatable(allocatable, "memory", 1)),
                allocatable(allocatable, "pods", 1));
        if (!isNews(cached, updated, CachedNode::resourceVersion)) {
            return false;
        }
        state.putNode(updated);
        return true;
    }

    /**
     * One resource of {@code status.allocatable} in units of 1/{@code factor}, or no limit if the node reports none.
     */
    private static long allocatable(Map<String, Quantity> allocatable, String resource, int factor) {
        Quantity q = allocatable.get(resource);
        return q == null ? Long.MAX_VALUE : Resources.scaled(q.toString(), BigDecimal.valueOf(factor));
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
        CachedPod updated = new CachedPod(
                uid,
                PodUtil.shared(meta.path("namespace")),
                meta.path("name").textValue(),
                meta.path("resourceVersion").textValue(),
                PodUtil.shared(spec.path("nodeName")),
                !meta.path("deletionTimestamp").isMissingNode()
                        && !meta.path("deletionTimestamp").isNull(),
                PodUtil.shared(spec.path("schedulerName")),
                requirements(spec),
                cached.map(CachedPod::arrival).orElseGet(state::nextArrival));
        if (!isNews(cached, updated, CachedPod::resourceVersion)) {
            return false;
        }
        state.putPod(updated);
        return true;
    }

    /** What the pod asks of a node, one instance for all the pods that ask the same. */
    private static Requirements requirements(JsonNode spec) {
        JsonNode tolerations = spec.path("tolerations");
        return SharedValues.shared(new Requirements(
                Resources.podRequests(spec),
                NodeAffinity.of(spec),
                tolerations.isEmpty() ? List.of() : List.copyOf(Json.MAPPER.convertValue(tolerations, TOLERATIONS))));
    }

    /**
     * Places the waiting pods, oldest first. A pod that fits on no node stays Pending and is told why: its PodScheduled
     * condition False with reason Unschedulable and the FitError's message, as upstream's handleSchedulingFailure
     * writes it ({@code pkg/scheduler/schedule_one.go}), and written again only when the message changes (updatePod
     * writes nothing when podutil.UpdatePodCondition finds the condition unchanged; a new message keeps the
     * lastTransitionTime, as the status stays False).
     *
     * <p>A pass decides once for all the pods that ask the same ({@link Requirements}) while it binds none: one that
     * found no node answers for the next, where a rollout of pods that fit nowhere would scan every node for each.
     */
    private void schedulePending(SchedulerState state, Effects.Builder effects) {
        Map<Requirements, String> noFit = new HashMap<>();
        for (String uid : state.queue()) {
            CachedPod pod = state.pod(uid).orElseThrow();
            String known = noFit.get(pod.requirements());
            Optional<String> node = known != null ? Optional.empty() : state.leastLoadedNodeFor(pod);
            if (node.isEmpty()) {
                String message = known != null ? known : unschedulableMessage(state, pod);
                noFit.put(pod.requirements(), message);
                reportUnschedulable(state, pod, message, effects);
                continue;
            }
            effects.emit(
                    SOURCE,
                    EventTypes.BINDING_REQUESTED,
                    Subjects.of(pod.namespace(), "pods", pod.name()),
                    new BindingRequest(pod.namespace(), pod.name(), uid, node.get()));
            state.assume(uid, node.get(), effects.lastEventId());
            noFit.clear();
        }
    }

    private static void reportUnschedulable(
            SchedulerState state, CachedPod pod, String message, Effects.Builder effects) {
        Optional<Unschedulable> said = state.unschedulable(pod.uid());
        if (said.map(u -> u.message().equals(message)).orElse(false)) {
            return;
        }
        Unschedulable condition =
                new Unschedulable(message, said.map(Unschedulable::since).orElse(effects.now()));
        state.reportUnschedulable(pod.uid(), condition);
        ObjectNode patch = Json.MAPPER.createObjectNode();
        patch.putObject("status")
                .putArray("conditions")
                .addObject()
                .put("type", "PodScheduled")
                .put("status", "False")
                .put("reason", "Unschedulable")
                .put("message", message)
                .put("lastTransitionTime", MetaTimes.format(condition.since()));
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
     * Why no node fits, as the scheduler's FitError says it ({@code pkg/scheduler/framework/types.go} FitError.Error):
     * "0/N nodes are available: ", then "count reason" for each reason the filters gave, sorted as strings, then the
     * default preemption plugin's PostFilter message (DefaultPreemption, {@code framework/preemption/preemption.go}):
     * "preemption: " and a FitError of its own over the same nodes, where a node turned down for good
     * (UnschedulableAndUnresolvable) is one where "Preemption is not helpful for scheduling", and one short of
     * resources finds "No preemption victims found for incoming pod", since no pod has a lower priority than another
     * here. With no node at all, ErrNoNodesAvailable's text.
     */
    static String unschedulableMessage(SchedulerState state, CachedPod pod) {
        List<CachedNode> nodes = state.nodes();
        if (nodes.isEmpty()) {
            return "no nodes available to schedule pods";
        }
        Optional<Set<String>> only = pod.requirements().affinity().preFilterNodeNames();
        if (only.isPresent() && only.get().isEmpty()) {
            // the PreFilter turns every node down at once (node_affinity.go PreFilter)
            return fitError(nodes.size(), Map.of(NodeAffinity.REASON_CONFLICT, nodes.size()), false)
                    + " preemption: "
                    + fitError(nodes.size(), Map.of(NO_PREEMPTION_HELP, nodes.size()), true);
        }
        Map<String, Integer> reasons = new HashMap<>();
        Map<String, Integer> preemption = new HashMap<>();
        for (CachedNode node : nodes) {
            Filters.Rejection rejection =
                    only.map(names -> names.contains(node.name())).orElse(true)
                            ? Filters.run(node, state.usage(node.name()), pod).orElseThrow()
                            : Filters.Rejection.unresolvable(NodeAffinity.REASON_PRE_FILTERED);
            rejection.reasons().forEach(r -> reasons.merge(r, 1, Integer::sum));
            preemption.merge(rejection.resolvable() ? NO_VICTIMS : NO_PREEMPTION_HELP, 1, Integer::sum);
        }
        return fitError(nodes.size(), reasons, true) + " preemption: " + fitError(nodes.size(), preemption, true);
    }

    private static final String NO_PREEMPTION_HELP = "Preemption is not helpful for scheduling";
    private static final String NO_VICTIMS = "No preemption victims found for incoming pod";

    /**
     * "0/N nodes are available: " and the reasons, each as "count reason", sorted as strings and joined by ", "
     * ({@code counted}); a PreFilter's message stands alone.
     */
    private static String fitError(int nodes, Map<String, Integer> reasons, boolean counted) {
        List<String> parts = new ArrayList<>();
        reasons.forEach((reason, count) -> parts.add(counted ? count + " " + reason : reason));
        Collections.sort(parts);
        return "0/" + nodes + " nodes are available: " + String.join(", ", parts) + ".";
    }

    /** A refused binding: forget the assumption; the pod waits for the next change to be placed again. */
    private void bindingRejected(SchedulerState state, Event event) {
        if (event.causationId() != null) {
            state.podAssumedBy(event.causationId()).ifPresent(state::forget);
        }
    }

    /** Whether {@code updated} tells the cache something: it differs from the cached entry and is not older than it. */
    private static <T> boolean isNews(Optional<T> cached, T updated, Function<T, String> resourceVersion) {
        return cached.map(c -> !c.equals(updated)
                        && !ResourceVersions.isOlder(resourceVersion.apply(updated), resourceVersion.apply(c)))
                .orElse(true);
    }
}
