package io.podfall.controller.deployment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateDeployment;
import io.podfall.model.Json;
import io.podfall.model.k8s.MetaTimes;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The rules of {@code pkg/controller/deployment/util/deployment_util.go} (and the template hash of
 * {@code pkg/controller/controller_utils.go}) that the Deployment controller's sync is made of.
 */
final class DeploymentUtil {
    static final String REVISION = "deployment.kubernetes.io/revision";
    static final String REVISION_HISTORY = "deployment.kubernetes.io/revision-history";
    static final String DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas";
    static final String MAX_REPLICAS = "deployment.kubernetes.io/max-replicas";
    /** {@code apps.DefaultDeploymentUniqueLabelKey}: on a ReplicaSet's selector, template and labels. */
    static final String POD_TEMPLATE_HASH = "pod-template-hash";

    static final String PROGRESSING = "Progressing";
    static final String AVAILABLE = "Available";
    /** The Deployment's annotations its ReplicaSets do not copy ({@code annotationsToSkip}). */
    private static final Set<String> ANNOTATIONS_TO_SKIP = Set.of(
            "kubectl.kubernetes.io/last-applied-configuration",
            REVISION,
            REVISION_HISTORY,
            DESIRED_REPLICAS,
            MAX_REPLICAS,
            "deprecated.deployment.rollback.to");
    /** {@code maxRevHistoryLengthInChars} of sync.go. */
    private static final int MAX_REVISION_HISTORY_CHARS = 2000;
    /** {@code k8s.io/apimachinery/pkg/util/rand}: the characters of generated names and encoded hashes. */
    private static final String ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

    private static final int FNV32_OFFSET = 0x811c9dc5;
    private static final int FNV32_PRIME = 0x01000193;

    private DeploymentUtil() {}

    static int replicas(Deployment d) {
        return Objects.requireNonNullElse(d.getSpec().getReplicas(), 1);
    }

    static boolean isRollingUpdate(Deployment d) {
        return d.getSpec().getStrategy() == null
                || !"Recreate".equals(d.getSpec().getStrategy().getType());
    }

    /** {@code MaxSurge}: the surge of a rolling update, 0 otherwise. */
    static int maxSurge(Deployment d) {
        return isRollingUpdate(d) ? resolveFenceposts(d)[0] : 0;
    }

    /** {@code MaxUnavailable}: 0 unless rolling with replicas, and never more than the replicas. */
    static int maxUnavailable(Deployment d) {
        if (!isRollingUpdate(d) || replicas(d) == 0) {
            return 0;
        }
        return Math.min(resolveFenceposts(d)[1], replicas(d));
    }

    /**
     * {@code ResolveFenceposts}: surge rounds a percentage up, unavailable rounds it down; if both come to 0,
     * unavailable is 1, so that a rollout can always proceed.
     */
    static int[] resolveFenceposts(Deployment d) {
        RollingUpdateDeployment rolling = d.getSpec().getStrategy() == null
                ? null
                : d.getSpec().getStrategy().getRollingUpdate();
        int desired = replicas(d);
        int surge = scaledValue(rolling == null ? null : rolling.getMaxSurge(), desired, true);
        int unavailable = scaledValue(rolling == null ? null : rolling.getMaxUnavailable(), desired, false);
        return new int[] {surge, surge == 0 && unavailable == 0 ? 1 : unavailable};
    }

    /** {@code intstr.GetScaledValueFromIntOrPercent}: a number as is, a percentage of {@code total}; absent is 0. */
    static int scaledValue(IntOrString value, int total, boolean roundUp) {
        if (value == null) {
            return 0;
        }
        if (value.getIntVal() != null) {
            return value.getIntVal();
        }
        String s = value.getStrVal();
        if (s == null || !s.endsWith("%")) {
            throw new IllegalArgumentException("invalid value for IntOrString: invalid value \"" + s + "\"");
        }
        long percent = Long.parseLong(s.substring(0, s.length() - 1));
        long scaled = percent * total;
        return (int) (roundUp ? -Math.floorDiv(-scaled, 100) : Math.floorDiv(scaled, 100));
    }

    /**
     * {@code controller.ComputeHash}: FNV-32a of the pod template, then of the collision count if there is one (as 8
     * bytes, the low 4 little-endian), written with {@code rand.SafeEncodeString}. Upstream hashes Go's printout of the
     * template; podfall hashes its JSON as fabric8 writes it, with object keys sorted, so the hash is the same in every
     * run and every JVM (but not upstream's number).
     */
    static String computeHash(PodTemplateSpec template, Integer collisionCount) {
        int hash = FNV32_OFFSET;
        for (byte b : Json.string(sorted(Json.tree(template))).getBytes(StandardCharsets.UTF_8)) {
            hash = (hash ^ (b & 0xff)) * FNV32_PRIME;
        }
        if (collisionCount != null) {
            for (int i = 0; i < 8; i++) {
                int b = i < 4 ? (collisionCount >>> (8 * i)) & 0xff : 0;
                hash = (hash ^ b) * FNV32_PRIME;
            }
        }
        StringBuilder encoded = new StringBuilder();
        for (char c : Integer.toUnsignedString(hash).toCharArray()) {
            encoded.append(ALPHANUMS.charAt(c % ALPHANUMS.length()));
        }
        return encoded.toString();
    }

