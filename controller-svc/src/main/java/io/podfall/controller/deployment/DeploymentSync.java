package io.podfall.controller.deployment;

import static io.podfall.controller.deployment.DeploymentUtil.AVAILABLE;
import static io.podfall.controller.deployment.DeploymentUtil.DESIRED_REPLICAS;
import static io.podfall.controller.deployment.DeploymentUtil.MAX_REPLICAS;
import static io.podfall.controller.deployment.DeploymentUtil.POD_TEMPLATE_HASH;
import static io.podfall.controller.deployment.DeploymentUtil.PROGRESSING;
import static io.podfall.controller.deployment.DeploymentUtil.REVISION;
import static io.podfall.controller.deployment.DeploymentUtil.condition;
import static io.podfall.controller.deployment.DeploymentUtil.getCondition;
import static io.podfall.controller.deployment.DeploymentUtil.hasProgressDeadline;
import static io.podfall.controller.deployment.DeploymentUtil.intAnnotation;
import static io.podfall.controller.deployment.DeploymentUtil.maxSurge;
import static io.podfall.controller.deployment.DeploymentUtil.maxUnavailable;
import static io.podfall.controller.deployment.DeploymentUtil.replicaCount;
import static io.podfall.controller.deployment.DeploymentUtil.replicas;
import static io.podfall.controller.deployment.DeploymentUtil.setCondition;
import static io.podfall.controller.deployment.DeploymentUtil.value;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.podfall.controller.ControllerRefs;
import io.podfall.model.Json;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One sync of one Deployment ({@code syncDeployment} of {@code pkg/controller/deployment/deployment_controller.go},
 * with {@code sync.go}, {@code rolling.go}, {@code recreate.go} and {@code progress.go}). From the Deployment and the
 * ReplicaSets it controls, as cached, it decides which ReplicaSet to create, which to scale or re-annotate, and the
 * Deployment's status and revision annotation. It sends nothing: the {@link DeploymentController} turns its decisions
 * into requests.
 *
 * <p>The paths, as upstream:
 *
 * <ul>
 *   <li>Being deleted: only the status is computed ({@code syncStatusOnly}).
 *   <li>Paused, or a scaling event (some active ReplicaSet's desired-replicas annotation is not the Deployment's
 *       replicas): {@code sync}, which only scales: the one active ReplicaSet to the replicas, or all of them in
 *       proportion during a rollout ({@code scale}).
 *   <li>RollingUpdate ({@code rolloutRolling}): the new ReplicaSet (the one whose template is the Deployment's, created
 *       if missing) grows while all together stay within replicas + maxSurge; old ones shrink, unhealthy replicas
 *       first, while at least replicas - maxUnavailable stay available.
 *   <li>Recreate ({@code rolloutRecreate}): old ReplicaSets are scaled to 0; only when none of their pods runs any more
 *       (terminating pods still run) is the new one created, at full size.
 * </ul>
 *
 * Not simulated: rollback through the deprecated rollbackTo, the cleanup of old ReplicaSets past revisionHistoryLimit,
 * the ProgressDeadlineExceeded condition and the paused conditions.
 */
final class DeploymentSync {
    static final String NEW_RS_CREATED = "NewReplicaSetCreated";
    static final String FOUND_NEW_RS = "FoundNewReplicaSet";
    static final String RS_UPDATED = "ReplicaSetUpdated";
    static final String NEW_RS_AVAILABLE = "NewReplicaSetAvailable";

    private final Deployment d;
    /** The ReplicaSets the Deployment controls, then any this sync creates. */
    private final List<ReplicaSetView> replicaSets = new ArrayList<>();
    /** Any cached ReplicaSet of the namespace, by name: a new one's name may already be taken. */
    private final Function<String, Optional<ReplicaSet>> replicaSetNamed;
    /** Whether pods of the ReplicaSet of this uid still run (are not Succeeded or Failed). */
    private final Predicate<String> podsRunning;

    private final Instant now;
    /** The status as this sync leaves it: upstream changes {@code d.Status} in place. */
    private DeploymentStatus status;
    /** The revision annotation as this sync leaves it. */
    private String revision;

