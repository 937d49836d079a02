package io.podfall.kubelet;

import io.podfall.model.core.Timer;
import io.podfall.model.core.TimerKey;
import io.podfall.model.event.Event;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@link NodeStops} knows: the kubelet's nodes whose machine is stopped, each with what its kubelet has not acted
 * on yet.
 */
public final class StoppedNodes {
    /** By node name, each stopped node's held facts and timers. */
    private final Map<String, Held> stopped = new HashMap<>();

    public boolean isStopped(String node) {
        return stopped.containsKey(node);
    }

    boolean isEmpty() {
        return stopped.isEmpty();
    }

    void stop(String node) {
        stopped.putIfAbsent(node, new Held());
    }

    /** The node runs again: what was held for it, or nothing if it was not stopped. */
    Optional<Held> start(String node) {
        return Optional.ofNullable(stopped.remove(node));
    }

    Held held(String node) {
        return stopped.get(node);
    }

    /**
     * What a stopped node's kubelet will find at its start. Facts are compacted as a LIST and a relist would show them:
     * a later fact about the same thing (the same pod, the same container) replaces the earlier one, and takes its
     * place in the order. Timers are kept by key (a timer replaces one of its key, as a host's does).
     */
    static final class Held {
        /** The facts, by what they are about ({@link NodeStops#about}), in the order of their latest fact. */
        private final LinkedHashMap<String, Event> facts = new LinkedHashMap<>();
        /** The timers that came due, by key. */
        private final Map<TimerKey, Timer> timers = new HashMap<>();

        void hold(String about, Event fact) {
            facts.remove(about);
            facts.put(about, fact);
        }

        void hold(Timer timer) {
            timers.put(timer.key(), timer);
        }

        Collection<Event> facts() {
            return facts.values();
        }

        /** The timers in the order they came due (then by key), as a host fires them. */
        List<Timer> timers() {
            return timers.values().stream()
                    .sorted(Comparator.comparing(Timer::at)
                            .thenComparing(t -> t.key().id()))
                    .toList();
        }
    }
}
