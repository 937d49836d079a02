package io.podfall.adapter;

import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import java.util.concurrent.CompletionStage;

/**
 * Told of every event the core handled and what it decided (called under the core's lock, so keep it short).
 * {@code written} completes once the effects are durably on the log. The API server uses it to answer the HTTP call
 * whose request it has just applied.
 */
public interface LogObserver {
    void handled(Event input, Effects effects, CompletionStage<Void> written);
}
