package io.podfall.apiserver.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.podfall.adapter.LogProcessor;
import io.podfall.adapter.SimulatedClock;
import io.podfall.apiserver.registry.Kinds;
import io.podfall.apiserver.registry.Outcome;
import io.podfall.apiserver.registry.RegistryState;
import io.podfall.apiserver.registry.Selectors;
import io.podfall.apiserver.registry.StatusError;
import io.podfall.apiserver.registry.WorkloadStrategy;
import io.podfall.apiserver.rest.ApiPaths.Document;
import io.podfall.apiserver.rest.ApiPaths.Resource;
import io.podfall.model.apiserver.CollectionDeletionRequest;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.EvictionRequest;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.apiserver.UpdateRequest;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import io.vertx.core.http.HttpServerRequest;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The Kubernetes HTTP API, routed by resource rather than by method: every path under {@code /api} and {@code /apis} is
 * resolved by {@link ApiPaths} to a discovery document or to a resource (type, namespace, name, subresource), and the
 * verb decides what happens to it, for every kind alike. Writes become requests on the log (see
 * {@link RequestTracker}); reads copy from the registry's state under the processor's lock; both are refused with 503
 * until the service has rebuilt its state from the log. Watches are served before this, by {@link WatchRoute}.
 */
@Path("/")
public class ApiResource {
    private static final String API_PATHS = "{path: apis?(/.*)?}";
    private static final String CONTENT_TYPE = "Content-Type";
    private static final String TRACEPARENT = "traceparent";
    private static final String ACCEPT = "Accept";
    /** A rebuild from the log takes seconds: a client asked to wait one second tries again soon after it ends. */
    static final int REBUILDING_RETRY_AFTER_SECONDS = 1;

    @Inject
    LogProcessor processor;

    @Inject
    RequestTracker requests;

    @Inject
    SimulatedClock clock;

    /** Discovery, a LIST (a collection), a GET of an object or of its subresource. */
    @GET
    @Path(API_PATHS)
    public Response get(
            @PathParam("path") String path,
            @HeaderParam(ACCEPT) String accept,
            @QueryParam("fieldSelector") String fieldSelector,
            @QueryParam("labelSelector") String labelSelector,
            @QueryParam("includeObject") String includeObject) {
        try {
            ApiPaths.Target target = ApiPaths.parse(path);
            if (target instanceof Document document) {
                return Responses.json(200, document.body());
            }
            Resource r = (Resource) target;
            if (!Kinds.readable(r.subresource())) {
                throw StatusError.methodNotAllowed();
            }
            requireLive();
            if (r.collection()) {
                return list(r, fieldSelector, labelSelector, accept, includeObject);
            }
            return get(r, accept, includeObject);
        } catch (StatusError e) {
            return Responses.status(e);
        }
    }

    /**
     * POST to a collection: {@code apiserver.CreationRequested}; to a pod's {@code /eviction} (the one subresource
     * created, not updated): {@code apiserver.EvictionRequested} with the Eviction, which the registry reads.
     */
    @POST
    @Path(API_PATHS)
    public CompletionStage<Response> create(
            @PathParam("path") String path,
            @HeaderParam(CONTENT_TYPE) String contentType,
            @HeaderParam(TRACEPARENT) String traceparent,
            @Context HttpServerRequest http,
            byte[] body) {
        return submit(() -> {
            if (ApiPaths.parse(path) instanceof Resource e && Kinds.EVICTION.equals(e.subresource())) {
                refuseDryRun(http);
                return requests.submit(
                        EventTypes.EVICTION_REQUESTED,
                        subject(e),
                        traceparent,
                        new EvictionRequest(e.namespace(), e.name(), RequestBodies.eviction(contentType, body)));
            }
            Resource r = resource(path, true);
            if (r.namespace() == null) {
                throw StatusError.methodNotAllowed();
            }
            refuseDryRun(http);
            ObjectNode object = RequestBodies.object(r.type(), contentType, body);
            String name = object.path("metadata").path("name").asText("");
            return requests.submit(
                    EventTypes.CREATION_REQUESTED,
                    Subjects.of(r.namespace(), r.type().plural(), name),
                    traceparent,
                    new CreationRequest(r.type().plural(), r.namespace(), object));
        });
    }

