package io.podfall.controller.replicaset;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.podfall.controller.ActivePods;
import io.podfall.controller.CachedPod;
import io.podfall.controller.ControllerRefs;
import io.podfall.controller.Expectations;
import io.podfall.controller.Expectations.Kind;
import io.podfall.controller.SyncTimer;
import io.podfall.controller.WorkQueue;
import io.podfall.controller.replicaset.ReplicaSetState.Failure;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.apiserver.RequestRejection;
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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The ReplicaSet controller of kube-controller-manager ({@code pkg/controller/replicaset/replica_set.go}): it keeps as
 * many active pods as each ReplicaSet's {@code spec.replicas} asks for, and writes what it sees to the ReplicaSet's
 * status.
 *
 * <p><b>The cache.</b> It folds every apiserver fact about ReplicaSets and pods into its cache. A pod belongs to the
 * ReplicaSet named by its controller reference ({@code ownerReferences[controller=true]}, by uid). Orphans that match a
 * selector are not adopted ({@code claimPods} is not simulated): every pod podfall's controllers create carries its
 * controller reference from the start. A fact at or below the last resourceVersion seen in its namespace is a
 * redelivery and changes nothing.
 *
 * <p><b>Sync</b> ({@code syncReplicaSet}), after every fact that touches a ReplicaSet or a pod it controls:
 *
 * <ul>
 *   <li>Only active pods count ({@code FilterActivePods}): a pod with a deletionTimestamp, or in phase Succeeded or
 *       Failed, is replaced at once, while it still terminates.
 *   <li>{@code manageReplicas}: too few active pods, it asks to create the missing ones from the template
 *       ({@code apiserver.CreationRequested}: labels, annotations and finalizers of the template, its spec,
 *       {@code generateName "<replicaset>-"} and a controller reference that blocks the owner's deletion); too many, it
 *       asks to delete the surplus, first in {@link ActivePods#deletionOrder}. At most {@value #BURST_REPLICAS} per
 *       sync ({@code burstReplicas}). A ReplicaSet with a deletionTimestamp manages no pods: the garbage collector
 *       deletes them.
 *   <li>Expectations: while a creation or deletion it asked for is unanswered, it manages no pods of that ReplicaSet,
 *       so a redelivered or unrelated fact never duplicates a request ({@link Expectations}).
 *   <li>Status ({@code calculateStatus}, {@code updateReplicaSetStatus}): replicas (active pods), fullyLabeledReplicas,
 *       readyReplicas (Ready condition True), availableReplicas (ready for longer than {@code minReadySeconds}; a timer
 *       wakes the sync when the next pod becomes available), observedGeneration and the ReplicaFailure condition,
 *       written with a JSON merge patch of {@code /status} only when it differs from the status cached, and one write
 *       at a time.
 * </ul>
 *
 * <p><b>Failures.</b> A rejected creation or deletion is recorded as the ReplicaFailure condition (FailedCreate,
 * FailedDelete) until a later one succeeds; a rejected request of any kind delays the ReplicaSet's next sync by a
 * growing backoff, woken by a timer; an answer that never comes ends the expectation after {@link Expectations#TIMEOUT}
 * ({@link WorkQueue}).
 *
 * <p>Timer keys: {@code replicaset/retry/<ns>/<name>}, {@code replicaset/expectations/<ns>/<name>},
 * {@code replicaset/available/<ns>/<name>}.
 */
public final class ReplicaSetController implements Part<ReplicaSetState> {
    /** The event source of every request this controller sends. */
    public static final String SOURCE = "/controller/replicaset";
    /** Upstream's {@code BurstReplicas}: the most pods created or deleted in one sync. */
    static final int BURST_REPLICAS = 500;

    static final String REPLICA_FAILURE = "ReplicaFailure";

    private static final Set<String> RESOURCES = Set.of(ResourceType.PODS.plural(), ResourceType.REPLICASETS.plural());
    /** A pod counts as available a moment after its minReadySeconds have passed: upstream's test is strict. */
    private static final Duration AFTER = Duration.ofMillis(1);

    @Override
    public ReplicaSetState newState() {
        return new ReplicaSetState();
    }

    @Override
    public void handle(ReplicaSetState state, Event event, Effects.Builder effects) {
        if (event.is(EventTypes.REQUEST_REJECTED)) {
            state.requests()
                    .rejected(event, effects)
                    .filter(refused -> refused.kind() != Kind.WRITE)
                    .ifPresent(refused -> state.fail(
                            refused.owner(),
                            new Failure(
                                    refused.kind() == Kind.CREATION ? "FailedCreate" : "FailedDelete",
                                    event.data(RequestRejection.class).status().getMessage(),
                                    effects.now())));
            return;
        }
        Optional<ObjectChange> news = state.requests().news(event, RESOURCES);
        if (news.isEmpty()) {
            return;
        }
        Set<String> toSync = new LinkedHashSet<>();
        state.requests().answered(event).ifPresent(answered -> {
            if (Expectations.POD_CHANGES.contains(answered.kind())) {
                state.recovered(answered.owner());
            }
            toSync.add(answered.owner());
        });
        boolean removed = event.is(EventTypes.OBJECT_REMOVED);
        if (news.get().resourceType() == ResourceType.PODS) {
            podChanged(state, CachedPod.of(news.get().object()), removed, toSync);
        } else {
            ReplicaSet rs = news.get().object(ReplicaSet.class);
            String key = key(rs.getMetadata());
            if (removed) {
                state.removeReplicaSet(key);
            } else {
                state.putReplicaSet(key, rs);
                toSync.add(key);
            }
        }
        if (!event.is(EventTypes.OBJECT_LISTED)) { // listed at a slice's start: cached, synced at its next change
            toSync.forEach(key -> sync(state, key, effects));
        }
    }

    /** A retry after a backoff, a request in flight timed out, or the next pod available: sync the ReplicaSet. */
    @Override
    public void fire(ReplicaSetState state, Timer timer, Effects.Builder effects) {
        state.requests().fired(timer, effects).ifPresent(key -> sync(state, key, effects));
    }

    /**
     * Caches the pod, and collects the ReplicaSets it concerns: its controller before and after, and whoever deletes
     * it.
     */
    private static void podChanged(ReplicaSetState state, CachedPod pod, boolean removed, Set<String> toSync) {
        String uid = pod.uid();
        state.pod(uid).map(CachedPod::controllerUid).flatMap(state::keyOf).ifPresent(toSync::add);
        if (removed) {
            state.removePod(uid);
        } else {
            state.putPod(pod);
        }
        if (removed || pod.terminating()) {
            toSync.addAll(state.requests().expectations().deletionObserved(uid));
        }
        Optional.ofNullable(pod.controllerUid()).flatMap(state::keyOf).ifPresent(toSync::add);
    }

    private static void sync(ReplicaSetState state, String key, Effects.Builder effects) {
        Optional<ReplicaSet> cached = state.replicaSet(key);
        if (cached.isEmpty() || state.requests().backingOff(key, effects.now())) {
            return;
        }
        ReplicaSet rs = cached.get();
        ControlledPods pods = state.podsControlledBy(rs.getMetadata().getUid());
        if (rs.getMetadata().getDeletionTimestamp() == null
                && state.requests().expectations().satisfied(key, Expectations.POD_CHANGES)) {
            manageReplicas(state, key, rs, pods, effects);
        }
        updateStatus(state, key, rs, pods, effects);
        wakeWhenNextAvailable(state, key, rs, pods, effects);
    }

    /** Creates the missing pods or deletes the surplus. */
    private static void manageReplicas(
            ReplicaSetState state, String key, ReplicaSet rs, ControlledPods pods, Effects.Builder effects) {
        int diff = pods.activeCount() - replicas(rs);
        String namespace = rs.getMetadata().getNamespace();
        if (diff < 0) {
            for (int i = 0; i < Math.min(-diff, BURST_REPLICAS); i++) {
                effects.emit(
                        SOURCE,
                        EventTypes.CREATION_REQUESTED,
                        Subjects.of(namespace, ResourceType.PODS.plural(), ""),
                        new CreationRequest(ResourceType.PODS.plural(), namespace, Json.tree(podFromTemplate(rs))));
                state.requests().expect(key, Kind.CREATION, null, effects);
            }
        } else if (diff > 0) {
            for (CachedPod victim :
                    podsToDelete(state, rs, pods.active(), Math.min(diff, BURST_REPLICAS), effects.now())) {
                String name = victim.name();
                effects.emit(
                        SOURCE,
                        EventTypes.DELETION_REQUESTED,
                        Subjects.of(namespace, ResourceType.PODS.plural(), name),
                        new DeletionRequest(ResourceType.PODS.plural(), namespace, name, null));
                state.requests().expect(key, Kind.DELETION, victim.uid(), effects);
            }
        }
    }

    /**
     * {@code GetPodFromTemplate} ({@code pkg/controller/controller_utils.go}): the template's labels, annotations,
     * finalizers and spec, a name generated from {@code "<replicaset>-"} and the ReplicaSet as controller.
     */
    static Pod podFromTemplate(ReplicaSet rs) {
        PodTemplateSpec template = rs.getSpec().getTemplate();
        ObjectMeta t = template.getMetadata() == null ? new ObjectMeta() : template.getMetadata();
        return new PodBuilder()
                .withNewMetadata()
                .withGenerateName(rs.getMetadata().getName() + "-")
                .withNamespace(rs.getMetadata().getNamespace())
                .withLabels(t.getLabels() == null ? null : new LinkedHashMap<>(t.getLabels()))
                .withAnnotations(t.getAnnotations() == null ? null : new LinkedHashMap<>(t.getAnnotations()))
                .withFinalizers(t.getFinalizers() == null ? null : new ArrayList<>(t.getFinalizers()))
                .withOwnerReferences(ControllerRefs.newControllerRef(rs, ResourceType.REPLICASETS))
                .endMetadata()
                .withSpec(Json.convert(Json.tree(template.getSpec()), PodSpec.class))
                .build();
    }

    /**
     * {@code getPodsToDelete}: the first {@code count} active pods in deletion order, each ranked by how many active
     * pods of the ReplicaSets with the same controller (its siblings in a rollout) share its node
     * ({@code getPodsRankedByRelatedPodsOnSameNode}; upstream finds them by the siblings' selectors, podfall by their
     * controller references).
     */
    private static List<CachedPod> podsToDelete(
            ReplicaSetState state, ReplicaSet rs, List<CachedPod> active, int count, Instant now) {
        List<CachedPod> related = ControllerRefs.controllerOf(rs)
                .map(owner -> state.replicaSetsControlledBy(rs.getMetadata().getNamespace(), owner.getUid()).stream()
                        .flatMap(sibling ->
                                state.podsControlledBy(sibling.getMetadata().getUid()).active().stream())
                        .toList())
                .orElse(active);
        Map<String, Integer> podsOnNode = new HashMap<>();
        related.forEach(p -> podsOnNode.merge(p.nodeName(), 1, Integer::sum));
        Map<String, Integer> ranks = new HashMap<>();
        active.forEach(p -> ranks.put(p.uid(), podsOnNode.getOrDefault(p.nodeName(), 0)));
        return active.stream()
                .sorted(ActivePods.deletionOrder(ranks, now))
                .limit(count)
                .toList();
    }

    /** Writes the status if it changed and no write of it is in flight. */
    private static void updateStatus(
            ReplicaSetState state, String key, ReplicaSet rs, ControlledPods pods, Effects.Builder effects) {
        ReplicaSetStatus current = rs.getStatus() == null ? new ReplicaSetStatus() : rs.getStatus();
        ReplicaSetStatus next = calculateStatus(rs, current, pods, state.failure(key), effects.now());
        if (Json.tree(next).equals(Json.tree(current))
                || !state.requests().expectations().satisfied(key, Set.of(Kind.WRITE))) {
            return;
        }
        String namespace = rs.getMetadata().getNamespace();
        String name = rs.getMetadata().getName();
        effects.emit(
                SOURCE,
                EventTypes.PATCH_REQUESTED,
                Subjects.of(namespace, ResourceType.REPLICASETS.plural(), name),
                new PatchRequest(
                        ResourceType.REPLICASETS.plural(),
                        namespace,
                        name,
                        "status",
                        PatchRequest.MERGE,
                        Json.MAPPER.createObjectNode().set("status", Json.tree(next))));
        state.requests().expect(key, Kind.WRITE, null, effects);
    }

    /**
     * {@code calculateStatus}: the cached status with the counts of the active pods, the generation observed and the
     * ReplicaFailure condition added while a failure stands (removed once it no longer does).
     */
    static ReplicaSetStatus calculateStatus(
            ReplicaSet rs, ReplicaSetStatus current, ControlledPods pods, Optional<Failure> failure, Instant now) {
        ReplicaSetStatus next = Json.convert(Json.tree(current), ReplicaSetStatus.class);
        Map<String, String> templateLabels = rs.getSpec().getTemplate().getMetadata() == null
                ? Map.of()
                : Objects.requireNonNullElse(
                        rs.getSpec().getTemplate().getMetadata().getLabels(), Map.of());
        int minReadySeconds = Objects.requireNonNullElse(rs.getSpec().getMinReadySeconds(), 0);
        next.setReplicas(pods.activeCount());
        next.setFullyLabeledReplicas(pods.fullyLabeled(templateLabels));
        next.setReadyReplicas(pods.readyCount());
        next.setAvailableReplicas(pods.available(minReadySeconds, now));
        next.setObservedGeneration(rs.getMetadata().getGeneration());
        List<ReplicaSetCondition> conditions = new ArrayList<>(next.getConditions());
        boolean hasFailure = conditions.stream().anyMatch(c -> REPLICA_FAILURE.equals(c.getType()));
        if (failure.isPresent() && !hasFailure) {
            conditions.add(new ReplicaSetConditionBuilder()
                    .withType(REPLICA_FAILURE)
                    .withStatus("True")
                    .withReason(failure.get().reason())
                    .withMessage(failure.get().message())
                    .withLastTransitionTime(MetaTimes.format(failure.get().since()))
                    .build());
        } else if (failure.isEmpty() && hasFailure) {
            conditions.removeIf(c -> REPLICA_FAILURE.equals(c.getType()));
        }
        next.setConditions(conditions);
        return next;
    }

    /** With minReadySeconds, a ready pod becomes available later, without a fact: a timer wakes the sync then. */
    private static void wakeWhenNextAvailable(
            ReplicaSetState state, String key, ReplicaSet rs, ControlledPods pods, Effects.Builder effects) {
        int minReadySeconds = Objects.requireNonNullElse(rs.getSpec().getMinReadySeconds(), 0);
        if (minReadySeconds == 0) {
            return;
        }
        pods.nextAvailable(minReadySeconds, effects.now())
                .ifPresent(
                        at -> effects.timer(state.requests().timer(SyncTimer.Purpose.AVAILABLE, key), at.plus(AFTER)));
    }

    static String key(ObjectMeta meta) {
        return meta.getNamespace() + "/" + meta.getName();
    }

    private static int replicas(ReplicaSet rs) {
        return Objects.requireNonNullElse(rs.getSpec().getReplicas(), 1);
    }
}
