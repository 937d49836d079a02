package io.podfall.apiserver.rest;

import io.podfall.adapter.LogWriter;
import io.podfall.adapter.SimulatedClock;
import io.podfall.apiserver.auth.AbacPolicy;
import io.podfall.apiserver.auth.RequestAttributes;
import io.podfall.apiserver.auth.TokenFile;
import io.podfall.apiserver.auth.UserInfo;
import io.podfall.apiserver.registry.Registry;
import io.podfall.apiserver.registry.StatusError;
import io.podfall.model.apiserver.AccessDenial;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Optional authentication and authorization of API calls, as kube-apiserver's filters do them before any handler
 * (staging/src/k8s.io/apiserver/pkg/endpoints/filters/authentication.go and authorization.go). Off unless configured:
 *
 * <ul>
 *   <li>{@code podfall.apiserver.token-auth-file}: bearer tokens ({@link TokenFile}); a call without a known token gets
 *       401 (anonymous requests are off, as with {@code --anonymous-auth=false});
 *   <li>{@code podfall.apiserver.authorization-policy-file}: ABAC policies ({@link AbacPolicy}); a call no policy
 *       allows gets 403. Without it every authenticated user may do anything.
 * </ul>
 *
 * A refused mutation is still recorded on the log as {@code apiserver.AccessDenied}, with who tried what; nothing acts
 * on it. Health and metrics ({@code /q/...}) are not API calls and stay open.
 */
@ApplicationScoped
public class AccessControl {
    private static final Logger LOG = Logger.getLogger(AccessControl.class);
    private static final List<String> MUTATIONS = List.of("create", "update", "patch", "delete", "deletecollection");

    @Inject
    LogWriter writer;

    @Inject
    SimulatedClock clock;

    @ConfigProperty(name = "podfall.apiserver.token-auth-file")
    Optional<Path> tokenFile;

    @ConfigProperty(name = "podfall.apiserver.authorization-policy-file")
    Optional<Path> policyFile;

    void routes(@Observes Router router) {
        if (tokenFile.isEmpty()) {
            if (policyFile.isPresent()) {
                throw new IllegalStateException("podfall.apiserver.authorization-policy-file needs "
                        + "podfall.apiserver.token-auth-file: a policy decides on users, and only tokens tell them");
            }
            return;
        }
        TokenFile tokens = TokenFile.parse(read(tokenFile.get()));
        Optional<AbacPolicy> policy = policyFile.map(p -> AbacPolicy.parse(read(p)));
        LOG.infof(
                "Authentication by the tokens of %s; authorization %s",
                tokenFile.get(),
                policy.isPresent() ? "by the ABAC policies of " + policyFile.get() : "of every authenticated user");
        // After the body limit (order -20), ahead of watches (-1) and the JAX-RS handlers.
        router.routeWithRegex("/(api|apis|version|openapi)(/.*)?")
                .order(-10)
                .handler(ctx -> filter(ctx, tokens, policy));
    }

    private void filter(RoutingContext ctx, TokenFile tokens, Optional<AbacPolicy> policy) {
        HttpServerRequest request = ctx.request();
        Optional<UserInfo> user =
                bearerToken(request.getHeader("Authorization")).flatMap(tokens::authenticate);
        RequestAttributes attributes = attributes(user.orElse(null), request);
        if (user.isEmpty()) {
            refuse(ctx, attributes, StatusError.unauthorized());
        } else if (policy.isPresent() && !policy.get().authorizes(attributes)) {
            refuse(
                    ctx,
                    attributes,
                    attributes.resourceRequest()
                            ? StatusError.forbidden(
                                    ResourceType.byPlural(attributes.resource()),
                                    attributes.name(),
                                    attributes.forbiddenMessage())
                            : StatusError.forbidden(attributes.forbiddenMessage()));
        } else {
            ctx.next();
        }
    }

    private void refuse(RoutingContext ctx, RequestAttributes a, StatusError error) {
        if (MUTATIONS.contains(a.verb())) {
            String subject = !a.resourceRequest()
                    ? a.path()
                    : a.name() == null
                            ? Subjects.ofCollection(a.namespace(), a.resource())
                            : Subjects.of(a.namespace(), a.resource(), a.name());
            AccessDenial denial = new AccessDenial(
                    a.user() == null ? null : a.user().name(),
                    a.user() == null ? List.of() : a.user().groups(),
                    a.verb(),
                    a.resource(),
                    a.subresource(),
                    a.namespace(),
                    a.name(),
                    a.path(),
                    error.status());
            writer.append(Event.request(
                    UUID.randomUUID().toString(),
                    Registry.SOURCE,
                    EventTypes.ACCESS_DENIED,
                    subject,
                    clock.now(),
                    ctx.request().getHeader("traceparent"),
                    denial));
        }
        Responses.end(ctx, error);
    }

    /**
     * The request as the authorizer sees it; a path that names no resource this server serves is a non-resource one.
     */
    private static RequestAttributes attributes(UserInfo user, HttpServerRequest request) {
        String method = request.method().name();
        try {
            if (ApiPaths.parse(request.path()) instanceof ApiPaths.Resource r) {
                return RequestAttributes.resource(
                        user,
                        method,
                        WatchRoute.isWatch(request),
                        r.type().group(),
                        r.type().plural(),
                        r.subresource(),
                        r.namespace(),
                        r.name(),
                        request.path());
            }
        } catch (StatusError notServed) {
            // Not a resource path: decided by its path; the handlers answer 404 if it is allowed.
        }
        return RequestAttributes.nonResource(user, method, request.path());
    }

    private static Optional<String> bearerToken(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Optional.empty();
        }
        String token = authorization.substring(7).trim();
        return token.isEmpty() ? Optional.empty() : Optional.of(token);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
