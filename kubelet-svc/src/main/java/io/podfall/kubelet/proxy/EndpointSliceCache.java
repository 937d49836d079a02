package io.podfall.kubelet.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.proxy.ServiceRules.RuleEndpoint;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What every kube-proxy of the process knows of the API server: the Services it proxies and their EndpointSlices
 * (pkg/proxy/servicechangetracker.go, pkg/proxy/endpointslicecache.go). One cache serves all the process's nodes: they
 * watch the same objects. A fact whose resourceVersion is not above the cached one is a redelivery, and no news; a fact
 * that changes nothing a proxy reads (a label, an annotation) is no change either, as upstream's change trackers drop a
 * change whose before and after are alike.
 *
 * <p>A Service's merged endpoints, and its cluster-wide rules, are computed when a node first asks for them after a
 * change, then shared: every node whose rules hold the same list holds the same immutable list, not a copy.
 */
final class EndpointSliceCache {
    /** The resource name of EndpointSlices ({@code discovery.k8s.io/v1}). */
    static final String ENDPOINT_SLICES = "endpointslices";

    static final String SERVICES = "services";
    /** discovery.LabelServiceName: the Service a slice belongs to. */
    static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";

    /** What a proxy reads of a Service: whether it gets rules at all, and whether they are the node's own only. */
    record ServiceInfo(long resourceVersion, boolean proxied, boolean local) {}

    /** What a proxy reads of an EndpointSlice: its Service and its endpoints, in address order. */
    private record SliceInfo(long resourceVersion, ServiceName service, List<Endpoint> endpoints) {
        boolean sameAs(SliceInfo other) {
            return other != null && service.equals(other.service) && endpoints.equals(other.endpoints);
        }
    }

    /** A Service's endpoints merged over its slices, and its cluster-wide rules: computed once per change, shared. */
    private record Merged(List<Endpoint> endpoints, List<RuleEndpoint> cluster) {}

    private final Map<ServiceName, ServiceInfo> services = new HashMap<>();
    /** By the slice's namespace and name. */
    private final Map<ServiceName, SliceInfo> slices = new HashMap<>();
    /** Each Service's slices, by slice name. */
    private final Map<ServiceName, TreeMap<String, SliceInfo>> slicesByService = new HashMap<>();

    private final Map<ServiceName, Merged> merged = new HashMap<>();

    /**
     * Takes in a fact about a Service or an EndpointSlice ({@code removed}: it left the API server); the Services whose
     * rules it may change (a slice moved from one Service to another changes both), none when it is no news to a proxy.
     */
    List<ServiceName> observe(String resource, JsonNode object, boolean removed) {
        JsonNode metadata = object.path("metadata");
        ServiceName key = new ServiceName(
                metadata.path("namespace").asText(""), metadata.path("name").asText(""));
        long rv = metadata.path("resourceVersion").asLong(0);
        if (SERVICES.equals(resource)) {
            return observeService(key, removed ? null : service(object, rv));
        }
        if (ENDPOINT_SLICES.equals(resource)) {
            return observeSlice(key, removed ? null : slice(key.namespace(), object, rv), removed, rv);
        }
        return List.of();
    }

    private List<ServiceName> observeService(ServiceName key, ServiceInfo now) {
        ServiceInfo known = services.get(key);
        if (known != null && now != null && now.resourceVersion() <= known.resourceVersion()) {
            return List.of();
        }
        if (now == null) {
            services.remove(key);
        } else {
            services.put(key, now);
        }
        return Objects.equals(rulesOf(known), rulesOf(now)) ? List.of() : List.of(key);
    }

    /** What of a Service shapes its rules: nothing if it gets none, else whether they are the node's own only. */
    private static Boolean rulesOf(ServiceInfo service) {
        return service == null || !service.proxied() ? null : service.local();
    }

