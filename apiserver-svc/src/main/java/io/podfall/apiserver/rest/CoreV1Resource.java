package io.podfall.apiserver.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.adapter.LogProcessor;
import io.podfall.adapter.SimulatedClock;
import io.podfall.apiserver.registry.Outcome;
import io.podfall.apiserver.registry.RegistryState;
import io.podfall.apiserver.registry.StatusError;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.apiserver.UpdateRequest;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
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
import jakarta.ws.rs.core.Response;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The core/v1 objects podfall serves: pods and nodes. Writes become requests on the log (see
 * {@link RequestTracker}); reads copy from the registry's state under the processor's lock. Both are refused
 * with 503 until the service has rebuilt its state from the log.
 */
@Path("/api/v1")
public class CoreV1Resource {
    private static final String CONTENT_TYPE = "Content-Type";
    private static final String TRACEPARENT = "traceparent";
    private static final String ACCEPT = "Accept";
    private static final String INCLUDE_OBJECT = "includeObject";

    @Inject
    LogProcessor processor;
    @Inject
    RequestTracker requests;
    @Inject
    SimulatedClock clock;

    /** Discovery of the core group: the resources, with the short names and categories kubectl needs. */
    @GET
    public Response resources() {
        return Responses.json(200, Discovery.coreV1Resources());
    }

    @POST
    @Path("namespaces/{namespace}/pods")
    public CompletionStage<Response> createPod(@PathParam("namespace") String namespace, @HeaderParam(CONTENT_TYPE) String contentType,
                                               @HeaderParam(TRACEPARENT) String traceparent, @QueryParam("dryRun") List<String> dryRun,
                                               byte[] body) {
        return create(ResourceType.PODS, namespace, contentType, traceparent, dryRun, body);
    }

    @GET
    @Path("namespaces/{namespace}/pods")
    public Response listPods(@PathParam("namespace") String namespace, @QueryParam("fieldSelector") String fieldSelector,
                             @QueryParam("labelSelector") String labelSelector, @HeaderParam(ACCEPT) String accept,
                             @QueryParam(INCLUDE_OBJECT) String includeObject) {
        return list(ResourceType.PODS, namespace, fieldSelector, labelSelector, accept, includeObject);
    }

    @GET
    @Path("pods")
    public Response listAllPods(@QueryParam("fieldSelector") String fieldSelector, @QueryParam("labelSelector") String labelSelector,
                                @HeaderParam(ACCEPT) String accept, @QueryParam(INCLUDE_OBJECT) String includeObject) {
        return list(ResourceType.PODS, null, fieldSelector, labelSelector, accept, includeObject);
    }

    @GET
    @Path("namespaces/{namespace}/pods/{name}")
    public Response getPod(@PathParam("namespace") String namespace, @PathParam("name") String name,
                           @HeaderParam(ACCEPT) String accept, @QueryParam(INCLUDE_OBJECT) String includeObject) {
        return get(ResourceType.PODS, namespace, name, accept, includeObject);
    }

    @DELETE
    @Path("namespaces/{namespace}/pods/{name}")
    public CompletionStage<Response> deletePod(@PathParam("namespace") String namespace, @PathParam("name") String name,
                                               @HeaderParam(CONTENT_TYPE) String contentType, @HeaderParam(TRACEPARENT) String traceparent,
                                               @QueryParam("gracePeriodSeconds") String gracePeriodSeconds,
                                               @QueryParam("propagationPolicy") String propagationPolicy,
                                               @QueryParam("dryRun") List<String> dryRun, byte[] body) {
        return delete(ResourceType.PODS, namespace, name, contentType, traceparent, gracePeriodSeconds, propagationPolicy, dryRun, body);
    }

    /** PUT of a pod, or with {@code /status} of its status: {@code apiserver.UpdateRequested}. */
    @PUT
    @Path("namespaces/{namespace}/pods/{name}{subresource: (/status)?}")
    public CompletionStage<Response> updatePod(@PathParam("namespace") String namespace, @PathParam("name") String name,
                                               @PathParam("subresource") String subresource, @HeaderParam(CONTENT_TYPE) String contentType,
                                               @HeaderParam(TRACEPARENT) String traceparent, @QueryParam("dryRun") List<String> dryRun,
                                               byte[] body) {
        return update(ResourceType.PODS, namespace, name, subresource, contentType, traceparent, dryRun, body);
    }

