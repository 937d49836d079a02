package io.podfall.adapter;

import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.vertx.core.Context;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/** Which thread handled each event, by event id, and whether it was a Vert.x event loop. */
@ApplicationScoped
public class HandlingThreads implements LogObserver {
    record Handler(String thread, boolean eventLoop) {}

    private final Map<String, Handler> byEvent = new ConcurrentHashMap<>();

    /** The handler of the event of that id; null until it has been handled. Read through the bean's proxy. */
    Handler of(String eventId) {
        return byEvent.get(eventId);
    }

    @Override
    public void handled(Event input, Effects effects, CompletionStage<Void> written) {
        byEvent.put(input.id(), new Handler(Thread.currentThread().getName(), Context.isOnEventLoopThread()));
    }
}
