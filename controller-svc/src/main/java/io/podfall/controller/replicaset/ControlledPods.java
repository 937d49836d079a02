package io.podfall.controller.replicaset;

import io.podfall.controller.ActivePods;
import io.podfall.controller.CachedPod;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The pods one ReplicaSet controls, with the tallies of its status kept as pods come and go, so that a sync after one
 * pod's change costs the change, not a walk over every pod (upstream's informer indexes pods by controller and its work
 * queue folds many changes into one sync; here every fact syncs at once, so the sync itself must be cheap).
 *
 * <p>Invariant: every tally counts exactly the pods held that it describes; {@link #put} and {@link #remove} take a
 * pod's whole contribution out before adding the new one.
 */
final class ControlledPods {
    /** The pods, by uid (the order in which a ReplicaSet's pods are listed). */
    private final TreeMap<String, CachedPod> byUid = new TreeMap<>();
    /** Active pods ({@link ActivePods#isActive}). */
    private int active;
    /** Active pods that are Ready. */
    private int ready;
    /**
     * Active Ready pods by the time their Ready condition became True (those that say), counted per time: objects carry
     * times in whole seconds, so there are few distinct ones however many pods.
     */
    private final TreeMap<Instant, Integer> readySince = new TreeMap<>();
    /** The template labels {@link #fullyLabeled} counts against, null until first asked. */
    private Map<String, String> labelsCounted;
    /** Active pods whose labels include {@link #labelsCounted}. */
    private int fullyLabeled;

    boolean isEmpty() {
        return byUid.isEmpty();
    }

    /** The active pods, in uid order. */
    List<CachedPod> active() {
        return byUid.values().stream().filter(ActivePods::isActive).toList();
    }

    int activeCount() {
        return active;
    }

    int readyCount() {
        return ready;
    }

    /** Active pods whose labels include every template label. */
    int fullyLabeled(Map<String, String> templateLabels) {
        if (!templateLabels.equals(labelsCounted)) {
            labelsCounted = new HashMap<>(templateLabels);
            fullyLabeled = (int)
                    byUid.values().stream().filter(this::countsFullyLabeled).count();
        }
        return fullyLabeled;
    }

    /** Active pods available at {@code now} ({@link ActivePods#isAvailable}). */
    int available(int minReadySeconds, Instant now) {
        if (minReadySeconds == 0) {
            return ready;
        }
        return readySince.headMap(now.minusSeconds(minReadySeconds), false).values().stream()
                .mapToInt(Integer::intValue)
                .sum();
    }

    /** When the next active Ready pod not yet available becomes so ({@link ActivePods#availableAfter}), if any. */
    Optional<Instant> nextAvailable(int minReadySeconds, Instant now) {
        return Optional.ofNullable(readySince.ceilingKey(now.minusSeconds(minReadySeconds)))
                .map(since -> since.plusSeconds(minReadySeconds));
    }

    void put(CachedPod pod) {
        remove(pod.uid());
        byUid.put(pod.uid(), pod);
        count(pod, 1);
    }

    void remove(String uid) {
        CachedPod gone = byUid.remove(uid);
        if (gone != null) {
            count(gone, -1);
        }
    }

    private void count(CachedPod pod, int delta) {
        if (!ActivePods.isActive(pod)) {
            return;
        }
        active += delta;
        if (countsFullyLabeled(pod)) {
            fullyLabeled += delta;
        }
        if (ActivePods.isReady(pod)) {
            ready += delta;
            ActivePods.availableAfter(pod, 0)
                    .ifPresent(since -> readySince.merge(since, delta, (a, b) -> a + b == 0 ? null : a + b));
        }
    }

    private boolean countsFullyLabeled(CachedPod pod) {
        return labelsCounted != null
                && ActivePods.isActive(pod)
                && pod.labels().entrySet().containsAll(labelsCounted.entrySet());
    }
}