    DeploymentSync(
            Deployment d,
            List<ReplicaSet> controlled,
            Function<String, Optional<ReplicaSet>> replicaSetNamed,
            Predicate<String> podsRunning,
            Instant now) {
        this.d = d;
        controlled.forEach(rs -> replicaSets.add(ReplicaSetView.of(rs)));
        this.replicaSetNamed = replicaSetNamed;
        this.podsRunning = podsRunning;
        this.now = now;
        this.status = copy(d.getStatus() == null ? new DeploymentStatus() : d.getStatus());
        this.revision = d.getMetadata().getAnnotations() == null
                ? null
                : d.getMetadata().getAnnotations().get(REVISION);
    }

    DeploymentSync run() {
        if (d.getMetadata().getDeletionTimestamp() != null) {
            syncDeploymentStatus(findNewReplicaSet());
        } else if (Boolean.TRUE.equals(d.getSpec().getPaused()) || isScalingEvent()) {
            ReplicaSetView newRS = getNewReplicaSet(false);
            scale(newRS, oldReplicaSets(newRS));
            syncDeploymentStatus(newRS);
        } else if (DeploymentUtil.isRollingUpdate(d)) {
            rolloutRolling();
        } else {
            rolloutRecreate();
        }
        return this;
    }

    /** The ReplicaSets to create, in the order decided. */
    List<ReplicaSetView> toCreate() {
        return replicaSets.stream().filter(v -> v.toCreate).toList();
    }

    /** The stored ReplicaSets this sync changed, in the Deployment's order. */
    List<ReplicaSetView> toUpdate() {
        return replicaSets.stream().filter(v -> !v.toCreate && v.isChanged()).toList();
    }

    DeploymentStatus status() {
        return status;
    }

    String revision() {
        return revision;
    }

    // --- rolling.go ---

    private void rolloutRolling() {
        ReplicaSetView newRS = getNewReplicaSet(true);
        if (newRS == null) {
            return;
        }
        List<ReplicaSetView> all = all(newRS);
        if (!reconcileNewReplicaSet(all, newRS)) {
            reconcileOldReplicaSets(all, active(oldReplicaSets(newRS)), newRS);
        }
        syncRolloutStatus(all(newRS), newRS);
    }

    private boolean reconcileNewReplicaSet(List<ReplicaSetView> all, ReplicaSetView newRS) {
        if (newRS.replicas() == replicas(d)) {
            return false;
        }
        if (newRS.replicas() > replicas(d)) {
            return scaleReplicaSetAndRecordEvent(newRS, replicas(d));
        }
        return scaleReplicaSetAndRecordEvent(newRS, DeploymentUtil.newRSNewReplicas(d, all, newRS));
    }

    /**
     * Scales old ReplicaSets down as far as availability allows: what all ReplicaSets have, less the minimum available,
     * less what the new ReplicaSet has not made available yet.
     */
    private void reconcileOldReplicaSets(List<ReplicaSetView> all, List<ReplicaSetView> oldRSs, ReplicaSetView newRS) {
        if (replicaCount(oldRSs) == 0) {
            return;
        }
        int minAvailable = replicas(d) - maxUnavailable(d);
        int newRSUnavailable = newRS.replicas() - newRS.availableReplicas();
        int maxScaledDown = replicaCount(all) - minAvailable - newRSUnavailable;
        if (maxScaledDown <= 0) {
            return;
        }
        cleanupUnhealthyReplicas(oldRSs, maxScaledDown);
        scaleDownOldReplicaSetsForRollingUpdate(all, oldRSs);
    }

    /** Old ReplicaSets lose their unavailable replicas first: removing them costs no availability. */
    private void cleanupUnhealthyReplicas(List<ReplicaSetView> oldRSs, int maxCleanup) {
        int cleaned = 0;
        for (ReplicaSetView rs :
                oldRSs.stream().sorted(ReplicaSetView.BY_CREATION).toList()) {
            if (cleaned >= maxCleanup) {
                break;
            }
            if (rs.replicas() == 0 || rs.replicas() == rs.availableReplicas()) {
                continue;
            }
            int scaledDown = Math.min(maxCleanup - cleaned, rs.replicas() - rs.availableReplicas());
            scaleReplicaSetAndRecordEvent(rs, rs.replicas() - scaledDown);
            cleaned += scaledDown;
        }
    }

