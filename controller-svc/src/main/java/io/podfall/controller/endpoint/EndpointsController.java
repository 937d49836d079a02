package io.podfall.controller.endpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.podfall.controller.PodUtil;
import io.podfall.controller.endpoint.EndpointSubsets.Address;
import io.podfall.controller.endpoint.EndpointSubsets.Endpoint;
import io.podfall.controller.endpoint.EndpointSubsets.Port;
import io.podfall.controller.endpoint.EndpointSubsets.TargetRef;
import io.podfall.controller.endpoint.EndpointsControllerState.CachedPod;
import io.podfall.controller.endpoint.EndpointsControllerState.CachedPod.NamedPort;
import io.podfall.controller.endpoint.EndpointsControllerState.CachedService;
import io.podfall.controller.endpoint.EndpointsControllerState.EndpointsContent;
import io.podfall.controller.endpoint.EndpointsControllerState.Request;
import io.podfall.controller.endpoint.EndpointsControllerState.ServiceKey;
import io.podfall.controller.endpoint.EndpointsControllerState.StoredEndpoints;
import io.podfall.model.Json;
import io.podfall.model.SharedStrings;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Part;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The endpoints controller of kube-controller-manager ({@code pkg/controller/endpoint/endpoints_controller.go}): for
 * every Service with a selector it keeps the Endpoints object of the same name listing the pods the selector picks, so
 * that traffic goes to pods that can take it, and stops going to a pod the moment it is being deleted.
 *
 * <p><b>The cache.</b> It folds every apiserver fact about services, pods and Endpoints objects into its cache
 * (upstream's informers). A fact whose resourceVersion is not above the last one seen in its namespace is a redelivery
 * and changes nothing ({@link EndpointsControllerState#isNews}).
 *
 * <p><b>When it syncs a service</b> (upstream {@code syncService}, queued by the informer handlers): when the service
 * is created, changed or removed; when a pod that the service selects, before or after the change, changes in a way
 * that matters here (labels, IPs, readiness, deletionTimestamp, phase, node, named ports: upstream
 * {@code podEndpointsChanged} in {@code staging/src/k8s.io/endpointslice/util/controller_utils.go}); when its Endpoints
 * object is removed by someone else ({@code onEndpointsDelete}). A pod change syncs at once, not after upstream's batch
 * period: this is how the Endpoints update that takes a terminating pod out is caused by the pod's
 * {@code apiserver.ObjectMarkedTerminating}, and so carries the correlation id of that deletion.
 *
 * <p><b>What a sync computes.</b> Nothing for a service of type ExternalName or without a selector (their Endpoints are
 * someone else's). Otherwise one address per selected pod that should be in endpoints ({@code shouldPodBeInEndpoints}:
 * not terminal, has an IP, and no deletionTimestamp unless the service has {@code publishNotReadyAddresses}), in
 * {@code addresses} if the pod is Ready (or the service publishes not-ready addresses), else in
 * {@code notReadyAddresses}; with each service port whose targetPort the pod has ({@code findPort}). The subsets are
 * repacked into their canonical layout ({@link EndpointSubsets#repack}). The labels are the service's, plus
 * {@value #LABEL_MANAGED_BY}={@value #CONTROLLER_NAME} (upstream since 1.33) and {@value #LABEL_HEADLESS} for a service
 * without a cluster IP.
 *
 * <p><b>What it asks.</b> The Endpoints object missing: {@code apiserver.CreationRequested}. Its subsets or labels
 * differing from what was computed: {@code apiserver.PatchRequested}, a JSON merge patch of the labels, the
 * {@value #ANNOTATION_TRIGGER_TIME} annotation and the whole {@code subsets}. The service gone while its Endpoints
 * object exists: {@code apiserver.DeletionRequested}. Upstream writes with an update that carries the resourceVersion
 * it read, and on a 409 Conflict requeues the service and recomputes from its (then fresher) cache. Here requests
 * travel on the log, which the API server applies in order, so a merge patch, applied to the object as stored when the
 * server reads it, cannot conflict and need not wait for the previous request's answer: each change is written by a
 * request of its own, caused by the fact that made it.
 *
 * <p><b>Requests in flight</b> (upstream's stale-informer tracking, {@code staleEndpointsTracker}). Every request is
 * remembered until the API server answers it (a fact or a rejection caused by it; the answer to a request also ends the
 * older ones, applied before it). A new sync compares with what the object will hold once the requests in flight are
 * applied ({@link EndpointsControllerState#expected}), so no request is ever sent twice. A rejected request is
 * recomputed at once, from the cache, if the cache has learnt something about the object since the request was decided
 * (a create refused with 409 AlreadyExists after someone else's create, a patch refused with 404 after someone else's
 * delete: their facts come before the rejection on the log); otherwise (a request the server finds invalid) the next
 * change retries, so a refusal never loops.
 *
 * <p><b>Trigger time.</b> The {@value #ANNOTATION_TRIGGER_TIME} annotation holds the time of the change that triggered
 * the write: the time of that fact. Upstream approximates it from the Ready condition's lastTransitionTime of the pods
 * and the service's creationTimestamp ({@code trigger_time_tracker.go}), having no better clock of the change; the log
 * has one.
 *
 * <p>Not mirrored: the 1000-address capacity truncation, the hostname of addresses ({@code ShouldSetHostname}), the
 * startup sweep of leftover Endpoints (a replay of the log misses no service removal), and EndpointSlices.
 *
 * <p>Invariants: a sync that computes what the object will hold after the requests in flight emits nothing, so a
 * duplicate or an irrelevant fact emits nothing; the same facts in the same order give the same requests.
 */
public final class EndpointsController implements Part<EndpointsControllerState> {
    /** The event source of every request. */
    public static final String SOURCE = "/controller/endpoint";
    /** {@code LabelManagedBy} of the endpoints controller (upstream since 1.33, kubernetes#130564). */
    public static final String LABEL_MANAGED_BY = "endpoints.kubernetes.io/managed-by";
    /** {@code ControllerName}: the value of {@link #LABEL_MANAGED_BY}. */
    public static final String CONTROLLER_NAME = "endpoint-controller";
    /** {@code v1.IsHeadlessService}: on the Endpoints of a service without a cluster IP. */
    public static final String LABEL_HEADLESS = "service.kubernetes.io/headless";
    /** {@code v1.EndpointsLastChangeTriggerTime}. */
    public static final String ANNOTATION_TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time";

    private static final String PODS = ResourceType.PODS.plural();
    private static final String SERVICES = ResourceType.SERVICES.plural();
    private static final String ENDPOINTS = ResourceType.ENDPOINTS.plural();
    private static final String CLUSTER_IP_NONE = "None";
    /** Go's {@code time.RFC3339Nano}: fractional seconds without trailing zeros, UTC as {@code Z}. */
    private static final DateTimeFormatter RFC3339_NANO = new DateTimeFormatterBuilder()
            .appendPattern("uuuu-MM-dd'T'HH:mm:ss")
            .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
            .appendLiteral('Z')
            .toFormatter()
            .withZone(ZoneOffset.UTC);

    @Override
    public EndpointsControllerState newState() {
        return new EndpointsControllerState();
    }

    @Override
    public void handle(EndpointsControllerState state, Event event, Effects.Builder effects) {
        if (event.is(EventTypes.REQUEST_REJECTED)) {
            requestRejected(state, event, effects);
        } else if (EventTypes.OBJECT_CHANGES.contains(event.type())) {
            stored(state, event, effects);
        }
    }

    private void stored(EndpointsControllerState state, Event event, Effects.Builder effects) {
        ObjectChange change = ObjectChange.of(event);
        String resource = change.resource();
        JsonNode metadata = change.object().path("metadata");
        String namespace = metadata.path("namespace").asText("");
        if (!(resource.equals(PODS) || resource.equals(SERVICES) || resource.equals(ENDPOINTS))
                || !state.isNews(namespace, metadata.path("resourceVersion").asText(""))) {
            return;
        }
        ServiceKey key = new ServiceKey(namespace, metadata.path("name").asText());
        boolean removed = event.is(EventTypes.OBJECT_REMOVED);
        // Listed at a slice's start: cached, and synced at the next change (its pods or Endpoints may come after it).
        boolean listed = event.is(EventTypes.OBJECT_LISTED);
        if (resource.equals(SERVICES)) {
            if (state.putService(key, removed ? null : cachedService(key, change.object(Service.class))) && !listed) {
                sync(state, key, event.time(), effects);
            }
        } else if (resource.equals(PODS)) {
            podChanged(
                    state,
                    namespace,
                    key.name(),
                    removed ? null : cachedPod(change.object()),
                    listed,
                    event.time(),
                    effects);
        } else {
            endpointsChanged(state, key, removed, change.object(), event, effects);
        }
    }

    /** Syncs every service that selects the pod before or after the change (upstream {@code GetServicesToUpdate}). */
    private void podChanged(
            EndpointsControllerState state,
            String namespace,
            String name,
            CachedPod updated,
            boolean listed,
            Instant time,
            Effects.Builder effects) {
        Optional<CachedPod> before = state.pod(namespace, name);
        if (!state.putPod(namespace, name, updated) || listed) {
            return;
        }
        for (CachedService service : List.copyOf(state.servicesIn(namespace))) {
            if (service.selects(before.orElse(null)) || service.selects(updated)) {
                sync(state, service.key(), time, effects);
            }
        }
    }

    private void endpointsChanged(
            EndpointsControllerState state,
            ServiceKey key,
            boolean removed,
            JsonNode object,
            Event event,
            Effects.Builder effects) {
        boolean ours = state.answered(key, event.causationId()).isPresent();
        JsonNode metadata = object.path("metadata");
        state.putEndpoints(
                key,
                removed
                        ? null
                        : new StoredEndpoints(
                                metadata.path("resourceVersion").asText(),
                                new EndpointsContent(
                                        PodUtil.labels(object), EndpointSubsets.read(object.path("subsets")))));
        if (removed && !ours) {
            sync(state, key, event.time(), effects);
        }
    }

    /** A refusal of one of our requests: recompute at once only if the cache learnt something since (see above). */
    private void requestRejected(EndpointsControllerState state, Event event, Effects.Builder effects) {
        String requestId = event.causationId();
        Optional<ServiceKey> key = requestId == null ? Optional.empty() : state.requestedFor(requestId);
        if (key.isEmpty()) {
            return;
        }
        Request rejected = state.answered(key.get(), requestId).orElseThrow();
        if (!state.hasInFlight(key.get())
                && !Objects.equals(rejected.basedOn(), state.storedResourceVersion(key.get()))) {
            sync(state, key.get(), rejected.triggerTime(), effects);
        }
    }

    // --- syncService ---

    private void sync(EndpointsControllerState state, ServiceKey key, Instant triggerTime, Effects.Builder effects) {
        Optional<EndpointsContent> expected = state.expected(key);
        Optional<CachedService> service = state.service(key);
        if (service.isEmpty()) {
            // The service is gone: so goes its Endpoints object (upstream deletes it whoever made it).
            if (expected.isPresent()) {
                effects.emit(
                        SOURCE,
                        EventTypes.DELETION_REQUESTED,
                        subject(key),
                        new DeletionRequest(ENDPOINTS, key.namespace(), key.name(), null));
                sent(state, key, null, triggerTime, effects);
            }
            return;
        }
        if (service.get().selector() == null
                || "ExternalName".equals(service.get().type())) {
            return;
        }
        EndpointsContent desired = endpointsFor(service.get(), state.podsIn(key.namespace()));
        if (expected.isEmpty()) {
            ObjectNode object = body(desired, Set.of(), triggerTime);
            object.put("apiVersion", "v1");
            object.put("kind", ResourceType.ENDPOINTS.kind());
            ((ObjectNode) object.get("metadata")).put("name", key.name()).put("namespace", key.namespace());
            effects.emit(
                    SOURCE,
                    EventTypes.CREATION_REQUESTED,
                    subject(key),
                    new CreationRequest(ENDPOINTS, key.namespace(), object));
            sent(state, key, desired, triggerTime, effects);
        } else if (!desired.equals(expected.get())) {
            Set<String> dropped = new TreeSet<>(expected.get().labels().keySet());
            dropped.removeAll(desired.labels().keySet());
            effects.emit(
                    SOURCE,
                    EventTypes.PATCH_REQUESTED,
                    subject(key),
                    new PatchRequest(
                            ENDPOINTS,
                            key.namespace(),
                            key.name(),
                            null,
                            PatchRequest.MERGE,
                            body(desired, dropped, triggerTime)));
            sent(state, key, desired, triggerTime, effects);
        }
    }

    /** Remembers the request just emitted; {@code content} is what it writes, null for a delete. */
    private static void sent(
            EndpointsControllerState state,
            ServiceKey key,
            EndpointsContent content,
            Instant triggerTime,
            Effects.Builder effects) {
        state.sent(key, new Request(effects.lastEventId(), content, state.storedResourceVersion(key), triggerTime));
    }

    /**
     * The metadata and subsets the controller writes: as a merge patch, {@code dropped} labels are removed (upstream
     * replaces the labels with the service's) and the subsets list is replaced whole.
     */
    private static ObjectNode body(EndpointsContent desired, Set<String> dropped, Instant triggerTime) {
        ObjectNode body = Json.MAPPER.createObjectNode();
        ObjectNode metadata = body.putObject("metadata");
        ObjectNode labels = metadata.putObject("labels");
        new TreeMap<>(desired.labels()).forEach(labels::put);
        dropped.forEach(labels::putNull);
        metadata.putObject("annotations").put(ANNOTATION_TRIGGER_TIME, RFC3339_NANO.format(triggerTime));
        body.set("subsets", Json.tree(desired.subsets()));
        return body;
    }

    /** The labels and subsets the service's Endpoints must hold, given the pods of its namespace. */
    private static EndpointsContent endpointsFor(CachedService service, Iterable<CachedPod> pods) {
        List<Endpoint> endpoints = new ArrayList<>();
        for (CachedPod pod : pods) {
            if (!service.selects(pod) || !shouldPodBeInEndpoints(pod, service.publishNotReadyAddresses())) {
                continue;
            }
            Optional<Address> address = podToEndpointAddressForService(service, pod);
            if (address.isEmpty()) {
                continue;
            }
            boolean ready = service.publishNotReadyAddresses() || pod.ready();
            if (service.ports().isEmpty()) {
                // Allow a headless service not to have ports.
                if (CLUSTER_IP_NONE.equals(service.clusterIP())) {
                    endpoints.add(new Endpoint(address.get(), null, ready));
                }
                continue;
            }
            for (CachedService.Port servicePort : service.ports()) {
                findPort(pod, servicePort)
                        .ifPresent(port -> endpoints.add(new Endpoint(
                                address.get(),
                                new Port(servicePort.name(), port, servicePort.protocol(), servicePort.appProtocol()),
                                ready)));
            }
        }
        Map<String, String> labels = new TreeMap<>(service.labels());
        labels.put(LABEL_MANAGED_BY, CONTROLLER_NAME);
        if (service.clusterIP() == null
                || service.clusterIP().isEmpty()
                || CLUSTER_IP_NONE.equals(service.clusterIP())) {
            labels.put(LABEL_HEADLESS, "");
        }
        return new EndpointsContent(labels, EndpointSubsets.repack(endpoints));
    }

    /**
     * {@code ShouldPodBeInEndpoints} ({@code staging/src/k8s.io/endpointslice/util/controller_utils.go}): a pod that is
     * terminal (Succeeded, Failed) or has no IP is left out, and so is a pod being deleted, ready or not, unless the
     * service publishes not-ready addresses: termination takes a pod out of rotation at once.
     */
    private static boolean shouldPodBeInEndpoints(CachedPod pod, boolean includeTerminating) {
        return !pod.terminal() && !pod.ips().isEmpty() && (includeTerminating || !pod.deleting());
    }

    /**
     * {@code podToEndpointAddressForService}: the pod IP of the service's IP family (its first {@code ipFamilies}, else
     * that of its cluster IP, else, headless, that of the pod's primary IP).
     */
    private static Optional<Address> podToEndpointAddressForService(CachedService service, CachedPod pod) {
        boolean ipv6 = service.ipFamily() != null
                ? "IPv6".equals(service.ipFamily())
                : service.clusterIP() != null
                                && !service.clusterIP().isEmpty()
                                && !CLUSTER_IP_NONE.equals(service.clusterIP())
                        ? isIPv6(service.clusterIP())
                        : isIPv6(pod.ips().get(0));
        return pod.ips().stream()
                .filter(ip -> isIPv6(ip) == ipv6)
                .findFirst()
                .map(ip ->
                        new Address(ip, pod.nodeName(), new TargetRef("Pod", pod.namespace(), pod.name(), pod.uid())));
    }

    /**
     * {@code FindPort} ({@code pkg/api/v1/pod/util.go}): a numeric targetPort as it is; a named one is the container
     * port of that name and the service port's protocol; none such, and the pod does not serve it.
     */
    private static Optional<Integer> findPort(CachedPod pod, CachedService.Port servicePort) {
        if (servicePort.targetPortName() == null) {
            return Optional.ofNullable(servicePort.targetPortNumber());
        }
        return pod.namedPorts().stream()
                .filter(p -> p.name().equals(servicePort.targetPortName())
                        && p.protocol().equals(servicePort.protocol()))
                .map(NamedPort::containerPort)
                .findFirst();
    }

    // --- the cache's view of the objects ---

    private static CachedService cachedService(ServiceKey key, Service service) {
        ServiceSpec spec = service.getSpec() == null ? new ServiceSpec() : service.getSpec();
        // An empty selector is omitted on the wire, so upstream sees it as none (nil): it selects nothing.
        Map<String, String> selector =
                spec.getSelector() == null || spec.getSelector().isEmpty() ? null : Map.copyOf(spec.getSelector());
        List<CachedService.Port> ports = spec.getPorts() == null
                ? List.of()
                : spec.getPorts().stream().map(EndpointsController::servicePort).toList();
        String ipFamily = spec.getIpFamilies() == null || spec.getIpFamilies().isEmpty()
                ? null
                : spec.getIpFamilies().get(0);
        return new CachedService(
                key,
                labels(service.getMetadata().getLabels()),
                selector,
                ports,
                spec.getType(),
                spec.getClusterIP(),
                ipFamily,
                Boolean.TRUE.equals(spec.getPublishNotReadyAddresses()));
    }

    private static CachedService.Port servicePort(ServicePort port) {
        IntOrString target = port.getTargetPort();
        // SetDefaults_Service: a missing targetPort is the port, a missing protocol TCP.
        Integer number = target == null ? port.getPort() : target.getIntVal();
        String name = target == null ? null : target.getStrVal();
        return new CachedService.Port(
                port.getName(), protocol(port.getProtocol()), number, name, port.getAppProtocol());
    }

    /** The few fields of a pod the controller keeps, read off the fact's JSON: converting the whole pod cost more. */
    private static CachedPod cachedPod(JsonNode pod) {
        JsonNode meta = pod.path("metadata");
        JsonNode status = pod.path("status");
        List<String> ips = new ArrayList<>();
        status.path("podIPs").forEach(ip -> {
            if (ip.hasNonNull("ip")) {
                ips.add(ip.get("ip").asText());
            }
        });
        String podIP = status.path("podIP").asText("");
        if (status.path("podIPs").isEmpty() && !podIP.isEmpty()) {
            ips.add(podIP);
        }
        List<NamedPort> namedPorts = new ArrayList<>();
        for (JsonNode container : pod.path("spec").path("containers")) {
            for (JsonNode port : container.path("ports")) {
                if (!port.path("name").asText("").isEmpty()
                        && port.path("containerPort").isNumber()) {
                    namedPorts.add(new NamedPort(
                            port.get("name").asText(),
                            protocol(port.path("protocol").textValue()),
                            port.get("containerPort").asInt()));
                }
            }
        }
        String nodeName = pod.path("spec").path("nodeName").asText("");
        String phase = status.path("phase").asText("");
        return new CachedPod(
                meta.path("uid").asText(),
                SharedStrings.shared(meta.path("namespace").asText()),
                meta.path("name").asText(),
                PodUtil.labels(pod),
                List.copyOf(ips),
                nodeName.isEmpty() ? null : SharedStrings.shared(nodeName),
                "Succeeded".equals(phase) || "Failed".equals(phase),
                PodUtil.readyCondition(pod) != null,
                meta.hasNonNull("deletionTimestamp"),
                List.copyOf(namedPorts));
    }

    /** SetDefaults_ContainerPort and SetDefaults_Service: a port without a protocol is TCP. */
    private static String protocol(String protocol) {
        return protocol == null || protocol.isEmpty() ? "TCP" : protocol;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> labels(Map<?, ?> labels) {
        return labels == null ? Map.of() : Map.copyOf((Map<String, String>) labels);
    }

    private static boolean isIPv6(String ip) {
        return ip.contains(":");
    }

    private static String subject(ServiceKey key) {
        return Subjects.of(key.namespace(), ENDPOINTS, key.name());
    }
}
