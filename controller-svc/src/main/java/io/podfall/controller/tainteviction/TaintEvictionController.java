package io.podfall.controller.tainteviction;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.podfall.controller.PodWrites;
import io.podfall.controller.PodsByNode.Change;
import io.podfall.controller.PodsByNode.PodKey;
import io.podfall.controller.scheduler.TaintToleration;
import io.podfall.controller.tainteviction.TaintEvictionState.EvictablePod;
import io.podfall.controller.tainteviction.TaintEvictionState.Work;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The taint eviction controller of kube-controller-manager ({@code pkg/controller/tainteviction/taint_eviction.go}, the
 * NoExecute taint manager): it deletes the pods of a node tainted NoExecute that do not tolerate its taints, at once,
 * or once the time they tolerate them for has passed.
 *
 * <p><b>When it looks</b> (NodeUpdated, PodUpdated). When a node's NoExecute taints change (added, removed, a timeAdded
 * moved), every pod bound to it is looked at again; when a pod is bound or its tolerations change, that pod. The node
 * lifecycle controller's {@code node.kubernetes.io/unreachable} and {@code not-ready} NoExecute taints are what usually
 * starts it; a user's {@code kubectl taint ... :NoExecute} (the {@code out-of-service} taint, say) too.
 *
 * <p><b>What it decides</b> (processPodOnNode), for a pod on a node with NoExecute taints: a pod that does not tolerate
 * every one of them is evicted at once; one that tolerates them all, some for a while (tolerationSeconds), is evicted
 * when the smallest of those has passed since the controller saw the taint (the time of the fact, not the taint's
 * timeAdded: upstream takes its own clock); one that tolerates them all for ever is not. An eviction already scheduled
 * that falls due no later stays as it is. All the NoExecute taints gone, or the pod removed: the scheduled eviction is
 * cancelled. A timer per pod (key {@code tainteviction/<namespace>/<name>}) stands for upstream's TimedWorker.
 *
 * <p><b>How it evicts</b> (addConditionAndDeletePod): the pod's DisruptionTarget condition, reason {@value #REASON},
 * message "{@value #MESSAGE}", through a strategic merge patch of {@code pods/status} with the pod's uid
 * (PatchPodStatus; none if the pod has that condition already), then a DELETE without options: the pod's own grace
 * period. Its kubelet, if it is alive, then stops the pod; if not, the pod stays Terminating (see the pod GC
 * controller's out-of-service rule). Upstream reads the pod from the API server first; here the cache, which the log
 * keeps as fresh.
 *
 * <p>Invariants: facts at or below the last resourceVersion of their namespace change nothing; the same facts in the
 * same order give the same requests. Not mirrored: the Kubernetes Events ({@code TaintManagerEviction}) and the retries
 * of a failed delete (five, 10 ms apart: a refusal here is final, as upstream's is after them).
 */
public final class TaintEvictionController implements Part<TaintEvictionState> {
    public static final String SOURCE = "/controller/tainteviction";
    static final String REASON = "DeletionByTaintManager";
    static final String MESSAGE = "Taint manager: deleting due to NoExecute taint";
    private static final String NO_EXECUTE = "NoExecute";

    @Override
    public TaintEvictionState newState() {
        return new TaintEvictionState();
    }

    @Override
    public void handle(TaintEvictionState state, Event event, Effects.Builder effects) {
        if (!EventTypes.OBJECT_CHANGES.contains(event.type())) {
            return;
        }
        ObjectChange change = ObjectChange.of(event);
        if (ResourceType.NODES.plural().equals(change.resource())) {
            nodeChanged(state, event, change.object(Node.class), effects);
        } else if (ResourceType.PODS.plural().equals(change.resource())) {
            state.pods.observe(event, change).ifPresent(c -> podChanged(state, c, effects));
        }
    }

    /** A scheduled eviction falls due. */
    @Override
    public void fire(TaintEvictionState state, Timer timer, Effects.Builder effects) {
        if (timer.key() instanceof TaintEvictionTimer key && state.evictions.containsKey(key.pod())) {
            evict(state, key.pod(), effects);
        }
    }

    /** NodeUpdated and handleNodeUpdate. */
    private void nodeChanged(TaintEvictionState state, Event event, Node node, Effects.Builder effects) {
        String name = node.getMetadata().getName();
        if (event.is(EventTypes.OBJECT_REMOVED)) {
            state.taintedNodes.remove(name); // its pods' evictions go on: the pod GC removes orphans
            return;
        }
        List<Taint> taints = noExecuteTaints(node);
        if (taints.equals(state.taintedNodes.getOrDefault(name, List.of()))) {
            return;
        }
        if (taints.isEmpty()) {
            state.taintedNodes.remove(name);
        } else {
            state.taintedNodes.put(name, taints);
        }
        if (event.is(EventTypes.OBJECT_LISTED)) {
            return; // a slice's start: what was decided about it was decided before
        }
        for (Map.Entry<PodKey, EvictablePod> pod : state.pods.onNode(name)) {
            if (taints.isEmpty()) {
                cancel(state, pod.getKey(), effects);
            } else {
                processPodOnNode(state, pod.getKey(), pod.getValue(), taints, effects);
            }
        }
    }

    /** PodUpdated and handlePodUpdate: only a new pod, a new node or new tolerations matter. */
    private void podChanged(TaintEvictionState state, Change<EvictablePod> c, Effects.Builder effects) {
        if (c.removed()) {
            cancel(state, c.key(), effects);
            return;
        }
        EvictablePod pod = c.now();
        if (c.listed()
                || pod.nodeName().isEmpty()
                || c.old() != null
                        && c.old().nodeName().equals(pod.nodeName())
                        && c.old().tolerations().equals(pod.tolerations())) {
            return;
        }
        List<Taint> taints = state.taintedNodes.get(pod.nodeName());
        if (taints != null) {
            processPodOnNode(state, c.key(), pod, taints, effects);
        }
    }

    private void processPodOnNode(
            TaintEvictionState state, PodKey key, EvictablePod pod, List<Taint> taints, Effects.Builder effects) {
        Instant now = effects.causeTime();
        List<Toleration> used = matchingTolerations(taints, pod.tolerationList());
        if (used == null) {
            cancel(state, key, effects);
            addWork(state, key, now, now, effects);
            return;
        }
        Duration min = minTolerationTime(used);
        if (min == null) {
            cancel(state, key, effects); // tolerated for ever
            return;
        }
        Instant start = now;
        Work scheduled = state.evictions.get(key);
        if (scheduled != null) {
            start = scheduled.createdAt();
            if (start.plus(min).isBefore(now.plus(min))) {
                return;
            }
            cancel(state, key, effects);
        }
        addWork(state, key, start, start.plus(min), effects);
    }

    /** TimedWorkerQueue.AddWork: none if one is scheduled; due at once when fireAt is not after createdAt. */
    private void addWork(
            TaintEvictionState state, PodKey key, Instant createdAt, Instant fireAt, Effects.Builder effects) {
        if (state.evictions.containsKey(key)) {
            return;
        }
        state.evictions.put(key, new Work(createdAt, fireAt));
        Duration delay = Duration.between(createdAt, fireAt);
        if (delay.isNegative() || delay.isZero()) {
            evict(state, key, effects);
        } else {
            effects.timer(new TaintEvictionTimer(key), effects.causeTime().plus(delay));
        }
    }

    private void cancel(TaintEvictionState state, PodKey key, Effects.Builder effects) {
        if (state.evictions.remove(key) != null) {
            effects.cancelTimer(new TaintEvictionTimer(key));
        }
    }

    /**
     * addConditionAndDeletePod; the work is over once asked for (the worker's entry goes when its function returns).
     */
    private void evict(TaintEvictionState state, PodKey key, Effects.Builder effects) {
        state.evictions.remove(key);
        state.pods.get(key).ifPresent(pod -> {
            if (PodWrites.changes(pod.conditions(), PodWrites.DISRUPTION_TARGET, "True", REASON, MESSAGE)) {
                var status = Json.MAPPER.createObjectNode();
                status.putArray("conditions")
                        .add(PodWrites.condition(
                                PodWrites.DISRUPTION_TARGET, "True", REASON, MESSAGE, effects.causeTime()));
                PodWrites.patchStatus(SOURCE, key, PodWrites.uid(pod.uid()), status, effects);
            }
            PodWrites.delete(SOURCE, key, null, effects);
        });
    }

    private static List<Taint> noExecuteTaints(Node node) {
        return node.getSpec() == null
                ? List.of()
                : node.getSpec().getTaints().stream()
                        .filter(t -> NO_EXECUTE.equals(t.getEffect()))
                        .toList();
    }

    /**
     * GetMatchingTolerations ({@code pkg/apis/core/v1/helper/helpers.go}): for each taint the first toleration that
     * tolerates it, or null if some taint is tolerated by none.
     */
    static List<Toleration> matchingTolerations(List<Taint> taints, List<Toleration> tolerations) {
        List<Toleration> used = new ArrayList<>();
        for (Taint taint : taints) {
            Optional<Toleration> first = tolerations.stream()
                    .filter(t -> TaintToleration.tolerates(t, taint))
                    .findFirst();
            if (first.isEmpty()) {
                return null;
            }
            used.add(first.get());
        }
        return used;
    }

    /**
     * getMinTolerationTime: the smallest tolerationSeconds (0 for none at all, or one at or below 0), or null when none
     * has any: tolerated for ever.
     */
    static Duration minTolerationTime(List<Toleration> tolerations) {
        if (tolerations.isEmpty()) {
            return Duration.ZERO;
        }
        Long min = null;
        for (Toleration t : tolerations) {
            Long seconds = t.getTolerationSeconds();
            if (seconds != null) {
                if (seconds <= 0) {
                    return Duration.ZERO;
                }
                min = min == null ? seconds : Math.min(min, seconds);
            }
        }
        return min == null ? null : Duration.ofSeconds(min);
    }
}