    /** Then available replicas of old ReplicaSets, oldest first, down to replicas - maxUnavailable available. */
    private void scaleDownOldReplicaSetsForRollingUpdate(List<ReplicaSetView> all, List<ReplicaSetView> oldRSs) {
        int minAvailable = replicas(d) - maxUnavailable(d);
        int available = all.stream().mapToInt(ReplicaSetView::availableReplicas).sum();
        if (available <= minAvailable) {
            return;
        }
        int toScaleDown = available - minAvailable;
        int scaledDown = 0;
        for (ReplicaSetView rs :
                oldRSs.stream().sorted(ReplicaSetView.BY_CREATION).toList()) {
            if (scaledDown >= toScaleDown) {
                break;
            }
            if (rs.replicas() == 0) {
                continue;
            }
            int count = Math.min(rs.replicas(), toScaleDown - scaledDown);
            scaleReplicaSetAndRecordEvent(rs, rs.replicas() - count);
            scaledDown += count;
        }
    }

    // --- recreate.go ---

    private void rolloutRecreate() {
        ReplicaSetView newRS = getNewReplicaSet(false);
        boolean scaledDown = false;
        for (ReplicaSetView old : active(oldReplicaSets(newRS))) {
            scaledDown |= scaleReplicaSetAndRecordEvent(old, 0);
        }
        if (!scaledDown && !oldPodsRunning(newRS)) {
            newRS = newRS == null ? getNewReplicaSet(true) : newRS;
            if (newRS == null) {
                return;
            }
            scaleReplicaSetAndRecordEvent(newRS, replicas(d));
        }
        syncRolloutStatus(all(newRS), newRS);
    }

    /**
     * {@code oldPodsRunning}: old ReplicaSets still report pods, or a pod of theirs has not finished (terminating
     * counts).
     */
    private boolean oldPodsRunning(ReplicaSetView newRS) {
        List<ReplicaSetView> old = oldReplicaSets(newRS);
        return old.stream().mapToInt(ReplicaSetView::actualReplicas).sum() > 0
                || old.stream()
                        .anyMatch(rs -> podsRunning.test(rs.rs.getMetadata().getUid()));
    }

    // --- sync.go ---

    /** {@code isScalingEvent}: an active ReplicaSet was sized for other replicas than the Deployment's now. */
    private boolean isScalingEvent() {
        ReplicaSetView newRS = getNewReplicaSet(false);
        return active(all(newRS)).stream()
                .anyMatch(rs -> intAnnotation(rs, DESIRED_REPLICAS)
                        .map(desired -> desired != replicas(d))
                        .orElse(false));
    }

