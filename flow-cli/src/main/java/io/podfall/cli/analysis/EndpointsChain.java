package io.podfall.cli.analysis;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The endpoints controller's answer to a pod being marked for deletion, followed by causation through a log read in
 * order: the pod's {@code ObjectMarkedTerminating}, the controller's {@code PatchRequested} of an Endpoints object it
 * caused, the API server's {@code ObjectUpdated} of that patch, the moment the pod left the Service. Only Endpoints
 * count: other controllers patch other objects on the same fact (a ReplicaSet's status).
 */
final class EndpointsChain {
    /** The id of each event of a chain so far, to the pod's ObjectMarkedTerminating that began it. */
    private final Map<String, Event> markedBy = new HashMap<>();

    /** Folds one event; when it is a stored Endpoints change of a chain, the pod's marking that began it. */
    Optional<Event> accept(Event e) {
        if (e.is(EventTypes.OBJECT_MARKED_TERMINATING) && DeletionFlow.isPod(e.subject())) {
            markedBy.put(e.id(), e);
            return Optional.empty();
        }
        Event marked = e.causationId() == null || !isEndpoints(e.subject()) ? null : markedBy.get(e.causationId());
        if (marked != null && e.is(EventTypes.PATCH_REQUESTED)) {
            markedBy.put(e.id(), marked);
        } else if (marked != null && e.is(EventTypes.OBJECT_UPDATED)) {
            return Optional.of(marked);
        }
        return Optional.empty();
    }

    private static boolean isEndpoints(String subject) {
        return subject != null && subject.contains("/endpoints/");
    }
}
