package io.podfall.apiserver.rest;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;

/**
 * {@code /api}, {@code /apis}, {@code /version} and the OpenAPI trick for {@code kubectl create}. ({@code /api/v1}
 * is served by {@link CoreV1Resource}: JAX-RS picks the root resource with the longest matching path and does not
 * fall back to another one.)
 */
@Path("/")
public class DiscoveryResource {

    @GET
    @Path("api")
    public Response api() {
        return Responses.json(200, Discovery.apiVersions());
    }

    @GET
    @Path("apis")
    public Response apis() {
        return Responses.json(200, Discovery.apiGroupList());
    }

    @GET
    @Path("version")
    public Response version() {
        return Responses.json(200, Discovery.version());
    }

    /**
     * kubectl decodes this as protobuf whatever its content type; zero bytes are a valid empty OpenAPI document,
     * so client-side validation finds no schema and skips itself. A 404 would make {@code kubectl create} fail.
     * (/openapi/v3 is not served: its 404 makes kubectl 1.32 fall back to v2.)
     */
    @GET
    @Path("openapi/v2")
    public Response openApiV2() {
        return Response.ok(new byte[0], "application/octet-stream").build();
    }
}
