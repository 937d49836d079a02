package io.podfall.controller.podgc;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Node;
import io.podfall.controller.PodWrites;
import io.podfall.controller.PodsByNode.PodKey;
import io.podfall.controller.podgc.PodGCState.GcPod;
import io.podfall.controller.podgc.PodGCState.NodeView;
import io.podfall.model.Json;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Part;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The pod garbage collector of kube-controller-manager ({@code pkg/controller/podgc/gc_controller.go}): it
 * force-deletes the pods nobody else will, every {@value #GC_CHECK_PERIOD_SECONDS} s (gcCheckPeriod; a timer, key
 * {@code podgc}, due at whole multiples of the period, so that a replay passes when the recording did). Each pass, in
 * upstream's order:
 *
 * <ol>
 *   <li><b>gcTerminated</b>, when the threshold ({@code --terminated-pod-gc-threshold}, {@value #DEFAULT_THRESHOLD}; 0
 *       turns it off) is exceeded: the terminated pods (neither Pending, Running nor Unknown) over it, evicted ones
 *       first, then the oldest (creationTimestamp, then name).
 *   <li><b>gcTerminating</b>: pods being deleted on a node that is not Ready and carries the {@value #OUT_OF_SERVICE}
 *       taint (any effect; an administrator's word that the node is down for good: its kubelet will never finish them),
 *       in the same order.
 *   <li><b>gcOrphaned</b>: pods bound to a node the cache does not hold. The node is quarantined
 *       {@value #QUARANTINE_SECONDS} s (quarantineTime, for an informer that has not seen it yet); still missing at the
 *       first pass after, its pods are deleted, with the DisruptionTarget condition, reason {@value #REASON}, message
 *       "{@value #ORPHANED_MESSAGE}". Upstream then GETs the node from the API server; the cache is as fresh.
 *   <li><b>gcUnscheduledTerminating</b>: pods being deleted that were never bound to a node.
 * </ol>
 *
 * <p><b>Force deletion</b> (markFailedAndDeletePodWithCondition): a pod not yet Succeeded or Failed is first made
 * Failed, with the condition if the rule gives one (only gcOrphaned does), through a strategic merge patch of
 * {@code pods/status} with the pod's uid (PatchPodStatus), so that it does not stay Running for ever with no kubelet to
 * say otherwise; then a DELETE with gracePeriodSeconds 0, which removes it at once.
 *
 * <p>Invariants: a pass decides from the cache alone, in pod key order; facts at or below the last resourceVersion of
 * their namespace change nothing. Not mirrored: the metrics.
 */
public final class PodGCController implements Part<PodGCState> {
    public static final String SOURCE = "/controller/podgc";
    /** kube-controller-manager's {@code --terminated-pod-gc-threshold} default. */
    public static final int DEFAULT_THRESHOLD = 12500;

    static final long GC_CHECK_PERIOD_SECONDS = 20;
    static final long QUARANTINE_SECONDS = 40;
    static final String OUT_OF_SERVICE = "node.kubernetes.io/out-of-service";
    static final String REASON = "DeletionByPodGC";
    static final String ORPHANED_MESSAGE = "PodGC: node no longer exists";
    private static final Duration PERIOD = Duration.ofSeconds(GC_CHECK_PERIOD_SECONDS);
    private static final Duration QUARANTINE = Duration.ofSeconds(QUARANTINE_SECONDS);
    /** byEvictionAndCreationTimestamp. */
    private static final Comparator<Map.Entry<PodKey, GcPod>> DELETION_ORDER = Comparator.comparing(
                    (Map.Entry<PodKey, GcPod> e) -> !e.getValue().evicted())
            .thenComparing(e -> e.getValue().created(), Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(e -> e.getKey().name());

    private final int terminatedPodThreshold;

    public PodGCController() {
        this(DEFAULT_THRESHOLD);
    }

    /** @param terminatedPodThreshold {@code --terminated-pod-gc-threshold}; 0 turns gcTerminated off */
    public PodGCController(int terminatedPodThreshold) {
        this.terminatedPodThreshold = terminatedPodThreshold;
    }

    @Override
    public PodGCState newState() {
        return new PodGCState();
    }

    @Override
    public void handle(PodGCState state, Event event, Effects.Builder effects) {
        if (!EventTypes.OBJECT_CHANGES.contains(event.type())) {
            return;
        }
        if (!state.running) { // the first fact its informers deliver starts its passes
            state.running = true;
            effects.timer(new PodGCTimer(), nextPass(effects.causeTime()));
        }
        ObjectChange change = ObjectChange.of(event);
        if (ResourceType.PODS.plural().equals(change.resource())) {
            state.pods.observe(event, change);
        } else if (ResourceType.NODES.plural().equals(change.resource())) {
            Node node = change.object(Node.class);
            if (event.is(EventTypes.OBJECT_REMOVED)) {
                state.nodes.remove(node.getMetadata().getName());
            } else {
                state.nodes.put(node.getMetadata().getName(), view(node));
            }
        }
    }

    @Override
    public void fire(PodGCState state, Timer timer, Effects.Builder effects) {
        if (!(timer.key() instanceof PodGCTimer)) {
            return;
        }
        Instant now = timer.at();
        if (terminatedPodThreshold > 0) {
            gcTerminated(state, effects);
        }
        gcTerminating(state, effects);
        gcOrphaned(state, now, effects);
        gcUnscheduledTerminating(state, effects);
        effects.timer(new PodGCTimer(), now.plus(PERIOD));
    }

    /** The first whole multiple of the period after {@code t}. */
    private static Instant nextPass(Instant t) {
        long period = PERIOD.toMillis();
        return Instant.ofEpochMilli(Math.floorDiv(t.toEpochMilli(), period) * period + period);
    }

    private void gcTerminated(PodGCState state, Effects.Builder effects) {
        List<Map.Entry<PodKey, GcPod>> terminated = new ArrayList<>();
        for (Map.Entry<PodKey, GcPod> p : state.pods.all()) {
            if (p.getValue().terminated()) {
                terminated.add(p);
            }
        }
        int deleteCount = terminated.size() - terminatedPodThreshold;
        if (deleteCount <= 0) {
            return;
        }
        terminated.sort(DELETION_ORDER);
        terminated.subList(0, deleteCount).forEach(p -> forceDelete(p.getKey(), p.getValue(), null, effects));
    }

    private void gcTerminating(PodGCState state, Effects.Builder effects) {
        List<Map.Entry<PodKey, GcPod>> terminating = new ArrayList<>();
        for (Map.Entry<PodKey, GcPod> p : state.pods.all()) {
            NodeView node = state.nodes.get(p.getValue().nodeName());
            if (p.getValue().terminating() && node != null && !node.ready() && node.outOfService()) {
                terminating.add(p);
            }
        }
        terminating.sort(DELETION_ORDER);
        terminating.forEach(p -> forceDelete(p.getKey(), p.getValue(), null, effects));
    }

    private void gcOrphaned(PodGCState state, Instant now, Effects.Builder effects) {
        for (String node : state.pods.nodes()) {
            if (!state.nodes.containsKey(node)) {
                state.quarantine.putIfAbsent(node, now.plus(QUARANTINE));
            }
        }
        // discoverDeletedNodes: every node whose quarantine is over leaves the queue; those still missing are gone.
        Set<String> deleted = new TreeSet<>();
        for (Iterator<Map.Entry<String, Instant>> it =
                        state.quarantine.entrySet().iterator();
                it.hasNext(); ) {
            Map.Entry<String, Instant> q = it.next();
            if (!q.getValue().isAfter(now)) {
                it.remove();
                if (!state.nodes.containsKey(q.getKey())) {
                    deleted.add(q.getKey());
                }
            }
        }
        for (String node : deleted) {
            for (Map.Entry<PodKey, GcPod> p : state.pods.onNode(node)) {
                ObjectNode condition = PodWrites.condition(
                        PodWrites.DISRUPTION_TARGET, "True", REASON, ORPHANED_MESSAGE, effects.causeTime());
                forceDelete(p.getKey(), p.getValue(), condition, effects);
            }
        }
    }

    private void gcUnscheduledTerminating(PodGCState state, Effects.Builder effects) {
        for (Map.Entry<PodKey, GcPod> p : state.pods.onNode("")) {
            if (p.getValue().terminating()) {
                forceDelete(p.getKey(), p.getValue(), null, effects);
            }
        }
    }

    /** markFailedAndDeletePodWithCondition. */
    private static void forceDelete(PodKey key, GcPod pod, ObjectNode condition, Effects.Builder effects) {
        if (!"Succeeded".equals(pod.phase()) && !"Failed".equals(pod.phase())) {
            ObjectNode status = Json.MAPPER.createObjectNode();
            status.put("phase", "Failed");
            if (condition != null
                    && PodWrites.changes(
                            pod.conditions(),
                            condition.path("type").asText(),
                            condition.path("status").asText(),
                            condition.path("reason").asText(),
                            condition.path("message").asText())) {
                status.putArray("conditions").add(condition);
            }
            PodWrites.patchStatus(SOURCE, key, PodWrites.uid(pod.uid()), status, effects);
        }
        PodWrites.delete(SOURCE, key, 0L, effects);
    }

    private static NodeView view(Node node) {
        boolean ready = node.getStatus() != null
                && node.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
        boolean outOfService = node.getSpec() != null
                && node.getSpec().getTaints().stream().anyMatch(t -> OUT_OF_SERVICE.equals(t.getKey()));
        return new NodeView(ready, outOfService);
    }
}