    /**
     * {@code getNewReplicaSet}: the ReplicaSet whose template is the Deployment's, its annotations brought up to date
     * (revision = the highest of the others + 1), and the Deployment's revision set to its; if there is none and
     * {@code create}, a new one named {@code <deployment>-<hash>}, whose name, if taken, is a hash collision counted in
     * the status (the next sync tries the next hash). Null if none.
     */
    private ReplicaSetView getNewReplicaSet(boolean create) {
        ReplicaSetView existing = findNewReplicaSet();
        String newRevision = Long.toString(DeploymentUtil.maxRevision(oldReplicaSets(existing)) + 1);
        if (existing != null) {
            boolean changed = DeploymentUtil.setNewReplicaSetAnnotations(d, existing, newRevision, true);
            if (!Objects.equals(
                    existing.rs.getSpec().getMinReadySeconds(), d.getSpec().getMinReadySeconds())) {
                existing.rs.getSpec().setMinReadySeconds(d.getSpec().getMinReadySeconds());
                changed = true;
            }
            if (changed) {
                existing.changed();
            }
            revision = existing.annotations().get(REVISION);
            if (hasProgressDeadline(d) && getCondition(status, PROGRESSING).isEmpty()) {
                setCondition(
                        status,
                        condition(
                                PROGRESSING,
                                "True",
                                FOUND_NEW_RS,
                                "Found new replica set " + quote(existing.name()),
                                now));
            }
            return existing;
        }
        if (!create) {
            return null;
        }
        PodTemplateSpec template = Json.convert(Json.tree(d.getSpec().getTemplate()), PodTemplateSpec.class);
        String hash = DeploymentUtil.computeHash(template, status.getCollisionCount());
        String name = d.getMetadata().getName() + "-" + hash;
        if (replicaSetNamed.apply(name).isPresent()) {
            status.setCollisionCount(Objects.requireNonNullElse(status.getCollisionCount(), 0) + 1);
            return null;
        }
        if (template.getMetadata() == null) {
            template.setMetadata(new ObjectMeta());
        }
        Map<String, String> labels = new LinkedHashMap<>(
                Objects.requireNonNullElse(template.getMetadata().getLabels(), Map.of()));
        labels.put(POD_TEMPLATE_HASH, hash);
        template.getMetadata().setLabels(labels);
        LabelSelector selector = Json.convert(Json.tree(d.getSpec().getSelector()), LabelSelector.class);
        Map<String, String> matchLabels =
                new LinkedHashMap<>(Objects.requireNonNullElse(selector.getMatchLabels(), Map.of()));
        matchLabels.put(POD_TEMPLATE_HASH, hash);
        selector.setMatchLabels(matchLabels);
        ReplicaSet rs = new ReplicaSetBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(d.getMetadata().getNamespace())
                .withOwnerReferences(ControllerRefs.newControllerRef(d, ResourceType.DEPLOYMENTS))
                .withLabels(new LinkedHashMap<>(labels))
                .endMetadata()
                .withNewSpec()
                .withReplicas(0)
                .withMinReadySeconds(d.getSpec().getMinReadySeconds())
                .withSelector(selector)
                .withTemplate(template)
                .endSpec()
                .build();
        ReplicaSetView created = ReplicaSetView.toCreate(rs, now);
        List<ReplicaSetView> all = new ArrayList<>(replicaSets);
        all.add(created);
        created.setReplicas(DeploymentUtil.newRSNewReplicas(d, all, created));
        DeploymentUtil.setNewReplicaSetAnnotations(d, created, newRevision, false);
        replicaSets.add(created);
        revision = newRevision;
        if (hasProgressDeadline(d)) {
            setCondition(
                    status,
                    condition(PROGRESSING, "True", NEW_RS_CREATED, "Created new replica set " + quote(name), now));
        }
        return created;
    }

    /** {@code FindNewReplicaSet}: the oldest ReplicaSet whose template is the Deployment's. */
    private ReplicaSetView findNewReplicaSet() {
        return replicaSets.stream()
                .sorted(ReplicaSetView.BY_CREATION)
                .filter(v -> DeploymentUtil.equalIgnoreHash(
                        v.rs.getSpec().getTemplate(), d.getSpec().getTemplate()))
                .findFirst()
                .orElse(null);
    }