    private List<ServiceName> observeSlice(ServiceName key, SliceInfo now, boolean removed, long rv) {
        SliceInfo known = slices.get(key);
        if (known != null && !removed && rv <= known.resourceVersion()) {
            return List.of();
        }
        if (now == null ? known == null : now.sameAs(known)) {
            if (now != null) {
                slices.put(key, now);
                slicesByService.get(now.service()).put(key.name(), now);
            }
            return List.of();
        }
        List<ServiceName> changed = new ArrayList<>(2);
        if (known != null) {
            slices.remove(key);
            remove(known.service(), key.name());
            changed.add(known.service());
        }
        if (now != null) {
            slices.put(key, now);
            slicesByService.computeIfAbsent(now.service(), s -> new TreeMap<>()).put(key.name(), now);
            if (!changed.contains(now.service())) {
                changed.add(now.service());
            }
        }
        changed.forEach(merged::remove);
        return changed;
    }

    private void remove(ServiceName service, String slice) {
        TreeMap<String, SliceInfo> of = slicesByService.get(service);
        if (of != null) {
            of.remove(slice);
            if (of.isEmpty()) {
                slicesByService.remove(service);
            }
        }
    }

    /** The Service's state, if it gets rules (a cluster IP, not headless, not ExternalName). */
    Optional<ServiceInfo> proxied(ServiceName service) {
        return Optional.ofNullable(services.get(service)).filter(ServiceInfo::proxied);
    }

    /**
     * The Service's endpoints over all its slices, each address once (the first slice by name wins, as a node's own
     * copy would, upstream favouring a local duplicate), in address order (endpointslicecache.go byEndpoint).
     */
    List<Endpoint> endpoints(ServiceName service) {
        return merged(service).endpoints();
    }

    /** The cluster-wide rules of the Service, one list shared by every node. */
    List<RuleEndpoint> clusterRules(ServiceName service) {
        return merged(service).cluster();
    }

    private Merged merged(ServiceName service) {
        return merged.computeIfAbsent(service, s -> {
            Map<String, Endpoint> byIp = new LinkedHashMap<>();
            slicesByService
                    .getOrDefault(s, new TreeMap<>())
                    .values()
                    .forEach(slice -> slice.endpoints().forEach(e -> byIp.putIfAbsent(e.ip(), e)));
            List<Endpoint> endpoints = byIp.values().stream()
                    .sorted(Comparator.comparing(Endpoint::ip))
                    .toList();
            return new Merged(endpoints, Topology.cluster(endpoints));
        });
    }

    /**
     * A Service's state (pkg/proxy/servicechangetracker.go serviceToServiceMap, ShouldSkipService): no rules for a
     * Service without a cluster IP, a headless one ({@code None}) or an ExternalName one.
     */
    private static ServiceInfo service(JsonNode object, long rv) {
        JsonNode spec = object.path("spec");
        String clusterIP = spec.path("clusterIP").asText("");
        boolean proxied = !clusterIP.isEmpty()
                && !"None".equals(clusterIP)
                && !"ExternalName".equals(spec.path("type").asText(""));
        return new ServiceInfo(
                rv, proxied, "Local".equals(spec.path("internalTrafficPolicy").asText("")));
    }

    /**
     * A slice's state (endpointslicecache.go newEndpointSliceInfo, addEndpoints): its Service from its label (none: the
     * slice is not a proxy's), its endpoints with an address. The proxy is IPv4 single-stack: other address types are
     * another proxier's.
     */
    private static SliceInfo slice(String namespace, JsonNode object, long rv) {
        String service =
                object.path("metadata").path("labels").path(SERVICE_NAME_LABEL).asText("");
        if (service.isEmpty() || !"IPv4".equals(object.path("addressType").asText(""))) {
            return null;
        }
        List<Endpoint> endpoints = new ArrayList<>();
        for (JsonNode e : object.path("endpoints")) {
            String ip = e.path("addresses").path(0).asText("");
            if (ip.isEmpty()) {
                continue;
            }
            JsonNode conditions = e.path("conditions");
            JsonNode ref = e.path("targetRef");
            endpoints.add(new Endpoint(
                    ip,
                    ref.path("name").asText(""),
                    ref.path("uid").asText(""),
                    e.path("nodeName").asText(""),
                    conditions.path("ready").asBoolean(true),
                    conditions.path("serving").asBoolean(true),
                    conditions.path("terminating").asBoolean(false)));
        }
        endpoints.sort(Comparator.comparing(Endpoint::ip));
        return new SliceInfo(rv, new ServiceName(namespace, service), List.copyOf(endpoints));
    }
}
