package io.podfall.adapter;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventCatalogue;
import io.quarkus.arc.DefaultBean;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * What a service accepts from the log beyond a readable CloudEvent: podfall's catalogue ({@link EventCatalogue}).
 * A bean, so that the adapter's own tests can run a core of test types through it.
 */
@DefaultBean
@ApplicationScoped
public class EventContract {

    /** @throws io.podfall.model.event.UnreadableEventException with the reason, for the dead-letter topic */
    public void check(Event event) {
        EventCatalogue.check(event);
    }
}
