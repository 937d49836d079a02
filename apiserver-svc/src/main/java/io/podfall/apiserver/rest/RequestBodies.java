package io.podfall.apiserver.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.podfall.apiserver.registry.DeleteOptionsReader;
import io.podfall.apiserver.registry.StatusError;
import io.podfall.model.Json;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.k8s.ResourceType;
import java.io.IOException;
import java.util.List;
import java.util.Locale;

/** Reading request bodies and query options the way the API server's handlers do, refusing with a Status. */
final class RequestBodies {
    private static final ObjectReader SINGLE_VALUE =
            Json.MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private RequestBodies() {}

    /**
     * JSON only. A missing Content-Type counts as JSON: clients send none on some calls (kubectl's {@code PUT
     * .../scale}), and the Python client sends {@code application/json} even without a body.
     */
    static void requireJson(String contentType) {
        if (!isJson(contentType)) {
            throw StatusError.unsupportedMediaType(contentType);
        }
    }

    private static boolean isJson(String contentType) {
        return contentType == null
                || contentType.isBlank()
                || mediaType(contentType).equals("application/json");
    }

    private static String mediaType(String contentType) {
        return contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    }

    /**
     * The object of a POST or PUT, with {@code kind} and {@code apiVersion} taken from the URL when the body lacks them
     * (the Python client omits them). JSON, or the protobuf kubectl 1.32 sends for a few kinds
     * ({@link KubernetesProtobuf}).
     */
    static ObjectNode object(ResourceType type, String contentType, byte[] body) {
        JsonNode tree;
        if (!isJson(contentType) && mediaType(contentType).equals(KubernetesProtobuf.MEDIA_TYPE)) {
            tree = KubernetesProtobuf.decode(body);
        } else {
            requireJson(contentType);
            tree = parse(body);
        }
        if (!(tree instanceof ObjectNode object)) {
            throw StatusError.badRequest("the body of the request must be a JSON object");
        }
        if (!object.hasNonNull("apiVersion")) {
            object.put("apiVersion", type.apiVersion());
        }
        if (!object.hasNonNull("kind")) {
            object.put("kind", type.kind());
        }
        return object;
    }

    /**
     * The Scale of a PUT to {@code /scale}, as sent: the registry reads its replicas and resourceVersion when it
     * applies it to the workload ({@code kubectl scale --current-replicas} sends it without a Content-Type).
     */
    static ObjectNode scale(String contentType, byte[] body) {
        return jsonObject(contentType, body, "Scale");
    }

    /**
     * The Eviction of a POST to a pod's {@code /eviction}, as sent (kubectl drain sends JSON): the registry checks its
     * kind, name and options.
     */
    static ObjectNode eviction(String contentType, byte[] body) {
        return jsonObject(contentType, body, "Eviction");
    }

    private static ObjectNode jsonObject(String contentType, byte[] body, String kind) {
        requireJson(contentType);
        if (!(parse(body) instanceof ObjectNode object)) {
            throw StatusError.badRequest("the body of the request must be a JSON object (" + kind + ")");
        }
        return object;
    }

    /** The patch type of a PATCH: its media type, one of {@link PatchRequest}'s; any other is 415. */
    static String patchType(String contentType) {
        String mediaType =
                contentType == null ? "" : contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        if (!PatchRequest.TYPES.contains(mediaType)) {
            throw StatusError.unsupportedMediaType(PatchRequest.TYPES);
        }
        return mediaType;
    }

    /** The body of a PATCH, kept as the client sent it: the registry applies it when it reads the request back. */
    static JsonNode patch(byte[] body) {
        return parse(body);
    }

    /**
     * DeleteOptions of a DELETE: from the body when there is one, else from the query
     * ({@code staging/src/k8s.io/apiserver/pkg/endpoints/handlers/delete.go} does the same).
     */
    static DeleteOptions deleteOptions(
            String contentType, byte[] body, String gracePeriodSeconds, String propagationPolicy, List<String> dryRun) {
        // len(body) > 0, as delete.go: whitespace is a body, and no DeleteOptions.
        if (body != null && body.length > 0) {
            requireJson(contentType);
            JsonNode tree = parse(body);
            if (!tree.isObject()) {
                throw StatusError.badRequest("the body of the request must be a JSON object (DeleteOptions)");
            }
            return DeleteOptionsReader.read(
                    tree, "DeleteOptions in version \"v1\" cannot be handled as a DeleteOptions: ");
        }
        DeleteOptions options = new DeleteOptions();
        if (gracePeriodSeconds != null && !gracePeriodSeconds.isEmpty()) {
            try {
                // strconv.ParseInt, as the query's conversion to DeleteOptions parses it: no spaces around the digits.
                options.setGracePeriodSeconds(Long.parseLong(gracePeriodSeconds));
            } catch (NumberFormatException e) {
                throw StatusError.badRequest(
                        "gracePeriodSeconds: invalid value " + gracePeriodSeconds + ": not an integer");
            }
        }
        if (propagationPolicy != null && !propagationPolicy.isEmpty()) {
            options.setPropagationPolicy(propagationPolicy);
        }
        if (dryRun != null && !dryRun.isEmpty()) {
            options.setDryRun(dryRun);
        }
        return options;
    }

    /**
     * Every {@code dryRun} value in the query of {@code uri}, "" included ({@code ?dryRun=}), which upstream's
     * ValidateDryRun refuses as not "All"
     * ({@code staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go}); a JAX-RS list parameter did
     * not carry it, so a request asking for a dry run that way was carried out.
     */
    static List<String> dryRun(String uri) {
        return new QueryStringDecoder(uri).parameters().getOrDefault("dryRun", List.of());
    }

    /**
     * One JSON value and nothing after it, as Go's decoder reads a body ("invalid character after top-level value").
     */
    private static JsonNode parse(byte[] body) {
        if (body == null || body.length == 0) {
            throw StatusError.badRequest("the body of the request is empty");
        }
        try {
            JsonNode tree = SINGLE_VALUE.readTree(body);
            if (tree == null || tree.isMissingNode()) {
                throw StatusError.badRequest("the body of the request is empty");
            }
            return tree;
        } catch (IOException e) {
            String why = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
            throw StatusError.badRequest("the body of the request is not valid JSON: " + why);
        }
    }
}