    /** PATCH of a pod or its status: {@code apiserver.PatchRequested}, applied by the registry to the stored pod. */
    @PATCH
    @Path("namespaces/{namespace}/pods/{name}{subresource: (/status)?}")
    public CompletionStage<Response> patchPod(@PathParam("namespace") String namespace, @PathParam("name") String name,
                                              @PathParam("subresource") String subresource, @HeaderParam(CONTENT_TYPE) String contentType,
                                              @HeaderParam(TRACEPARENT) String traceparent, @QueryParam("dryRun") List<String> dryRun,
                                              byte[] body) {
        return patch(ResourceType.PODS, namespace, name, subresource, contentType, traceparent, dryRun, body);
    }

    @POST
    @Path("nodes")
    public CompletionStage<Response> createNode(@HeaderParam(CONTENT_TYPE) String contentType, @HeaderParam(TRACEPARENT) String traceparent,
                                                @QueryParam("dryRun") List<String> dryRun, byte[] body) {
        return create(ResourceType.NODES, "", contentType, traceparent, dryRun, body);
    }

    @GET
    @Path("nodes")
    public Response listNodes(@QueryParam("fieldSelector") String fieldSelector, @QueryParam("labelSelector") String labelSelector,
                              @HeaderParam(ACCEPT) String accept, @QueryParam(INCLUDE_OBJECT) String includeObject) {
        return list(ResourceType.NODES, null, fieldSelector, labelSelector, accept, includeObject);
    }

    @GET
    @Path("nodes/{name}")
    public Response getNode(@PathParam("name") String name, @HeaderParam(ACCEPT) String accept,
                            @QueryParam(INCLUDE_OBJECT) String includeObject) {
        return get(ResourceType.NODES, "", name, accept, includeObject);
    }

    @DELETE
    @Path("nodes/{name}")
    public CompletionStage<Response> deleteNode(@PathParam("name") String name, @HeaderParam(CONTENT_TYPE) String contentType,
                                                @HeaderParam(TRACEPARENT) String traceparent,
                                                @QueryParam("gracePeriodSeconds") String gracePeriodSeconds,
                                                @QueryParam("propagationPolicy") String propagationPolicy,
                                                @QueryParam("dryRun") List<String> dryRun, byte[] body) {
        return delete(ResourceType.NODES, "", name, contentType, traceparent, gracePeriodSeconds, propagationPolicy, dryRun, body);
    }

    @PUT
    @Path("nodes/{name}{subresource: (/status)?}")
    public CompletionStage<Response> updateNode(@PathParam("name") String name, @PathParam("subresource") String subresource,
                                                @HeaderParam(CONTENT_TYPE) String contentType, @HeaderParam(TRACEPARENT) String traceparent,
                                                @QueryParam("dryRun") List<String> dryRun, byte[] body) {
        return update(ResourceType.NODES, "", name, subresource, contentType, traceparent, dryRun, body);
    }

    @PATCH
    @Path("nodes/{name}{subresource: (/status)?}")
    public CompletionStage<Response> patchNode(@PathParam("name") String name, @PathParam("subresource") String subresource,
                                               @HeaderParam(CONTENT_TYPE) String contentType, @HeaderParam(TRACEPARENT) String traceparent,
                                               @QueryParam("dryRun") List<String> dryRun, byte[] body) {
        return patch(ResourceType.NODES, "", name, subresource, contentType, traceparent, dryRun, body);
    }

    private CompletionStage<Response> create(ResourceType type, String namespace, String contentType, String traceparent,
                                             List<String> dryRun, byte[] body) {
        return submit(() -> {
            refuseDryRun(dryRun);
            ObjectNode object = RequestBodies.object(type, contentType, body);
            String name = object.path("metadata").path("name").asText("");
            return requests.submit(EventTypes.CREATION_REQUESTED, Subjects.of(namespace, type.plural(), name), traceparent,
                    new CreationRequest(type.plural(), namespace, object));
        });
    }

    private CompletionStage<Response> update(ResourceType type, String namespace, String name, String subresource, String contentType,
                                             String traceparent, List<String> dryRun, byte[] body) {
        return submit(() -> {
            refuseDryRun(dryRun);
            ObjectNode object = RequestBodies.object(type, contentType, body);
            return requests.submit(EventTypes.UPDATE_REQUESTED, Subjects.of(namespace, type.plural(), name), traceparent,
                    new UpdateRequest(type.plural(), namespace, name, subresourceName(subresource), object));
        });
    }

