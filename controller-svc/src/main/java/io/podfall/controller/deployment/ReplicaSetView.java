package io.podfall.controller.deployment;

import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.podfall.model.Json;
import io.podfall.model.k8s.MetaTimes;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A ReplicaSet as one sync of a Deployment sees it: a copy of the cached one, or one the sync is about to create, with
 * the changes the sync decided on it (its replicas, annotations, minReadySeconds). Upstream changes its in-memory
 * copies the same way, one API call at a time; here the sync's requests go out together at its end.
 */
final class ReplicaSetView {
    /** Oldest first, then by name ({@code controller.ReplicaSetsByCreationTimestamp}). */
    static final Comparator<ReplicaSetView> BY_CREATION =
            Comparator.comparing((ReplicaSetView v) -> v.created).thenComparing(ReplicaSetView::name);

    final ReplicaSet rs;
    /** The sync asks for it to be created; it is not stored yet. */
    final boolean toCreate;
    /** Its creationTimestamp, or now for one to be created. */
    private final Instant created;
    /** The sync changed it: it must be written. */
    private boolean changed;

    private ReplicaSetView(ReplicaSet rs, boolean toCreate, Instant created) {
        this.rs = rs;
        this.toCreate = toCreate;
        this.created = created;
        if (rs.getMetadata().getAnnotations() == null) {
            rs.getMetadata().setAnnotations(new LinkedHashMap<>());
        }
    }

    static ReplicaSetView of(ReplicaSet cached) {
        ReplicaSet copy = Json.convert(Json.tree(cached), ReplicaSet.class);
        Instant created = MetaTimes.parse(copy.getMetadata().getCreationTimestamp());
        return new ReplicaSetView(copy, false, created == null ? Instant.MIN : created);
    }

    static ReplicaSetView toCreate(ReplicaSet rs, Instant now) {
        return new ReplicaSetView(rs, true, now);
    }

    String name() {
        return rs.getMetadata().getName();
    }

    int replicas() {
        return Objects.requireNonNullElse(rs.getSpec().getReplicas(), 1);
    }

    void setReplicas(int replicas) {
        rs.getSpec().setReplicas(replicas);
        changed = true;
    }

    Map<String, String> annotations() {
        return rs.getMetadata().getAnnotations();
    }

    /** Marks the copy as changed by the sync (an annotation, minReadySeconds). */
    void changed() {
        changed = true;
    }

    boolean isChanged() {
        return changed;
    }

    /** Pods of it that exist ({@code status.replicas}); none for one to be created. */
    int actualReplicas() {
        return status(ReplicaSetStatus::getReplicas);
    }

    int readyReplicas() {
        return status(ReplicaSetStatus::getReadyReplicas);
    }

    int availableReplicas() {
        return status(ReplicaSetStatus::getAvailableReplicas);
    }

    private int status(java.util.function.Function<ReplicaSetStatus, Integer> field) {
        return rs.getStatus() == null ? 0 : Objects.requireNonNullElse(field.apply(rs.getStatus()), 0);
    }
}
