package io.podfall.apiserver.rest;

import io.podfall.adapter.LogObserver;
import io.podfall.adapter.LogProcessor;
import io.podfall.apiserver.registry.RegistryState;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;

/**
 * The watch side of the registry: told every fact the registry writes (also while the service rebuilds from the log on
 * start), it keeps the {@link WatchHistory} and hands each change to the open watches. It is called under the log
 * processor's lock, so a watcher only enqueues there: a slow or vanished client never holds up the log.
 */
@ApplicationScoped
public class WatchHub implements LogObserver {
    /** How many changes are retained for watches that start from a resourceVersion. */
    static final int RETAINED_CHANGES = 10_000;

    /** One open watch. */
    interface Watcher {
        /**
         * Takes a change (called under the processor's lock: enqueue only, never block).
         *
         * @return false if the watch has ended and is to be forgotten
         */
        boolean offer(WatchEvent event);
    }

    private final WatchHistory history = new WatchHistory(RETAINED_CHANGES);
    private final Set<Watcher> watchers = new LinkedHashSet<>();

    @Inject
    LogProcessor processor;

    /** Called under the processor's lock right after the registry handled {@code input}: the state is its result. */
    @Override
    public void handled(Event input, Effects effects, CompletionStage<Void> written) {
        processor.read(RegistryState.class, state -> {
            record(effects, state);
            return null;
        });
    }

    /** Records the facts of a request, whose result is {@code state}, and hands each change to the watches. */
    synchronized void record(Effects effects, RegistryState state) {
        for (Event fact : effects.events()) {
            history.record(fact, state).ifPresent(change -> watchers.removeIf(w -> !w.offer(change)));
        }
    }

    /**
     * Registers a watcher for every change after {@code resourceVersion} and returns the retained ones it missed.
     * Called under the processor's lock, so nothing is written between a state read there and the subscription.
     *
     * @throws io.podfall.apiserver.registry.StatusError 410 Expired if changes after it are no longer retained
     */
    synchronized List<WatchEvent> subscribe(long resourceVersion, Watcher watcher) {
        List<WatchEvent> missed = history.since(resourceVersion);
        watchers.add(watcher);
        return missed;
    }

    synchronized void unsubscribe(Watcher watcher) {
        watchers.remove(watcher);
    }
}