    private static JsonNode sorted(JsonNode node) {
        if (node instanceof ObjectNode object) {
            List<String> names = new ArrayList<>();
            object.fieldNames().forEachRemaining(names::add);
            Collections.sort(names);
            ObjectNode out = Json.MAPPER.createObjectNode();
            names.forEach(name -> out.set(name, sorted(object.get(name))));
            return out;
        }
        if (node instanceof ArrayNode array) {
            ArrayNode out = Json.MAPPER.createArrayNode();
            array.forEach(e -> out.add(sorted(e)));
            return out;
        }
        return node;
    }

    /** {@code EqualIgnoreHash}: the same template but for the pod-template-hash label. */
    static boolean equalIgnoreHash(PodTemplateSpec a, PodTemplateSpec b) {
        return withoutHash(a).equals(withoutHash(b));
    }

    private static JsonNode withoutHash(PodTemplateSpec template) {
        JsonNode tree = Json.tree(template).deepCopy();
        JsonNode labels = tree.path("metadata").path("labels");
        if (labels instanceof ObjectNode l) {
            l.remove(POD_TEMPLATE_HASH);
            if (l.isEmpty()) {
                ((ObjectNode) tree.get("metadata")).remove("labels");
            }
        }
        return tree;
    }

    /** The revision annotation of a ReplicaSet as a number; 0 if absent or not a number ({@code Revision}). */
    static long revision(Map<String, String> annotations) {
        try {
            return Long.parseLong(annotations.getOrDefault(REVISION, "0"));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** {@code MaxRevision}. */
    static long maxRevision(Collection<ReplicaSetView> replicaSets) {
        return replicaSets.stream()
                .mapToLong(v -> revision(v.annotations()))
                .max()
                .orElse(0);
    }

    /**
     * {@code SetNewReplicaSetAnnotations}: the Deployment's annotations copied, the revision raised to
     * {@code newRevision} (the one it had kept in the revision history: a rollback), and on creation the replicas
     * annotations. Whether anything changed.
     */
    static boolean setNewReplicaSetAnnotations(Deployment d, ReplicaSetView rs, String newRevision, boolean exists) {
        Map<String, String> annotations = rs.annotations();
        boolean changed = false;
        Map<String, String> own = Objects.requireNonNullElse(d.getMetadata().getAnnotations(), Map.of());
        for (Map.Entry<String, String> a : new TreeMap<>(own).entrySet()) {
            if (!ANNOTATIONS_TO_SKIP.contains(a.getKey()) && !a.getValue().equals(annotations.get(a.getKey()))) {
                annotations.put(a.getKey(), a.getValue());
                changed = true;
            }
        }
        String oldRevision = annotations.get(REVISION);
        long oldRevisionNumber;
        try {
            oldRevisionNumber = oldRevision == null || oldRevision.isEmpty() ? 0 : Long.parseLong(oldRevision);
        } catch (NumberFormatException e) {
            return false;
        }
        if (oldRevisionNumber < Long.parseLong(newRevision)) {
            annotations.put(REVISION, newRevision);
            changed = true;
            if (oldRevision != null) {
                addToRevisionHistory(annotations, oldRevision);
            }
        }
        if (!exists && setReplicasAnnotations(rs, replicas(d), replicas(d) + maxSurge(d))) {
            changed = true;
        }
        return changed;
    }

    /** The revisions a ReplicaSet had before a rollback made it the new one, oldest dropped past 2000 characters. */
    private static void addToRevisionHistory(Map<String, String> annotations, String oldRevision) {
        String history = annotations.getOrDefault(REVISION_HISTORY, "");
        if (history.isEmpty()) {
            annotations.put(REVISION_HISTORY, oldRevision);
            return;
        }
        List<String> revisions = new ArrayList<>(List.of(history.split(",")));
        int length = history.length() + oldRevision.length() + 1;
        while (length > MAX_REVISION_HISTORY_CHARS && !revisions.isEmpty()) {
            length -= revisions.remove(0).length() + 1;
        }
        if (length <= MAX_REVISION_HISTORY_CHARS) {
            revisions.add(oldRevision);
            annotations.put(REVISION_HISTORY, String.join(",", revisions));
        }
    }

    /**
     * {@code SetReplicasAnnotations}: the Deployment's replicas and its replicas plus surge, as the ReplicaSet saw
     * them.
     */
    static boolean setReplicasAnnotations(ReplicaSetView rs, int desired, int max) {
        Map<String, String> annotations = rs.annotations();
        boolean changed = !Integer.toString(desired).equals(annotations.get(DESIRED_REPLICAS))
                || !Integer.toString(max).equals(annotations.get(MAX_REPLICAS));
        annotations.put(DESIRED_REPLICAS, Integer.toString(desired));
        annotations.put(MAX_REPLICAS, Integer.toString(max));
        return changed;
    }

    /** An integer annotation of a ReplicaSet (desired-replicas, max-replicas), if it holds one. */
    static Optional<Integer> intAnnotation(ReplicaSetView rs, String key) {
        try {
            return Optional.ofNullable(rs.annotations().get(key)).map(Integer::parseInt);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * {@code NewRSNewReplicas}: how far the new ReplicaSet may grow. Rolling: up to the replicas, as long as all
     * ReplicaSets together stay within replicas plus surge; Recreate: the replicas at once.
     */
    static int newRSNewReplicas(Deployment d, Collection<ReplicaSetView> all, ReplicaSetView newRS) {
        if (!isRollingUpdate(d)) {
            return replicas(d);
        }
        int maxTotal = replicas(d) + maxSurge(d);
        int current = replicaCount(all);
        if (current >= maxTotal) {
            return newRS.replicas();
        }
        return newRS.replicas() + Math.min(maxTotal - current, replicas(d) - newRS.replicas());
    }

    /** {@code IsSaturated}: the new ReplicaSet has, wants and makes available all the Deployment's replicas. */
    static boolean isSaturated(Deployment d, ReplicaSetView rs) {
        return rs != null
                && rs.replicas() == replicas(d)
                && intAnnotation(rs, DESIRED_REPLICAS)
                        .map(desired -> desired == replicas(d))
                        .orElse(false)
                && rs.availableReplicas() == replicas(d);
    }

    /** {@code GetReplicaCountForReplicaSets}: the sum of {@code spec.replicas}. */
    static int replicaCount(Collection<ReplicaSetView> replicaSets) {
        return replicaSets.stream().mapToInt(ReplicaSetView::replicas).sum();
    }

    // --- conditions: NewDeploymentCondition, GetDeploymentCondition, SetDeploymentCondition ---

    static DeploymentCondition condition(String type, String status, String reason, String message, Instant now) {
        String time = MetaTimes.format(now);
        return new DeploymentConditionBuilder()
                .withType(type)
                .withStatus(status)
                .withReason(reason)
                .withMessage(message)
                .withLastUpdateTime(time)
                .withLastTransitionTime(time)
                .build();
    }

    static Optional<DeploymentCondition> getCondition(DeploymentStatus status, String type) {
        return status.getConditions().stream()
                .filter(c -> type.equals(c.getType()))
                .findFirst();
    }

    /**
     * Adds or replaces the condition, unless one with its status and reason is there; a same status keeps its
     * transition time.
     */
    static void setCondition(DeploymentStatus status, DeploymentCondition condition) {
        Optional<DeploymentCondition> current = getCondition(status, condition.getType());
        if (current.isPresent()
                && current.get().getStatus().equals(condition.getStatus())
                && Objects.equals(current.get().getReason(), condition.getReason())) {
            return;
        }
        if (current.isPresent() && current.get().getStatus().equals(condition.getStatus())) {
            condition.setLastTransitionTime(current.get().getLastTransitionTime());
        }
        removeCondition(status, condition.getType());
        status.getConditions().add(condition);
    }

    static void removeCondition(DeploymentStatus status, String type) {
        List<DeploymentCondition> kept = new ArrayList<>(status.getConditions());
        kept.removeIf(c -> type.equals(c.getType()));
        status.setConditions(kept);
    }

    /** {@code HasProgressDeadline}: progressDeadlineSeconds set and not MaxInt32. */
    static boolean hasProgressDeadline(Deployment d) {
        Integer deadline = d.getSpec().getProgressDeadlineSeconds();
        return deadline != null && deadline != Integer.MAX_VALUE;
    }

    /** {@code DeploymentComplete}: every replica updated and available, and the latest generation observed. */
    static boolean deploymentComplete(Deployment d, DeploymentStatus status) {
        int replicas = replicas(d);
        return value(status.getUpdatedReplicas()) == replicas
                && value(status.getReplicas()) == replicas
                && value(status.getAvailableReplicas()) == replicas
                && Objects.requireNonNullElse(status.getObservedGeneration(), 0L)
                        >= Objects.requireNonNullElse(d.getMetadata().getGeneration(), 0L);
    }

    /** {@code DeploymentProgressing}: more updated, ready or available replicas than before, or fewer old ones. */
    static boolean deploymentProgressing(DeploymentStatus before, DeploymentStatus after) {
        int oldBefore = value(before.getReplicas()) - value(before.getUpdatedReplicas());
        int oldAfter = value(after.getReplicas()) - value(after.getUpdatedReplicas());
        return value(after.getUpdatedReplicas()) > value(before.getUpdatedReplicas())
                || oldAfter < oldBefore
                || value(after.getReadyReplicas()) > value(before.getReadyReplicas())
                || value(after.getAvailableReplicas()) > value(before.getAvailableReplicas());
    }

    static int value(Integer count) {
        return Objects.requireNonNullElse(count, 0);
    }
}