    /**
     * PUT of an object, its {@code /status} or its {@code /scale}: {@code apiserver.UpdateRequested}. The body of
     * {@code /scale} is a Scale (kubectl sends it with no Content-Type, which counts as JSON).
     */
    @PUT
    @Path(API_PATHS)
    public CompletionStage<Response> update(
            @PathParam("path") String path,
            @HeaderParam(CONTENT_TYPE) String contentType,
            @HeaderParam(TRACEPARENT) String traceparent,
            @Context HttpServerRequest http,
            byte[] body) {
        return submit(() -> {
            Resource r = resource(path, false);
            if (!Kinds.updatable(r.subresource())) {
                throw StatusError.methodNotAllowed();
            }
            refuseDryRun(http);
            ObjectNode object = Kinds.SCALE.equals(r.subresource())
                    ? RequestBodies.scale(contentType, body)
                    : RequestBodies.object(r.type(), contentType, body);
            return requests.submit(
                    EventTypes.UPDATE_REQUESTED,
                    subject(r),
                    traceparent,
                    new UpdateRequest(r.type().plural(), r.namespace(), r.name(), r.subresource(), object));
        });
    }

    /**
     * PATCH of an object or a subresource: {@code apiserver.PatchRequested}, applied by the registry to what it stores.
     */
    @PATCH
    @Path(API_PATHS)
    public CompletionStage<Response> patch(
            @PathParam("path") String path,
            @HeaderParam(CONTENT_TYPE) String contentType,
            @HeaderParam(TRACEPARENT) String traceparent,
            @Context HttpServerRequest http,
            byte[] body) {
        return submit(() -> {
            Resource r = resource(path, false);
            if (!Kinds.readable(r.subresource())) {
                throw StatusError.methodNotAllowed();
            }
            refuseDryRun(http);
            String patchType = RequestBodies.patchType(contentType);
            return requests.submit(
                    EventTypes.PATCH_REQUESTED,
                    subject(r),
                    traceparent,
                    new PatchRequest(
                            r.type().plural(),
                            r.namespace(),
                            r.name(),
                            r.subresource(),
                            patchType,
                            RequestBodies.patch(body)));
        });
    }

    /**
     * DELETE of an object ({@code apiserver.DeletionRequested}) or of a collection, the {@code deletecollection} verb
     * ({@code apiserver.CollectionDeletionRequested}, with the LIST's label and field selectors): DeleteOptions from
     * the body or the query. A collection is deleted within one namespace (or, cluster-scoped, everywhere); upstream
     * serves no deletecollection across all namespaces, nor of namespaces.
     */
    @DELETE
    @Path(API_PATHS)
    public CompletionStage<Response> delete(
            @PathParam("path") String path,
            @HeaderParam(CONTENT_TYPE) String contentType,
            @HeaderParam(TRACEPARENT) String traceparent,
            @QueryParam("gracePeriodSeconds") String gracePeriodSeconds,
            @QueryParam("propagationPolicy") String propagationPolicy,
            @Context HttpServerRequest http,
            @QueryParam("fieldSelector") String fieldSelector,
            @QueryParam("labelSelector") String labelSelector,
            byte[] body) {
        return submit(() -> {
            if (!(ApiPaths.parse(path) instanceof Resource r)
                    || r.subresource() != null
                    || (r.collection() && (r.namespace() == null || !Kinds.collectionDeletable(r.type())))) {
                throw StatusError.methodNotAllowed();
            }
            DeleteOptions options =
                    RequestBodies.deleteOptions(contentType, body, gracePeriodSeconds, propagationPolicy, dryRun(http));
            if (r.collection()) {
                // Parsed here too, so a selector the LIST would refuse never reaches the log.
                Selectors.parse(r.type(), fieldSelector, labelSelector);
                return requests.submit(
                        EventTypes.COLLECTION_DELETION_REQUESTED,
                        Subjects.ofCollection(r.namespace(), r.type().plural()),
                        traceparent,
                        new CollectionDeletionRequest(
                                r.type().plural(), r.namespace(), labelSelector, fieldSelector, options));
            }
            return requests.submit(
                    EventTypes.DELETION_REQUESTED,
                    subject(r),
                    traceparent,
                    new DeletionRequest(r.type().plural(), r.namespace(), r.name(), options));
        });
    }

    @GET
    @Path("version")
    public Response version() {
        return Responses.json(200, Discovery.version());
    }