    private CompletionStage<Response> patch(ResourceType type, String namespace, String name, String subresource, String contentType,
                                            String traceparent, List<String> dryRun, byte[] body) {
        return submit(() -> {
            refuseDryRun(dryRun);
            String patchType = RequestBodies.patchType(contentType);
            return requests.submit(EventTypes.PATCH_REQUESTED, Subjects.of(namespace, type.plural(), name), traceparent,
                    new PatchRequest(type.plural(), namespace, name, subresourceName(subresource), patchType, RequestBodies.patch(body)));
        });
    }

    /** The optional {@code /status} path segment as the subresource's name, null for the object itself. */
    private static String subresourceName(String segment) {
        return segment == null || segment.isEmpty() ? null : segment.substring(1);
    }

    private static void refuseDryRun(List<String> dryRun) {
        if (dryRun != null && !dryRun.isEmpty()) {
            // A dry run stores nothing, so it has no fact for the log; refused rather than answered from a guess.
            throw StatusError.badRequest("dryRun is not supported by this API server");
        }
    }

    private CompletionStage<Response> delete(ResourceType type, String namespace, String name, String contentType, String traceparent,
                                             String gracePeriodSeconds, String propagationPolicy, List<String> dryRun, byte[] body) {
        return submit(() -> requests.submit(EventTypes.DELETION_REQUESTED, Subjects.of(namespace, type.plural(), name), traceparent,
                new DeletionRequest(type.plural(), namespace, name,
                        RequestBodies.deleteOptions(contentType, body, gracePeriodSeconds, propagationPolicy, dryRun))));
    }

    private CompletionStage<Response> submit(Supplier<CompletionStage<Outcome>> request) {
        try {
            requireLive();
            return request.get().thenApply(o -> Responses.json(o.code(), o.body()));
        } catch (StatusError e) {
            return CompletableFuture.completedFuture(Responses.status(e));
        }
    }

    /** GET of one object; with a Table Accept header, a one-row Table (what {@code kubectl get pod NAME} prints). */
    private Response get(ResourceType type, String namespace, String name, String accept, String includeObject) {
        try {
            requireLive();
            Optional<Tables.Format> table = tableFormat(accept, includeObject);
            JsonNode object = processor.read(RegistryState.class, s -> s.get(type, namespace, name).map(Json::tree))
                    .orElseThrow(() -> StatusError.notFound(type, name));
            if (table.isPresent()) {
                return Responses.json(200, Tables.table(type, List.of(object),
                        object.path("metadata").path("resourceVersion").asText(""), clock.now(), table.get()));
            }
            return Responses.json(200, object);
        } catch (StatusError e) {
            return Responses.status(e);
        }
    }

    /**
     * LIST, as a {@code <Kind>List} or, with a Table Accept header, a Table. Its resourceVersion is the registry's
     * current one, which a watch can always start from (see {@link WatchHistory}); watches themselves are served
     * by {@link WatchRoute} before they reach this resource. {@code limit} is ignored: everything fits in one
     * page, and no {@code continue} token is returned.
     */
    private Response list(ResourceType type, String namespace, String fieldSelector, String labelSelector, String accept,
                          String includeObject) {
        try {
            requireLive();
            Selectors selectors = Selectors.parse(type, fieldSelector, labelSelector);
            Optional<Tables.Format> table = tableFormat(accept, includeObject);
            ObjectNode list = processor.read(RegistryState.class, s -> {
                String resourceVersion = Long.toString(s.resourceVersion());
                List<JsonNode> items = s.list(type, namespace).stream().map(Json::tree).filter(selectors::matches).toList();
                if (table.isPresent()) {
                    return Tables.table(type, items, resourceVersion, clock.now(), table.get());
                }
                ObjectNode doc = Json.MAPPER.createObjectNode().put("kind", type.kind() + "List").put("apiVersion", type.apiVersion());
                doc.putObject("metadata").put("resourceVersion", resourceVersion);
                doc.putArray("items").addAll(items);
                return doc;
            });
            return Responses.json(200, list);
        } catch (StatusError e) {
            return Responses.status(e);
        }
    }

    private static Optional<Tables.Format> tableFormat(String accept, String includeObject) {
        return Tables.requestedVersion(accept).map(v -> new Tables.Format(v, Tables.IncludeObject.parse(includeObject)));
    }

    private void requireLive() {
        if (!processor.isLive()) {
            throw StatusError.serviceUnavailable("the API server is rebuilding its state from the log; try again shortly");
        }
    }
}
