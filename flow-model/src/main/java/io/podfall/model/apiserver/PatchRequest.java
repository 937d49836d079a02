package io.podfall.model.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * {@code PATCH /api/v1/namespaces/{namespace}/{resource}/{name}[/{subresource}]}: the patch as the client sent it,
 * applied by the API server to the object as stored when it reads the request from the log.
 *
 * @param patchType the media type, as upstream's {@code types.PatchType}: {@code application/merge-patch+json} (RFC
 *     7386), {@code application/json-patch+json} (RFC 6902) or {@code application/strategic-merge-patch+json}
 */
public record PatchRequest(
        String resource, String namespace, String name, String subresource, String patchType, JsonNode patch) {
    public static final String MERGE = "application/merge-patch+json";
    public static final String JSON = "application/json-patch+json";
    public static final String STRATEGIC = "application/strategic-merge-patch+json";
    /** The patch types, in upstream's order ({@code application/apply-patch+yaml}, server-side apply, is not one). */
    public static final List<String> TYPES = List.of(JSON, MERGE, STRATEGIC);
}
