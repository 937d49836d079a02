package io.podfall.apiserver.rest;

import io.podfall.apiserver.registry.StatusError;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
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

    /**
     * A path no resource serves reaches the end of the router: 404 as the API server says it. A request the router
     * fails before a handler answers (a chunked body over the limit of {@link RequestLimits}: 413) gets a Status too,
     * where the framework would end it with an empty body. (A path whose percent-escapes do not decode is refused by
     * the HTTP server itself with a bare 400, as Go's server refuses it in front of kube-apiserver.)
     */
    void unknownPaths(@Observes Router router) {
        router.route().order(Integer.MAX_VALUE).handler(ctx -> Responses.end(ctx, StatusError.pathNotFound()));
        router.route().order(-30).failureHandler(ErrorResponses::failed);
        // On the path as sent: the router normalizes "pods/.." to the namespace, and JAX-RS drops ";x=y" from a name.
        router.route().order(-40).handler(ctx -> {
            try {
                ApiPaths.requireLiteralSegments(ctx.request().path());
                ctx.next();
            } catch (StatusError e) {
                Responses.end(ctx, e);
            }
        });
    }

    /** A refusal (4xx) as a Status; anything else goes on to Quarkus's handler, which logs it. */
    private static void failed(RoutingContext ctx) {
        int code = ctx.statusCode();
        if (ctx.response().headWritten() || code < 400 || code >= 500) {
            ctx.next();
            return;
        }
        Throwable failure = ctx.failure();
        Responses.end(
                ctx,
                forCode(
                        code,
                        failure == null || failure.getMessage() == null
                                ? "the request could not be read"
                                : failure.getMessage()));
    }

    /** The Status of a refusal known only by its HTTP code; -1 (an exception, no code) is a 500. */
    static StatusError forCode(int code, String message) {
        return switch (code) {
            case 404 -> StatusError.pathNotFound();
            case 405 -> StatusError.methodNotAllowed();
            case 413 -> StatusError.requestEntityTooLarge("limit is " + RequestLimits.MAX_REQUEST_BODY_BYTES);
            case 415 -> StatusError.unsupportedMediaType("unknown");
            default -> code >= 400 && code < 500 ? StatusError.badRequest(message) : StatusError.internal(message);
        };
    }
}
