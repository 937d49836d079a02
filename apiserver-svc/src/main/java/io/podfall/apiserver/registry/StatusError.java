package io.podfall.apiserver.registry;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.StatusCauseBuilder;
import io.fabric8.kubernetes.api.model.StatusDetails;
import io.fabric8.kubernetes.api.model.StatusDetailsBuilder;
import io.podfall.model.k8s.ResourceType;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A refusal carrying the Kubernetes {@link Status} the client receives, with the messages, reasons and details of
 * {@code staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go}: kubectl prints {@code Error from server (<reason>):
 * <message>}, so the wording is upstream's.
 */
public final class StatusError extends RuntimeException {
    private final transient Status status;

    private StatusError(Status status) {
        super(status.getMessage(), null, false, false);
        this.status = status;
    }

    public Status status() {
        return status;
    }

    /** {@code NewNotFound}: {@code pods "web-1" not found}. */
    public static StatusError notFound(ResourceType type, String name) {
        return failure(
                404,
                "NotFound",
                type.qualifiedName() + " " + quote(name) + " not found",
                details(name, type.group(), type.plural()));
    }

    /** {@code NewAlreadyExists}: {@code pods "web-1" already exists}. */
    public static StatusError alreadyExists(ResourceType type, String name) {
        return failure(
                409,
                "AlreadyExists",
                type.qualifiedName() + " " + quote(name) + " already exists",
                details(name, type.group(), type.plural()));
    }

    /**
     * {@code NewConflict}: {@code Operation cannot be fulfilled on <resource> "<name>": <why>}. The resource is the one
     * upstream names at that place ({@code pods}, {@code pods/binding}, or the kind {@code Pod} in the preconditions of
     * {@code rest.BeforeDelete}).
     */
    public static StatusError conflict(String resource, String name, String why) {
        return failure(
                409,
                "Conflict",
                "Operation cannot be fulfilled on " + resource + " " + quote(name) + ": " + why,
                details(name, "", resource));
    }

    /** {@code NewInvalid}: {@code Pod "web-1" is invalid: <field errors>}, one cause per field error. */
    public static StatusError invalid(
            String qualifiedKind, String kind, String group, String name, List<FieldError> errors) {
        List<StatusCause> causes = errors.stream()
                .map(e -> new StatusCauseBuilder()
                        .withReason(e.type())
                        .withMessage(e.body())
                        .withField(e.field())
                        .build())
                .toList();
        List<String> messages =
                errors.stream().map(FieldError::toString).distinct().toList();
        // utilerrors.NewAggregate: one error prints as itself, several as a bracketed list.
        String aggregate =
                messages.size() == 1 ? messages.get(0) : messages.stream().collect(Collectors.joining(", ", "[", "]"));
        StatusDetails d = details(name, group, kind);
        d.setCauses(causes);
        return failure(422, "Invalid", qualifiedKind + " " + quote(name) + " is invalid: " + aggregate, d);
    }

    public static StatusError invalid(ResourceType type, String name, List<FieldError> errors) {
        return invalid(
                type.group().isEmpty() ? type.kind() : type.kind() + "." + type.group(),
                type.kind(),
                type.group(),
                name,
                errors);
    }

    /**
     * {@code NewForbidden}: {@code namespaces "default" is forbidden: this namespace may not be deleted}, or without
     * the name when there is none; {@code causes} as the refusing admission plugin adds them.
     */
    public static StatusError forbidden(ResourceType type, String name, String why, StatusCause... causes) {
        return forbidden(type.group(), type.plural(), name, why, causes);
    }

    /**
     * {@code NewForbidden} of a resource named otherwise than its kind's plural (the Eviction API names
     * {@code poddisruptionbudget} in the singular).
     */
    public static StatusError forbidden(String group, String resource, String name, String why, StatusCause... causes) {
        String qualified = group.isEmpty() ? resource : resource + "." + group;
        String subject = name == null || name.isEmpty() ? qualified : qualified + " " + quote(name);
        StatusDetails d = details(name == null ? "" : name, group, resource);
        if (causes.length > 0) {
            d.setCauses(List.of(causes));
        }
        return failure(403, "Forbidden", subject + " is forbidden: " + why, d);
    }

    /**
     * {@code NewForbidden} of a request that names no resource: {@code forbidden: User "bob" cannot get path
     * "/version"}.
     */
    public static StatusError forbidden(String why) {
        return failure(403, "Forbidden", "forbidden: " + why, new StatusDetails());
    }

    /** {@code NewUnauthorized("Unauthorized")}, what a request that no authenticator accepts gets. */
    public static StatusError unauthorized() {
        return failure(401, "Unauthorized", "Unauthorized", null);
    }

    /** {@code NewBadRequest}: no details. */
    public static StatusError badRequest(String message) {
        return failure(400, "BadRequest", message, null);
    }

    /** What the API server answers for a path it does not serve. */
    public static StatusError pathNotFound() {
        return failure(404, "NotFound", "the server could not find the requested resource", new StatusDetails());
    }

    public static StatusError methodNotAllowed() {
        return failure(
                405,
                "MethodNotAllowed",
                "the server does not allow this method on the requested resource",
                new StatusDetails());
    }

    /**
     * {@code negotiation.NewUnsupportedMediaTypeError}: JSON, and the protobuf of the kinds kubectl sends that way (see
     * {@code rest.KubernetesProtobuf}); {@code what} tells what was sent instead.
     */
    public static StatusError unsupportedMediaType(String what) {
        return failure(
                415,
                "UnsupportedMediaType",
                "the body of the request was in an unknown format - accepted media "
                        + "types include: application/json, application/vnd.kubernetes.protobuf (got " + what + ")",
                null);
    }

