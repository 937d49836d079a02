package io.podfall.apiserver.rest;

import io.podfall.apiserver.registry.StatusError;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Errors outside the handlers as Kubernetes Status objects: clients print a Status's message, and choke on a
 * {@code text/html} or {@code text/plain} error page.
 */
@ApplicationScoped
public class ErrorResponses {

    /** The framework's own refusals (no such method on a known path, unreadable parameters, ...). */
    @ServerExceptionMapper
    public Response frameworkError(WebApplicationException e) {
        return Responses.status(forCode(e.getResponse().getStatus(), e.getMessage()));
    }

    /** A path no resource serves reaches the end of the router: 404 as the API server says it. */
    void unknownPaths(@Observes Router router) {
        router.route().order(Integer.MAX_VALUE).handler(ctx -> Responses.end(ctx, StatusError.pathNotFound()));
    }

    static StatusError forCode(int code, String message) {
        return switch (code) {
            case 404 -> StatusError.pathNotFound();
            case 405 -> StatusError.methodNotAllowed();
            case 415 -> StatusError.unsupportedMediaType("unknown");
            case 400 -> StatusError.badRequest(message);
            default -> StatusError.internal(message);
        };
    }
}
