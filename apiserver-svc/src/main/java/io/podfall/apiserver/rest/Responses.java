package io.podfall.apiserver.rest;

import io.fabric8.kubernetes.api.model.Status;
import io.podfall.apiserver.registry.StatusError;
import io.podfall.model.Json;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;
import jakarta.ws.rs.core.Response;

/**
 * Every answer is {@code application/json} written by {@link Json#MAPPER}, so fabric8 objects render as
 * Kubernetes JSON (no nulls, RFC 3339 times) whatever the framework's own mapper would do.
 */
final class Responses {
    static final String JSON = "application/json";

    private Responses() {
    }

    static Response json(int code, Object body) {
        return Response.status(code).type(JSON).entity(Json.bytes(body)).build();
    }

    static Response status(StatusError error) {
        Status s = error.status();
        return json(s.getCode(), s);
    }

    /** Ends a Vert.x route (ahead of, or behind, the JAX-RS handlers) with a Status. */
    static void end(RoutingContext ctx, StatusError error) {
        Status s = error.status();
        ctx.response().setStatusCode(s.getCode()).putHeader("Content-Type", JSON).end(Buffer.buffer(Json.bytes(s)));
    }
}
