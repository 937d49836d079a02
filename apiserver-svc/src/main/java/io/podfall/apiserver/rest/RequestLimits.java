package io.podfall.apiserver.rest;

import io.podfall.apiserver.registry.StatusError;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Locale;

/**
 * kube-apiserver's request body limit ({@code --max-request-bytes}, 3 MiB), answered as it answers it: a 413 Status,
 * before the body is read. A chunked body, which declares no length, is read here up to the limit and refused once past
 * it, as upstream's {@code limitedReadBody} does (the failure becomes a Status in {@link ErrorResponses}; Quarkus's own
 * reader would end the call with an empty 413). Within the limit, a body too large to be an event on the log still gets
 * a 413 Status from {@link RequestTracker}.
 */
@ApplicationScoped
public class RequestLimits {
    static final long MAX_REQUEST_BODY_BYTES = 3L * 1024 * 1024;

    void routes(@Observes Router router) {
        router.route().order(-20).handler(ctx -> {
            String length = ctx.request().getHeader("Content-Length");
            if (length != null && exceeds(length)) {
                Responses.end(ctx, StatusError.requestEntityTooLarge("limit is " + MAX_REQUEST_BODY_BYTES));
                return;
            }
            ctx.next();
        });
        BodyHandler chunked = BodyHandler.create(false).setBodyLimit(MAX_REQUEST_BODY_BYTES);
        router.route().order(-19).handler(ctx -> {
            HttpServerRequest request = ctx.request();
            if (request.getHeader("Content-Length") != null || request.getHeader("Transfer-Encoding") == null) {
                ctx.next();
            } else if (isForm(request.getHeader("Content-Type"))) {
                // No handler here reads a form (each answers 415), and the body handler would decode it as one.
                Responses.end(ctx, StatusError.unsupportedMediaType(request.getHeader("Content-Type")));
            } else {
                chunked.handle(ctx);
            }
        });
    }

    private static boolean isForm(String contentType) {
        String type = contentType == null ? "" : contentType.toLowerCase(Locale.ROOT);
        return type.startsWith("multipart/") || type.startsWith("application/x-www-form-urlencoded");
    }

    private static boolean exceeds(String contentLength) {
        try {
            return Long.parseLong(contentLength.trim()) > MAX_REQUEST_BODY_BYTES;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