    /**
     * kubectl decodes this as protobuf whatever its content type; zero bytes are a valid empty OpenAPI document, so
     * client-side validation finds no schema and skips itself. A 404 would make {@code kubectl create} fail.
     * (/openapi/v3 is not served: its 404 makes kubectl 1.32 fall back to v2.)
     */
    @GET
    @Path("openapi/v2")
    public Response openApiV2() {
        return Response.ok(new byte[0], "application/octet-stream").build();
    }

    /** The resource a write goes to: a collection for a POST, an object (or its subresource) for the rest; else 405. */
    private static Resource resource(String path, boolean collection) {
        if (!(ApiPaths.parse(path) instanceof Resource r) || r.collection() != collection) {
            throw StatusError.methodNotAllowed();
        }
        return r;
    }

    private static String subject(Resource r) {
        return Subjects.of(r.namespace(), r.type().plural(), r.name());
    }

    private static List<String> dryRun(HttpServerRequest http) {
        return RequestBodies.dryRun(http.uri());
    }

    private static void refuseDryRun(HttpServerRequest http) {
        if (!dryRun(http).isEmpty()) {
            // A dry run stores nothing, so it has no fact for the log; refused rather than answered from a guess.
            throw StatusError.badRequest("dryRun is not supported by this API server");
        }
    }

    private CompletionStage<Response> submit(Supplier<CompletionStage<Outcome>> request) {
        try {
            requireLive();
            return request.get().thenApply(o -> Responses.json(o.code(), o.body()));
        } catch (StatusError e) {
            return CompletableFuture.completedFuture(Responses.status(e));
        }
    }

    /**
     * GET of one object; with a Table Accept header, a one-row Table (what {@code kubectl get pod NAME} prints).
     * {@code /status} shows the whole object, as upstream; {@code /scale} the workload's Scale.
     */
    private Response get(Resource r, String accept, String includeObject) {
        JsonNode object = processor
                .read(RegistryState.class, s -> s.tree(r.type(), r.namespace(), r.name()))
                .orElseThrow(() -> StatusError.notFound(r.type(), r.name()));
        if (Kinds.SCALE.equals(r.subresource())) {
            return Responses.json(200, WorkloadStrategy.scale(object));
        }
        Optional<Tables.Format> table = tableFormat(accept, includeObject);
        if (table.isPresent()) {
            return Responses.json(
                    200,
                    Tables.table(
                            r.type(),
                            List.of(object),
                            object.path("metadata").path("resourceVersion").asText(""),
                            clock.now(),
                            table.get()));
        }
        return Responses.json(200, object);
    }

    /**
     * LIST, as a {@code <Kind>List} or, with a Table Accept header, a Table. Its resourceVersion is the registry's
     * current one, which a watch can always start from (see {@link WatchHistory}). {@code limit} is ignored: everything
     * fits in one page, and no {@code continue} token is returned.
     */
    private Response list(Resource r, String fieldSelector, String labelSelector, String accept, String includeObject) {
        ResourceType type = r.type();
        Selectors selectors = Selectors.parse(type, fieldSelector, labelSelector);
        Optional<Tables.Format> table = tableFormat(accept, includeObject);
        ObjectNode list = processor.read(RegistryState.class, s -> {
            String resourceVersion = Long.toString(s.resourceVersion());
            List<JsonNode> items = s.trees(type, r.namespace()).stream()
                    .filter(selectors::matches)
                    .toList();
            return table.isPresent()
                    ? Tables.table(type, items, resourceVersion, clock.now(), table.get())
                    : Kinds.list(type, resourceVersion, items);
        });
        return Responses.json(200, list);
    }

    private static Optional<Tables.Format> tableFormat(String accept, String includeObject) {
        return Tables.requestedVersion(accept)
                .map(v -> new Tables.Format(v, Tables.IncludeObject.parse(includeObject)));
    }

    private void requireLive() {
        if (!processor.isLive()) {
            throw rebuilding();
        }
    }

    /**
     * The 503 of a request that comes while the API server is rebuilding its state from the log, with a
     * {@code Retry-After}: a client that honours it (client-go, {@code podfall demo}) waits and tries again.
     */
    static StatusError rebuilding() {
        return StatusError.serviceUnavailable(
                "the API server is rebuilding its state from the log; try again shortly",
                REBUILDING_RETRY_AFTER_SECONDS);
    }
}
