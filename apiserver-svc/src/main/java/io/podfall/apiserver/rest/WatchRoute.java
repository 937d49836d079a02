package io.podfall.apiserver.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Status;
import io.podfall.adapter.LogProcessor;
import io.podfall.adapter.SimulatedClock;
import io.podfall.apiserver.registry.RegistryState;
import io.podfall.apiserver.registry.Selectors;
import io.podfall.apiserver.registry.StatusError;
import io.podfall.model.k8s.ResourceType;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * WATCH on the collection URLs of every kind ({@code /api/v1/pods}, {@code /api/v1/namespaces/<ns>/pods},
 * {@code /apis/apps/v1/namespaces/<ns>/deployments}, ... with {@code watch=true}, resolved by {@link ApiPaths}). Served
 * on the Vert.x router ahead of the JAX-RS resources, because a watch is a response that stays open and is written line
 * by line as the registry changes; every other request on these paths goes on to {@link ApiResource}.
 *
 * <p>As the API server serves a watch ({@code staging/src/k8s.io/apiserver/pkg/endpoints/handlers/get.go}
 * {@code ListResource}, {@code watch.go}):
 *
 * <ul>
 *   <li>with a {@code resourceVersion}, every change after it, from the retained history, then live; one too old for
 *       the history gets a single ERROR event with a 410 Expired Status;
 *   <li>without one (or "0"), first an ADDED event for every object in the selection, oldest resourceVersion first,
 *       then every change after that state;
 *   <li>the field and label selectors filter; an object that leaves the selection is sent as DELETED;
 *   <li>the stream ends after {@code timeoutSeconds}, else after a random 30 to 60 minutes (the
 *       {@code minRequestTimeout} rule), so that clients spread their re-lists;
 *   <li>with a Table Accept header, each event's object is a one-row Table.
 * </ul>
 */
@ApplicationScoped
public class WatchRoute {
    /** {@code --min-request-timeout}'s default: watches without a timeout last between one and two of these. */
    static final Duration MIN_REQUEST_TIMEOUT = Duration.ofMinutes(30);
    /**
     * strconv.ParseBool's true, which is how the query parameter is decoded upstream (the Python client sends True).
     */
    private static final Set<String> TRUE = Set.of("1", "t", "T", "TRUE", "true", "True");

    @Inject
    LogProcessor processor;

    @Inject
    WatchHub hub;

    @Inject
    SimulatedClock clock;

    void routes(@Observes Router router) {
        // Ahead of the JAX-RS handler; non-watch requests fall through to it with next().
        router.routeWithRegex(HttpMethod.GET, "/apis?/.+").order(-1).handler(this::watch);
    }

    /** Whether a GET asks for a watch ({@code ?watch=true}, or any of Go's spellings of true). */
    static boolean isWatch(HttpServerRequest request) {
        return TRUE.contains(String.valueOf(request.getParam("watch")));
    }

    private void watch(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        if (!isWatch(request)) {
            ctx.next();
            return;
        }
        try {
            if (!processor.isLive()) {
                throw ApiResource.rebuilding();
            }
            if (!(ApiPaths.parse(request.path()) instanceof ApiPaths.Resource r) || !r.collection()) {
                // A watch of one object by its URL is long deprecated upstream; the GET answers it.
                ctx.next();
                return;
            }
            ResourceType type = r.type();
            String namespace = r.namespace();
            WatchFilter filter = new WatchFilter(
                    type,
                    namespace,
                    Selectors.parse(type, request.getParam("fieldSelector"), request.getParam("labelSelector")));
            Optional<Tables.Format> table = Tables.requestedVersion(request.getHeader("Accept"))
                    .map(v -> new Tables.Format(v, Tables.IncludeObject.parse(request.getParam("includeObject"))));
            long resourceVersion = resourceVersion(request.getParam("resourceVersion"));
            Duration timeout = timeout(request.getParam("timeoutSeconds"));
            WatchStream stream =
                    new WatchStream(Vertx.currentContext(), ctx.response(), filter, table, clock::now, hub);
            Start start = processor.read(RegistryState.class, s -> begin(s, resourceVersion, filter, hub, stream));
            if (start.expired() != null) {
                stream.fail(start.expired());
            } else {
                stream.start(start.events(), timeout);
            }
        } catch (StatusError e) {
            Responses.end(ctx, e);
        }
    }

    /** The events a watch starts with, or the Status of its refusal; {@code expired} null when it starts. */
    record Start(List<WatchEvent> events, Status expired) {}

    /**
     * Under the processor's lock, so the state read and the subscription see the same point of the log: the watch
     * misses no change and gets none twice.
     */
    static Start begin(
            RegistryState state, long resourceVersion, WatchFilter filter, WatchHub hub, WatchHub.Watcher watcher) {
        List<WatchEvent> events = new ArrayList<>();
        if (resourceVersion == 0) {
            state.trees(filter.resource(), filter.namespace()).stream()
                    .filter(filter::matches)
                    .sorted(Comparator.comparingLong(WatchRoute::resourceVersionOf))
                    .forEach(o -> events.add(added(filter.resource(), o)));
            hub.subscribe(state.resourceVersion(), watcher);
            return new Start(events, null);
        }
        try {
            hub.subscribe(resourceVersion, watcher)
                    .forEach(e -> e.seenThrough(filter).ifPresent(events::add));
            return new Start(events, null);
        } catch (StatusError expired) {
            return new Start(List.of(), expired.status());
        }
    }

    private static WatchEvent added(ResourceType type, JsonNode object) {
        JsonNode meta = object.path("metadata");
        return new WatchEvent(
                WatchEvent.ADDED,
                type,
                meta.path("namespace").asText(""),
                meta.path("name").asText(),
                resourceVersionOf(object),
                object,
                null);
    }

    private static long resourceVersionOf(JsonNode object) {
        return Long.parseLong(object.path("metadata").path("resourceVersion").asText("0"));
    }

    /** The {@code resourceVersion} parameter; absent or "" is 0, "any version" (then the state first). */
    static long resourceVersion(String value) {
        if (value == null || value.isEmpty()) {
            return 0;
        }
        try {
            long rv = Long.parseLong(value);
            if (rv >= 0) {
                return rv;
            }
        } catch (NumberFormatException e) {
            // refused below, as etcd3's versioner refuses it
        }
        throw StatusError.badRequest("invalid resource version: \"" + value + "\"");
    }

    /** {@code timeoutSeconds}, else a random duration in [MIN_REQUEST_TIMEOUT, 2 * MIN_REQUEST_TIMEOUT). */
    static Duration timeout(String value) {
        if (value != null && !value.isEmpty()) {
            try {
                long seconds = Long.parseLong(value);
                if (seconds > 0) {
                    return Duration.ofSeconds(seconds);
                }
                if (seconds == 0) {
                    return defaultTimeout();
                }
            } catch (NumberFormatException e) {
                // refused below
            }
            throw StatusError.badRequest("invalid timeoutSeconds: \"" + value + "\"");
        }
        return defaultTimeout();
    }

    private static Duration defaultTimeout() {
        return MIN_REQUEST_TIMEOUT.plusMillis(ThreadLocalRandom.current().nextLong(MIN_REQUEST_TIMEOUT.toMillis()));
    }
}
