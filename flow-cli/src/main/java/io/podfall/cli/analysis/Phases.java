package io.podfall.cli.analysis;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.runtime.ContainerSignal;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The phases of the objects of one flow, folded from its events in log order: which steps are the boundaries of a
 * deletion's phases (request, terminating, endpoints removed, preStop, SIGTERM, exit or SIGKILL, sandbox stopped, IP
 * released, volume unpublished, final delete, gone) and how long after the previous boundary of its object each step
 * came, so every phase's duration reads off the boundary that ends it. Each object (a pod, its ReplicaSet, the
 * Deployment) has phases of its own; the update of an Endpoints object that takes a pod out of its Service is a
 * boundary of that pod ({@link EndpointsChain}). An object's first step counts from the event that caused it, so a pod
 * deleted in a cascade shows how long after its owner's step its own deletion began.
 */
final class Phases {
    /**
     * The boundary a step is ("" for none), and the ms since its object's previous boundary (null: nothing before it).
     */
    record Mark(String boundary, Long sinceMillis) {}

    /** The time of each object's latest boundary, by subject. */
    private final Map<String, Instant> boundaries = new HashMap<>();
    /** The time of every event so far, by id: the cause of an object's first step. */
    private final Map<String, Instant> times = new HashMap<>();

    /** The objects already marked for deletion: a later marking (a shorter grace) begins no phase. */
    private final Set<String> marked = new HashSet<>();

    private final EndpointsChain endpoints = new EndpointsChain();

    /** The next event of the flow. */
    Mark accept(Event e) {
        Optional<Event> podOut = endpoints.accept(e);
        String object = podOut.map(Event::subject).orElse(e.subject());
        String boundary = podOut.isPresent() ? "endpoints removed" : boundary(e);
        // A pod begins terminating once. The API server writes it again with a shorter grace: the kubelet's final
        // delete stores grace 0 right before the removal, so "gone" still counts from the final delete.
        if (e.is(EventTypes.OBJECT_MARKED_TERMINATING) && !marked.add(object)) {
            boundary = "";
        }
        Instant previous = boundaries.containsKey(object) ? boundaries.get(object) : times.get(e.causationId());
        times.put(e.id(), e.time());
        if (!boundary.isEmpty() || !boundaries.containsKey(object)) {
            boundaries.put(object, e.time());
        }
        return new Mark(
                boundary,
                previous == null ? null : Duration.between(previous, e.time()).toMillis());
    }

    /** The boundary a step of its own object is, by its type; "" when it is none. */
    static String boundary(Event e) {
        return switch (e.type()) {
            case EventTypes.DELETION_REQUESTED -> e.source().startsWith("/kubelet/") ? "final delete" : "request";
            case EventTypes.EVICTION_REQUESTED, EventTypes.COLLECTION_DELETION_REQUESTED -> "request";
            case EventTypes.OBJECT_MARKED_TERMINATING -> "terminating";
            case EventTypes.PRE_STOP_HOOK_STARTED -> "preStop";
            case EventTypes.PRE_STOP_HOOK_FINISHED -> "preStop done";
            case EventTypes.CONTAINER_SIGNALLED ->
                Objects.requireNonNullElse(e.data(ContainerSignal.class).signal(), "");
            case EventTypes.CONTAINER_EXITED -> "exit";
            case EventTypes.SANDBOX_STOPPED -> "sandbox stopped";
            case EventTypes.POD_IP_RELEASED -> "IP released";
            case EventTypes.VOLUME_UNPUBLISHED -> "volume unpublished";
            case EventTypes.VOLUME_UNSTAGED -> "volume unstaged";
            case EventTypes.OBJECT_REMOVED -> "gone";
            default -> "";
        };
    }
}