    /**
     * {@code scale}: one active ReplicaSet (or none: the newest) takes all replicas; a saturated new one leaves old
     * ones none; otherwise, during a rolling update, what the replicas (plus surge) changed by is shared among the
     * active ReplicaSets in proportion to their size, the largest taking what rounding leaves over.
     */
    private void scale(ReplicaSetView newRS, List<ReplicaSetView> oldRSs) {
        ReplicaSetView activeOrLatest = findActiveOrLatest(newRS, oldRSs);
        if (activeOrLatest != null) {
            scaleReplicaSetAndRecordEvent(activeOrLatest, replicas(d));
            return;
        }
        if (DeploymentUtil.isSaturated(d, newRS)) {
            active(oldRSs).forEach(old -> scaleReplicaSetAndRecordEvent(old, 0));
            return;
        }
        if (!DeploymentUtil.isRollingUpdate(d)) {
            return;
        }
        List<ReplicaSetView> all = active(all(newRS));
        int allowedSize = replicas(d) > 0 ? replicas(d) + maxSurge(d) : 0;
        int toAdd = allowedSize - replicaCount(all);
        Comparator<ReplicaSetView> bySize =
                Comparator.comparingInt(ReplicaSetView::replicas).reversed();
        if (toAdd > 0) {
            all = all.stream()
                    .sorted(bySize.thenComparing(ReplicaSetView.BY_CREATION.reversed()))
                    .toList();
        } else if (toAdd < 0) {
            all = all.stream()
                    .sorted(bySize.thenComparing(ReplicaSetView.BY_CREATION))
                    .toList();
        }
        int added = 0;
        int[] sizes = new int[all.size()];
        for (int i = 0; i < all.size(); i++) {
            int proportion = proportion(all.get(i), toAdd, added);
            sizes[i] = all.get(i).replicas() + proportion;
            added += proportion;
        }
        if (!all.isEmpty() && toAdd != 0) {
            sizes[0] = Math.max(0, sizes[0] + toAdd - added);
        }
        for (int i = 0; i < all.size(); i++) {
            scaleReplicaSet(all.get(i), sizes[i]);
        }
    }

    /** {@code FindActiveOrLatest}: the only active ReplicaSet, or the newest if none is active; null if several are. */
    private static ReplicaSetView findActiveOrLatest(ReplicaSetView newRS, List<ReplicaSetView> oldRSs) {
        if (newRS == null && oldRSs.isEmpty()) {
            return null;
        }
        List<ReplicaSetView> newestFirst =
                oldRSs.stream().sorted(ReplicaSetView.BY_CREATION.reversed()).toList();
        List<ReplicaSetView> candidates = new ArrayList<>(newestFirst);
        if (newRS != null) {
            candidates.add(newRS);
        }
        List<ReplicaSetView> active = active(candidates);
        if (active.isEmpty()) {
            return newRS != null ? newRS : newestFirst.get(0);
        }
        return active.size() == 1 ? active.get(0) : null;
    }

    /** {@code GetProportion}: the ReplicaSet's share of {@code toAdd}, within what is left of it. */
    private int proportion(ReplicaSetView rs, int toAdd, int added) {
        if (rs.replicas() == 0 || toAdd == 0 || toAdd == added) {
            return 0;
        }
        int fraction = fraction(rs);
        int allowed = toAdd - added;
        return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
    }

    /**
     * {@code getReplicaSetFraction}: the ReplicaSet's size scaled by the Deployment's new replicas + surge over the
     * ones it was sized for (its max-replicas annotation, else the status replicas), rounded, less its size.
     */
    private int fraction(ReplicaSetView rs) {
        if (replicas(d) == 0) {
            return -rs.replicas();
        }
        int deploymentMaxReplicas = replicas(d) + maxSurge(d);
        int before = intAnnotation(rs, MAX_REPLICAS)
                .filter(max -> max != 0)
                .orElse(value(d.getStatus() == null ? null : d.getStatus().getReplicas()));
        if (before == 0) {
            return 0;
        }
        return (int) Math.round((double) rs.replicas() * deploymentMaxReplicas / before) - rs.replicas();
    }

    /** {@code scaleReplicaSetAndRecordEvent}: a scale only if the size changes; whether it did. */
    private boolean scaleReplicaSetAndRecordEvent(ReplicaSetView rs, int replicas) {
        return rs.replicas() != replicas && scaleReplicaSet(rs, replicas);
    }

    /** {@code scaleReplicaSet}: the size and the replicas annotations brought up to date; whether the size changed. */
    private boolean scaleReplicaSet(ReplicaSetView rs, int replicas) {
        boolean resized = rs.replicas() != replicas;
        if (DeploymentUtil.setReplicasAnnotations(rs, replicas(d), replicas(d) + maxSurge(d)) || resized) {
            rs.setReplicas(replicas);
        }
        return resized;
    }

    // --- status: sync.go calculateStatus, syncDeploymentStatus; progress.go syncRolloutStatus ---

    private void syncDeploymentStatus(ReplicaSetView newRS) {
        status = calculateStatus(all(newRS), newRS);
    }

