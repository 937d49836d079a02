package io.podfall.apiserver.rest;

import io.fabric8.kubernetes.api.model.Status;
import io.podfall.apiserver.registry.StatusError;
import io.podfall.model.Json;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import jakarta.ws.rs.core.Response;
import java.util.Optional;

/**
 * Every answer is {@code application/json} written by {@link Json#MAPPER}, so fabric8 objects render as Kubernetes JSON
 * (no nulls, RFC 3339 times) whatever the framework's own mapper would do.
 */
final class Responses {
    static final String JSON = "application/json";
    static final String RETRY_AFTER = "Retry-After";

    private Responses() {}

    static Response json(int code, Object body) {
        return jsonBuilder(code, body).build();
    }

    private static Response.ResponseBuilder jsonBuilder(int code, Object body) {
        return Response.status(code).type(JSON).entity(Json.bytes(body));
    }

    static Response status(StatusError error) {
        Status s = error.status();
        Response.ResponseBuilder response = jsonBuilder(s.getCode(), s);
        retryAfter(s).ifPresent(seconds -> response.header(RETRY_AFTER, seconds));
        return response.build();
    }

    /** Ends a Vert.x route (ahead of, or behind, the JAX-RS handlers) with a Status. */
    static void end(RoutingContext ctx, StatusError error) {
        Status s = error.status();
        HttpServerResponse response = ctx.response().setStatusCode(s.getCode()).putHeader("Content-Type", JSON);
        retryAfter(s).ifPresent(seconds -> response.putHeader(RETRY_AFTER, seconds));
        response.end(Buffer.buffer(Json.bytes(s)));
    }

    /**
     * The {@code Retry-After} of a refusal, in seconds: whatever Status carries {@code details.retryAfterSeconds} (a
     * 503 or 429) sends it as the header too, as {@code responsewriters.ErrorNegotiated}
     * ({@code staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/writers.go}) does.
     */
    static Optional<String> retryAfter(Status status) {
        Integer seconds =
                status.getDetails() == null ? null : status.getDetails().getRetryAfterSeconds();
        return seconds != null && seconds > 0 ? Optional.of(Integer.toString(seconds)) : Optional.empty();
    }
}
