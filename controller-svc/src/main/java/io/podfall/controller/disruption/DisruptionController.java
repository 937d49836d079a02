package io.podfall.controller.disruption;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetSpec;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;
import io.podfall.controller.Expectations.Kind;
import io.podfall.controller.SyncTimer;
import io.podfall.controller.disruption.DisruptionState.BudgetedPod;
import io.podfall.controller.disruption.DisruptionState.Owner;
import io.podfall.controller.disruption.DisruptionState.Scalable;
import io.podfall.model.Json;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.UpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Part;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.DisruptionBudgets;
import io.podfall.model.k8s.LabelSelectors;
import io.podfall.model.k8s.MetaTimes;
import io.podfall.model.k8s.ResourceType;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The disruption controller of kube-controller-manager ({@code pkg/controller/disruption/disruption.go}): it keeps each
 * PodDisruptionBudget's status telling how many of its pods may be disrupted now, which the Eviction API reads and
 * decrements.
 *
 * <p><b>The cache.</b> It folds every apiserver fact about budgets, pods, ReplicaSets and Deployments into its cache; a
 * fact at or below the last resourceVersion seen in its namespace is a redelivery and changes nothing.
 *
 * <p><b>When it syncs a budget</b>: when the budget is created or changed, when a pod it selects (before or after the
 * change) changes or goes, when one of its writes is answered or its retry is due, and when a disrupted pod's entry
 * expires ({@code recheckQueue}). Upstream enqueues only the first budget that selects a changed pod
 * ({@code getPdbForPod}); here every budget that selects it is synced, in key order, so the choice does not depend on
 * an informer's order. ReplicaSets and Deployments are only read for their scale, as upstream only lists them.
 *
 * <p><b>What a sync computes</b> ({@code trySync}): the pods of the budget's namespace its selector matches (a null
 * selector none, an empty one all); the expected count and the desired healthy count ({@code getExpectedPodCount}):
 * with maxUnavailable, or a percentage minAvailable, the sum of the scales of the pods' controllers
 * ({@code getExpectedScale}: a ReplicaSet's replicas, or its Deployment's if a Deployment controls it; a pod without a
 * controller is unmanaged and counts for nothing) with the percentage rounded up; with an integer minAvailable, the
 * number of pods. The disrupted pods ({@code buildDisruptedPodMap}): the status's entries for pods that still exist and
 * are not being deleted, dropped {@value #DELETION_TIMEOUT_MINUTES} minutes after the eviction
 * ({@code DeletionTimeout}); the soonest expiry sets a timer. The healthy pods ({@code countHealthyPods}): Ready, not
 * being deleted, not disrupted within the timeout. disruptionsAllowed = currentHealthy - desiredHealthy, 0 if negative
 * or if no pod is expected.
 *
 * <p><b>What it writes</b> ({@code updatePdbStatus}): the status with those counts, observedGeneration the budget's
 * generation and the DisruptionAllowed condition (SufficientPods / InsufficientPods), only if a count, the disrupted
 * pods, the observed generation or the condition differ from the cached status. A pod that names a controller the cache
 * does not know fails the sync ({@code failSafe}): disruptionsAllowed 0 and the condition False with reason SyncFailed.
 * The write is an {@code apiserver.UpdateRequested} of {@code /status} carrying the cached resourceVersion, as
 * upstream's {@code UpdateStatus}: the Eviction API's decrement in between makes it a 409 Conflict, after which the
 * budget is synced again from the cache (which by then holds the decrement) once the backoff of the work queue ends.
 * One write per budget is in flight at a time; its answer syncs the budget again.
 *
 * <p>Not mirrored: the Events upstream records (NoPods, UnmanagedPods, CalculateExpectedPodCountFailed), the stale
 * DisruptionTarget condition cleanup of pods ({@code stalePodDisruptionQueue}), and controllers other than ReplicaSets
 * and Deployments (podfall serves no StatefulSets or ReplicationControllers).
 *
 * <p>Timer keys: {@code disruption/recheck/<ns>/<name>}, {@code disruption/retry/<ns>/<name>},
 * {@code disruption/expectations/<ns>/<name>}.
 */
public final class DisruptionController implements Part<DisruptionState> {
    /** The event source of every request. */
    public static final String SOURCE = "/controller/disruption";

    static final int DELETION_TIMEOUT_MINUTES = 2;
    /** {@code DeletionTimeout}: how long a disrupted pod is not counted healthy while its deletion is awaited. */
    static final Duration DELETION_TIMEOUT = Duration.ofMinutes(DELETION_TIMEOUT_MINUTES);
    /** The recheck fires just past the expiry: an entry expires when its deadline is strictly before now. */
    private static final Duration AFTER = Duration.ofMillis(1);

    private static final Set<String> RESOURCES = Set.of(
            ResourceType.PODDISRUPTIONBUDGETS.plural(),
            ResourceType.PODS.plural(),
            ResourceType.REPLICASETS.plural(),
            ResourceType.DEPLOYMENTS.plural());

    @Override
    public DisruptionState newState() {
        return new DisruptionState();
    }

    @Override
    public void handle(DisruptionState state, Event event, Effects.Builder effects) {
        if (event.is(EventTypes.REQUEST_REJECTED)) {
            // A conflict (or any refusal) of a status write: synced again from the cache when the backoff ends.
            state.requests().rejected(event, effects);
            return;
        }
        Optional<ObjectChange> news = state.requests().news(event, RESOURCES);
        if (news.isEmpty()) {
            return;
        }
        Set<String> toSync = new LinkedHashSet<>();
        state.requests().answered(event).ifPresent(answered -> toSync.add(answered.owner()));
        boolean removed = event.is(EventTypes.OBJECT_REMOVED);
        JsonNode object = news.get().object();
        JsonNode meta = object.path("metadata");
        String namespace = meta.path("namespace").asText("");
        String name = meta.path("name").asText();
        switch (news.get().resourceType()) {
            case PODDISRUPTIONBUDGETS -> {
                String key = namespace + "/" + name;
                if (removed) {
                    state.removePdb(key);
                } else {
                    state.putPdb(key, news.get().object(PodDisruptionBudget.class));
                    toSync.add(key);
                }
            }
            case PODS -> {
                BudgetedPod before = state.pod(namespace, name).orElse(null);
                BudgetedPod after = removed ? null : BudgetedPod.of(object);
                if (removed) {
                    state.removePod(namespace, name);
                } else {
                    state.putPod(namespace, after);
                }
                for (PodDisruptionBudget pdb : state.pdbsIn(namespace)) {
                    if (selects(pdb, before) || selects(pdb, after)) {
                        toSync.add(key(pdb));
                    }
                }
            }
            default -> workloadChanged(state, news.get().resourceType(), object, removed);
        }
        if (!event.is(EventTypes.OBJECT_LISTED)) { // listed at a slice's start: cached, synced at its next change
            toSync.forEach(key -> sync(state, key, effects));
        }
    }

    /** A recheck, a retry after a backoff, or a write in flight timed out: sync the budget. */
    @Override
    public void fire(DisruptionState state, Timer timer, Effects.Builder effects) {
        state.requests().fired(timer, effects).ifPresent(key -> sync(state, key, effects));
    }

    private static void workloadChanged(DisruptionState state, ResourceType type, JsonNode object, boolean removed) {
        JsonNode meta = object.path("metadata");
        String uid = meta.path("uid").asText();
        if (removed) {
            state.removeWorkload(uid);
        } else {
            state.putWorkload(
                    uid,
                    new Scalable(
                            type.kind(),
                            meta.path("name").asText(),
                            object.path("spec").path("replicas").asInt(1),
                            Owner.controllerOf(meta)));
        }
    }

    // --- sync and trySync ---

    private static void sync(DisruptionState state, String key, Effects.Builder effects) {
        Optional<PodDisruptionBudget> cached = state.pdb(key);
        if (cached.isEmpty()
                || state.requests().backingOff(key, effects.now())
                || !state.requests().expectations().satisfied(key)) {
            return;
        }
        PodDisruptionBudget pdb = cached.get();
        PodDisruptionBudgetStatus current = pdb.getStatus() == null ? new PodDisruptionBudgetStatus() : pdb.getStatus();
        Instant now = effects.now();
        List<BudgetedPod> pods = state.podsIn(pdb.getMetadata().getNamespace()).stream()
                .filter(p -> selects(pdb, p))
                .toList();
        Optional<PodDisruptionBudgetStatus> next;
        try {
            int[] counts = expectedPodCount(state, pdb, pods);
            Map<String, String> disrupted = disruptedPodMap(pods, current, now);
            earliestExpiry(disrupted)
                    .ifPresent(at ->
                            effects.timer(state.requests().timer(SyncTimer.Purpose.RECHECK, key), at.plus(AFTER)));
            next = updatedStatus(pdb, countHealthyPods(pods, disrupted, now), counts[1], counts[0], disrupted, now);
        } catch (NoControllerException e) {
            next = failSafe(current, e.getMessage(), now);
        }
        next.ifPresent(status -> write(state, key, pdb, status, effects));
    }

    /** A pod names a controller the cache cannot scale: {@code getExpectedScale}'s error. */
    static final class NoControllerException extends RuntimeException {
        NoControllerException(String pod) {
            super("found no controllers for pod \"" + pod + "\"", null, false, false);
        }
    }

    /** {@code getExpectedPodCount}: {expectedCount, desiredHealthy}. */
    static int[] expectedPodCount(DisruptionState state, PodDisruptionBudget pdb, List<BudgetedPod> pods) {
        PodDisruptionBudgetSpec spec = pdb.getSpec() == null ? new PodDisruptionBudgetSpec() : pdb.getSpec();
        if (spec.getMaxUnavailable() != null) {
            int expected = expectedScale(state, pods);
            int maxUnavailable = scaledValue(spec.getMaxUnavailable(), expected);
            return new int[] {expected, Math.max(0, expected - maxUnavailable)};
        }
        if (spec.getMinAvailable() != null) {
            if (spec.getMinAvailable().getStrVal() == null) {
                return new int[] {
                    pods.size(),
                    Objects.requireNonNullElse(spec.getMinAvailable().getIntVal(), 0)
                };
            }
            int expected = expectedScale(state, pods);
            return new int[] {expected, scaledValue(spec.getMinAvailable(), expected)};
        }
        return new int[] {0, 0};
    }

    /**
     * {@code getExpectedScale}: the sum of the scales of the pods' controllers, each counted once. A pod without a
     * controller counts for nothing; one whose controller is not a known ReplicaSet fails the sync.
     */
    private static int expectedScale(DisruptionState state, List<BudgetedPod> pods) {
        Map<String, Integer> controllerScale = new LinkedHashMap<>();
        for (BudgetedPod pod : pods) {
            Owner ref = pod.controller();
            if (ref == null) {
                continue;
            }
            Scalable rs = state.workload(ref.uid())
                    .filter(w -> w.kind().equals(ref.kind()) && w.kind().equals(ResourceType.REPLICASETS.kind()))
                    .orElseThrow(() -> new NoControllerException(pod.name()));
            Owner owner = rs.controller();
            // getPodDeployment first: a ReplicaSet a Deployment controls scales as the Deployment does.
            Optional<Scalable> deployment = owner == null
                    ? Optional.empty()
                    : state.workload(owner.uid())
                            .filter(d -> d.kind().equals(ResourceType.DEPLOYMENTS.kind())
                                    && d.kind().equals(owner.kind()));
            if (deployment.isPresent()) {
                controllerScale.putIfAbsent(owner.uid(), deployment.get().replicas());
            } else {
                controllerScale.putIfAbsent(ref.uid(), rs.replicas());
            }
        }
        return controllerScale.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** {@code intstr.GetScaledValueFromIntOrPercent} with roundUp: a percentage of {@code total}, rounded up. */
    static int scaledValue(IntOrString value, int total) {
        if (value.getStrVal() == null) {
            return Objects.requireNonNullElse(value.getIntVal(), 0);
        }
        String percent = value.getStrVal();
        long p = Long.parseLong(percent.substring(0, percent.length() - 1));
        return (int) Math.ceil(p * total / 100.0);
    }

    /**
     * {@code buildDisruptedPodMap}: the status's entries of pods that exist and are not being deleted, unless their
     * {@link #DELETION_TIMEOUT} has passed.
     */
    static Map<String, String> disruptedPodMap(List<BudgetedPod> pods, PodDisruptionBudgetStatus status, Instant now) {
        Map<String, String> result = new TreeMap<>();
        Map<String, String> disrupted = status.getDisruptedPods();
        if (disrupted == null) {
            return result;
        }
        for (BudgetedPod pod : pods) {
            String since = disrupted.get(pod.name());
            if (pod.terminating() || since == null) {
                continue;
            }
            if (!MetaTimes.parse(since).plus(DELETION_TIMEOUT).isBefore(now)) {
                result.put(pod.name(), since);
            }
        }
        return result;
    }

    private static Optional<Instant> earliestExpiry(Map<String, String> disrupted) {
        return disrupted.values().stream()
                .map(since -> MetaTimes.parse(since).plus(DELETION_TIMEOUT))
                .min(Instant::compareTo);
    }

    /** {@code countHealthyPods}: Ready, not being deleted, not disrupted within the timeout. */
    static int countHealthyPods(List<BudgetedPod> pods, Map<String, String> disrupted, Instant now) {
        int healthy = 0;
        for (BudgetedPod pod : pods) {
            String since = disrupted.get(pod.name());
            if (pod.terminating()
                    || (since != null
                            && MetaTimes.parse(since).plus(DELETION_TIMEOUT).isAfter(now))) {
                continue;
            }
            if (pod.ready()) {
                healthy++;
            }
        }
        return healthy;
    }

    /** {@code updatePdbStatus}: the status to write, or none if the cached one already says it. */
    static Optional<PodDisruptionBudgetStatus> updatedStatus(
            PodDisruptionBudget pdb,
            int currentHealthy,
            int desiredHealthy,
            int expectedCount,
            Map<String, String> disrupted,
            Instant now) {
        // expectedCount > 0 keeps a budget whose first pods appear before this sync safe.
        int allowed = expectedCount <= 0 || currentHealthy - desiredHealthy <= 0 ? 0 : currentHealthy - desiredHealthy;
        PodDisruptionBudgetStatus current = pdb.getStatus() == null ? new PodDisruptionBudgetStatus() : pdb.getStatus();
        long generation = Objects.requireNonNullElse(pdb.getMetadata().getGeneration(), 0L);
        Map<String, String> cachedDisrupted =
                current.getDisruptedPods() == null ? Map.of() : current.getDisruptedPods();
        if (count(current.getCurrentHealthy()) == currentHealthy
                && count(current.getDesiredHealthy()) == desiredHealthy
                && count(current.getExpectedPods()) == expectedCount
                && count(current.getDisruptionsAllowed()) == allowed
                && cachedDisrupted.equals(disrupted)
                && Objects.requireNonNullElse(current.getObservedGeneration(), 0L) == generation
                && DisruptionBudgets.conditionsAreUpToDate(pdb)) {
            return Optional.empty();
        }
        PodDisruptionBudgetStatus next = new PodDisruptionBudgetStatus();
        next.setCurrentHealthy(currentHealthy);
        next.setDesiredHealthy(desiredHealthy);
        next.setExpectedPods(expectedCount);
        next.setDisruptionsAllowed(allowed);
        next.setDisruptedPods(disrupted.isEmpty() ? null : disrupted);
        next.setObservedGeneration(generation);
        next.setConditions(current.getConditions());
        DisruptionBudgets.updateDisruptionAllowedCondition(next, now);
        return Optional.of(next);
    }

    /** {@code failSafe}: no disruption allowed, the condition False with SyncFailed and why; none if already so. */
    static Optional<PodDisruptionBudgetStatus> failSafe(PodDisruptionBudgetStatus current, String why, Instant now) {
        PodDisruptionBudgetStatus next = Json.convert(Json.tree(current), PodDisruptionBudgetStatus.class);
        next.setDisruptionsAllowed(0);
        DisruptionBudgets.setStatusCondition(next, "False", DisruptionBudgets.SYNC_FAILED, why, now);
        return Json.tree(next).equals(Json.tree(current)) ? Optional.empty() : Optional.of(next);
    }

    /** {@code writePdbStatus}: an update of {@code /status} with the cached resourceVersion as its precondition. */
    private static void write(
            DisruptionState state,
            String key,
            PodDisruptionBudget pdb,
            PodDisruptionBudgetStatus status,
            Effects.Builder effects) {
        ObjectNode object = (ObjectNode) Json.tree(pdb);
        object.set("status", Json.tree(status));
        String namespace = pdb.getMetadata().getNamespace();
        String name = pdb.getMetadata().getName();
        effects.emit(
                SOURCE,
                EventTypes.UPDATE_REQUESTED,
                Subjects.of(namespace, ResourceType.PODDISRUPTIONBUDGETS.plural(), name),
                new UpdateRequest(ResourceType.PODDISRUPTIONBUDGETS.plural(), namespace, name, "status", object));
        state.requests().expect(key, Kind.WRITE, null, effects);
    }

    /**
     * {@code getPodsForPdb}'s selector ({@code LabelSelectorAsSelector}): a null one selects nothing, an empty one
     * every pod of the namespace.
     */
    private static boolean selects(PodDisruptionBudget pdb, BudgetedPod pod) {
        if (pod == null || pdb.getSpec() == null || pdb.getSpec().getSelector() == null) {
            return false;
        }
        return LabelSelectors.matches(Json.tree(pdb.getSpec().getSelector()), Json.tree(pod.labels()));
    }

    private static String key(PodDisruptionBudget pdb) {
        return pdb.getMetadata().getNamespace() + "/" + pdb.getMetadata().getName();
    }

    private static int count(Integer value) {
        return value == null ? 0 : value;
    }
}
