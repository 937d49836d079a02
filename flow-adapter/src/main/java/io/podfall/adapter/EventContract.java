package io.podfall.adapter;

import io.podfall.model.event.EventCatalogue;
import io.quarkus.arc.DefaultBean;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * What a service accepts from the log beyond a readable CloudEvent: podfall's catalogue ({@link EventCatalogue}). A
 * bean, so that the adapter's own tests can run a core of test types through it.
 */
@DefaultBean
@ApplicationScoped
public class EventContract {

    /**
     * Whether a record of {@code type} may come from {@code source}.
     *
     * @throws io.podfall.model.event.UnreadableEventException with the reason, for the dead-letter topic
     */
    public void check(String type, String source) {
        EventCatalogue.check(type, source);
    }
}
