package io.podfall.cli.analysis;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.EvictionRequest;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.runtime.ContainerSignal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One pod deletion, asked by a client or a controller, and every event of its correlation about that pod, in log order.
 * The kubelet's final delete carries the same correlation, so the flow runs from the request to the sandbox's removal.
 */
public record DeletionFlow(Event request, List<Event> events) {

    /**
     * The order of a graceful deletion: the terminal status once the kill returned, the worker finished once the
     * volumes are unmounted and (with upstream's waits) the PLEG relisted, then the kubelet's delete, which the API
     * server stores with grace 0 (a second marking) before it removes the pod, as upstream's store.go does. Without the
     * relist wait, PodTerminated may come before the status is stored.
     */
    public static final List<String> GRACEFUL_ORDER = List.of(
            EventTypes.DELETION_REQUESTED,
            EventTypes.OBJECT_MARKED_TERMINATING,
            EventTypes.POD_TERMINATION_STARTED,
            EventTypes.STOP_CONTAINER_REQUESTED,
            EventTypes.CONTAINER_SIGNALLED,
            EventTypes.CONTAINER_EXITED,
            EventTypes.STOP_POD_SANDBOX_REQUESTED,
            EventTypes.POD_IP_RELEASED,
            EventTypes.SANDBOX_STOPPED,
            EventTypes.STATUS_UPDATE_REQUESTED,
            EventTypes.POD_STATUS_UPDATED,
            EventTypes.POD_TERMINATED,
            EventTypes.DELETION_REQUESTED,
            EventTypes.OBJECT_MARKED_TERMINATING,
            EventTypes.OBJECT_REMOVED,
            EventTypes.REMOVE_POD_SANDBOX_REQUESTED,
            EventTypes.CONTAINER_REMOVED,
            EventTypes.SANDBOX_REMOVED);

    private static final int KUBELET_DELETE = GRACEFUL_ORDER.lastIndexOf(EventTypes.DELETION_REQUESTED);

    /**
     * Every pod deletion in the log, in the order they were requested, each with the events of its correlation about
     * its pod ({@link #key}).
     */
    public static List<DeletionFlow> all(List<Event> log) {
        Map<String, List<Event>> byKey = new LinkedHashMap<>();
        for (Event e : log) {
            byKey.computeIfAbsent(key(e), k -> new ArrayList<>()).add(e);
        }
        Map<String, DeletionFlow> flows = new LinkedHashMap<>();
        for (Event e : log) {
            if (isRequest(e)) {
                flows.putIfAbsent(key(e), new DeletionFlow(e, List.copyOf(byKey.get(key(e)))));
            }
        }
        return List.copyOf(flows.values());
    }

    /**
     * The root of a pod deletion: a {@code DeletionRequested} of a pod from anyone but its kubelet (whose delete ends a
     * deletion): a client's, which starts a correlation of its own, or a controller's in the flow of what caused it
     * (the garbage collector's in a Deployment's cascade, the ReplicaSet controller's on a scale-down); or an
     * {@code EvictionRequested} (a drain), which deletes the pod the same way.
     */
    static boolean isRequest(Event e) {
        return (e.is(EventTypes.DELETION_REQUESTED) || e.is(EventTypes.EVICTION_REQUESTED))
                && isPod(e.subject())
                && !e.source().startsWith("/kubelet/");
    }

    /**
     * Which pod deletion an event belongs to: its correlation and its subject. A cascade deletes many pods in one
     * correlation; each pod's events carry its own subject.
     */
    static String key(Event e) {
        return e.correlationId() + " " + e.subject();
    }

    static boolean isPod(String subject) {
        return subject != null && subject.startsWith("namespaces/") && subject.contains("/pods/");
    }

    public String subject() {
        return request.subject();
    }

    public String correlationId() {
        return request.correlationId();
    }

    public String key() {
        return key(request);
    }

    public Optional<Event> first(String type) {
        return events.stream().filter(e -> e.is(type)).findFirst();
    }

    public Optional<Event> removed() {
        return first(EventTypes.OBJECT_REMOVED);
    }

    public boolean rejected() {
        return events.stream().anyMatch(e -> rejects(e, request.id()));
    }

    /** The API server refused the request {@code requestId}: nothing of the deletion happened. */
    static boolean rejects(Event e, String requestId) {
        return e.is(EventTypes.REQUEST_REJECTED) && requestId.equals(e.causationId());
    }

    /** A force deletion: grace 0 asked by the client, so the API server removes the pod without waiting. */
    public boolean forced() {
        Long grace = askedGrace(request);
        return grace != null && grace == 0;
    }

    /**
     * The stop signal StopContainer sends first: SIGTERM, or the image's STOPSIGNAL (nginx's SIGQUIT); anything but the
     * SIGKILL that ends the grace period.
     */
    static boolean isStopSignal(Event e) {
        return e.is(EventTypes.CONTAINER_SIGNALLED) && !isKill(e.data(ContainerSignal.class));
    }

    /** The SIGKILL that ends the grace period; any other signal is a stop signal. */
    static boolean isKill(ContainerSignal s) {
        return "SIGKILL".equals(s.signal());
    }

    /**
     * The grace period a deletion's request asks for, null for none: its DeleteOptions', or an Eviction's
     * deleteOptions' (the contract keeps the Eviction as the client sent it, a JSON object).
     */
    static Long askedGrace(Event request) {
        if (request.is(EventTypes.EVICTION_REQUESTED)) {
            JsonNode eviction = request.data(EvictionRequest.class).eviction();
            JsonNode grace =
                    eviction == null ? null : eviction.path("deleteOptions").path("gracePeriodSeconds");
            return grace != null && grace.isNumber() ? grace.asLong() : null;
        }
        DeleteOptions options = request.data(DeletionRequest.class).options();
        return options == null ? null : options.getGracePeriodSeconds();
    }

    /**
     * The furthest step of {@link #GRACEFUL_ORDER} the flow reached, as an index into it; -1 for none. A marking after
     * the kubelet's delete is that delete's grace 0.
     */
    public int progress() {
        int max = -1;
        boolean finalDelete = false;
        for (Event e : events) {
            int i;
            if (e.is(EventTypes.DELETION_REQUESTED)) {
                finalDelete |= !e.id().equals(request.id());
                i = finalDelete ? KUBELET_DELETE : 0;
            } else if (e.is(EventTypes.OBJECT_MARKED_TERMINATING) && finalDelete) {
                i = KUBELET_DELETE + 1;
            } else {
                i = GRACEFUL_ORDER.indexOf(e.type());
            }
            max = Math.max(max, i);
        }
        return max;
    }

    static Duration between(Event from, Event to) {
        return Duration.between(from.time(), to.time());
    }
}