    /** {@code calculateStatus}: the counts of all ReplicaSets, the generation observed, and the Available condition. */
    private DeploymentStatus calculateStatus(List<ReplicaSetView> all, ReplicaSetView newRS) {
        DeploymentStatus next = copy(status);
        int available = all.stream().mapToInt(ReplicaSetView::availableReplicas).sum();
        next.setObservedGeneration(d.getMetadata().getGeneration());
        next.setReplicas(all.stream().mapToInt(ReplicaSetView::actualReplicas).sum());
        next.setUpdatedReplicas(newRS == null ? 0 : newRS.actualReplicas());
        next.setReadyReplicas(
                all.stream().mapToInt(ReplicaSetView::readyReplicas).sum());
        next.setAvailableReplicas(available);
        next.setUnavailableReplicas(Math.max(0, replicaCount(all) - available));
        if (available >= replicas(d) - maxUnavailable(d)) {
            setCondition(
                    next,
                    condition(
                            AVAILABLE,
                            "True",
                            "MinimumReplicasAvailable",
                            "Deployment has minimum availability.",
                            now));
        } else {
            setCondition(
                    next,
                    condition(
                            AVAILABLE,
                            "False",
                            "MinimumReplicasUnavailable",
                            "Deployment does not have minimum availability.",
                            now));
        }
        return next;
    }

    /**
     * {@code syncRolloutStatus}: the status, and Progressing True with NewReplicaSetAvailable once the rollout is
     * complete, or with ReplicaSetUpdated (a new lastUpdateTime) whenever it made progress since the last status.
     */
    private void syncRolloutStatus(List<ReplicaSetView> all, ReplicaSetView newRS) {
        DeploymentStatus next = calculateStatus(all, newRS);
        if (!hasProgressDeadline(d)) {
            DeploymentUtil.removeCondition(next, PROGRESSING);
        }
        Optional<DeploymentCondition> current = getCondition(status, PROGRESSING);
        boolean complete = value(next.getReplicas()) == value(next.getUpdatedReplicas())
                && current.map(c -> NEW_RS_AVAILABLE.equals(c.getReason())).orElse(false);
        if (hasProgressDeadline(d) && !complete) {
            String what = newRS == null
                    ? "Deployment " + quote(d.getMetadata().getName())
                    : "ReplicaSet " + quote(newRS.name());
            if (DeploymentUtil.deploymentComplete(d, next)) {
                setCondition(
                        next,
                        condition(PROGRESSING, "True", NEW_RS_AVAILABLE, what + " has successfully progressed.", now));
            } else if (DeploymentUtil.deploymentProgressing(status, next)) {
                DeploymentCondition progressing =
                        condition(PROGRESSING, "True", RS_UPDATED, what + " is progressing.", now);
                current.ifPresent(c -> {
                    if ("True".equals(c.getStatus())) {
                        progressing.setLastTransitionTime(c.getLastTransitionTime());
                    }
                    DeploymentUtil.removeCondition(next, PROGRESSING);
                });
                setCondition(next, progressing);
            }
        }
        status = next;
    }

    // --- lists ---

    private List<ReplicaSetView> oldReplicaSets(ReplicaSetView newRS) {
        return replicaSets.stream().filter(v -> v != newRS).toList();
    }

    /** The old ReplicaSets, then the new one if any (upstream's {@code append(oldRSs, newRS)}). */
    private List<ReplicaSetView> all(ReplicaSetView newRS) {
        List<ReplicaSetView> all = new ArrayList<>(oldReplicaSets(newRS));
        if (newRS != null) {
            all.add(newRS);
        }
        return all;
    }

    /** {@code FilterActiveReplicaSets}: those with replicas. */
    private static List<ReplicaSetView> active(List<ReplicaSetView> replicaSets) {
        return replicaSets.stream().filter(v -> v.replicas() > 0).toList();
    }

    private static DeploymentStatus copy(DeploymentStatus status) {
        return Json.convert(Json.tree(status), DeploymentStatus.class);
    }

    /** Go's {@code %q} of a name. */
    private static String quote(String name) {
        return "\"" + name + "\"";
    }
}