    /**
     * {@code NewUnsupportedMediaTypeError} of a PATCH, which names the patch types the resource accepts
     * ({@code staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go}).
     */
    public static StatusError unsupportedMediaType(List<String> accepted) {
        return failure(
                415,
                "UnsupportedMediaType",
                "the body of the request was in an unknown format - accepted media " + "types include: "
                        + String.join(", ", accepted),
                null);
    }

    /**
     * {@code NewGenericServerResponse(422, ...)}, what a JSON patch that cannot be applied gets: reason Invalid, the
     * patch library's message.
     */
    public static StatusError unprocessable(String message) {
        return failure(422, "Invalid", message, new StatusDetails());
    }

    /**
     * {@code NewResourceExpired}, what a watch from a resourceVersion older than the retained history gets (as a watch
     * ERROR event): {@code too old resource version: 5 (120)}, the requested and the oldest one served.
     */
    public static StatusError expired(long requested, long oldest) {
        return failure(410, "Expired", "too old resource version: " + requested + " (" + oldest + ")", null);
    }

    /**
     * {@code NewRequestEntityTooLargeError}: what a body over the API server's limit gets
     * ({@code staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go} limitedReadBody), and an object too large to
     * store (etcd's request size limit; here, the size of an event on the log).
     */
    public static StatusError requestEntityTooLarge(String message) {
        return failure(413, "RequestEntityTooLarge", "Request entity too large: " + message, null);
    }

    /**
     * {@code NewServiceUnavailable}, with {@code details.retryAfterSeconds} as {@code NewTooManyRequests} and
     * {@code NewServerTimeout} give it: the HTTP layer also sends it as the {@code Retry-After} header, as
     * {@code responsewriters.ErrorNegotiated} does, and client-go waits that long before it tries again.
     */
    public static StatusError serviceUnavailable(String message, int retryAfterSeconds) {
        return failure(
                503,
                "ServiceUnavailable",
                message,
                new StatusDetailsBuilder()
                        .withRetryAfterSeconds(retryAfterSeconds)
                        .build());
    }

    /** {@code NewTimeoutError} as the request timeout filter writes it. */
    public static StatusError timeout() {
        return failure(
                504,
                "Timeout",
                "Timeout: request did not complete within requested timeout - context deadline exceeded",
                new StatusDetails());
    }

    /**
     * {@code NewTooManyRequests} with one cause (its {@code type} is the JSON {@code reason}); a
     * {@code retryAfterSeconds} above 0 is also the {@code Retry-After} header.
     */
    public static StatusError tooManyRequests(
            String message, int retryAfterSeconds, String causeType, String causeMessage) {
        return failure(
                429,
                "TooManyRequests",
                message,
                new StatusDetailsBuilder()
                        // omitempty upstream: a 0 is no field, and no header
                        .withRetryAfterSeconds(retryAfterSeconds > 0 ? retryAfterSeconds : null)
                        .withCauses(new StatusCauseBuilder()
                                .withReason(causeType)
                                .withMessage(causeMessage)
                                .build())
                        .build());
    }

    /**
     * A Status a REST handler returns as its result rather than as an error (the create handler gives the response its
     * code): no reason, no details.
     */
    public static StatusError failure(int code, String message) {
        return failure(code, null, message, null);
    }

    /** {@code NewInternalError}. */
    public static StatusError internal(String message) {
        StatusDetails d = new StatusDetails();
        d.setCauses(List.of(new StatusCauseBuilder().withMessage(message).build()));
        return failure(500, "InternalError", "Internal error occurred: " + message, d);
    }

    private static StatusError failure(int code, String reason, String message, StatusDetails details) {
        return new StatusError(new StatusBuilder()
                .withNewMetadata()
                .endMetadata()
                .withStatus("Failure")
                .withMessage(message)
                .withReason(reason)
                .withDetails(details)
                .withCode(code)
                .build());
    }

    private static StatusDetails details(String name, String group, String kind) {
        return new StatusDetailsBuilder()
                .withName(name)
                .withGroup(group)
                .withKind(kind)
                .build();
    }

    /** Go's {@code %q} for the names and values that appear in messages. */
    static String quote(Object value) {
        return "\"" + String.valueOf(value).replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /**
     * One entry of a {@code field.ErrorList}
     * ({@code staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go}): {@code type} is the cause reason
     * ({@code FieldValueRequired}, {@code FieldValueInvalid}, ...).
     */
    public record FieldError(String type, String field, String body) {
        public static FieldError required(String field, String detail) {
            return new FieldError(
                    "FieldValueRequired", field, detail.isEmpty() ? "Required value" : "Required value: " + detail);
        }

        public static FieldError invalid(String field, Object value, String detail) {
            return new FieldError("FieldValueInvalid", field, "Invalid value: " + quote(value) + ": " + detail);
        }

        /**
         * {@code field.Invalid} with a value that Go prints unquoted (a number, a map: {@code map[string]string{...}}).
         */
        public static FieldError invalidValue(String field, String goValue, String detail) {
            return new FieldError("FieldValueInvalid", field, "Invalid value: " + goValue + ": " + detail);
        }

        public static FieldError forbidden(String field, String detail) {
            return new FieldError("FieldValueForbidden", field, "Forbidden: " + detail);
        }

        /** {@code ValidateImmutableField}. */
        public static FieldError immutable(String field, Object value) {
            return invalid(field, value, "field is immutable");
        }

        public static FieldError notSupported(String field, Object value, List<String> supported) {
            return new FieldError(
                    "FieldValueNotSupported",
                    field,
                    "Unsupported value: " + quote(value) + ": supported values: "
                            + supported.stream().map(StatusError::quote).collect(Collectors.joining(", ")));
        }

        @Override
        public String toString() {
            return field + ": " + body;
        }
    }
}
