package io.podfall.kubelet.podworkers;

import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * The pod workers whose pods were used most recently, their pods decoded; every other worker keeps its pod as its
 * JSON, some 1.3 KB against 5 KB of heap for a fabric8 {@code Pod} (at 100,000 pods held, 130 MB against 500). A
 * deletion reads its pod through the worker at each of its steps, a few within a second, while most pods of a
 * kubelet are at rest: each is encoded once when it leaves this set and decoded once when it is used again. Only
 * how a pod is held depends on this set, never what the kubelet decides.
 */
final class RecentPods {
    /** Several times the pods in the midst of their deletion at once at a thousand pods a second, a second or so each. */
    static final int CAPACITY = 4_096;

    private final int capacity;
    /** By pod UID, least recently used first. */
    private final LinkedHashMap<String, PodWorker> workers = new LinkedHashMap<>(64, 0.75f, true);

    RecentPods(int capacity) {
        this.capacity = capacity;
    }

    /** The worker's pod was used: it is kept decoded, and the worker used least recently, if one too many, is not. */
    void used(PodWorker w) {
        if (workers.put(w.uid, w) == null && workers.size() > capacity) {
            Iterator<PodWorker> eldest = workers.values().iterator();
            eldest.next().encodePod();
            eldest.remove();
        }
    }

    void forget(PodWorker w) {
        workers.remove(w.uid);
    }
}
