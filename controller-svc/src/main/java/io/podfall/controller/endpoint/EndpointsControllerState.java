package io.podfall.controller.endpoint;

import io.podfall.controller.ResourceVersions;
import io.podfall.controller.endpoint.EndpointSubsets.Subset;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the {@link EndpointsController} knows: its caches of services, pods and Endpoints objects (upstream's listers),
 * the requests it has sent that the API server has not answered yet, and per namespace the highest resourceVersion
 * seen, to recognise a redelivered fact.
 */
public final class EndpointsControllerState {
    /** Services by namespace, then name: the name order is the order in which one pod change syncs them. */
    private final Map<String, TreeMap<String, CachedService>> services = new HashMap<>();
    /** Pods by namespace, then name; the Endpoints of a service list them by IP, so this order does not show. */
    private final Map<String, TreeMap<String, CachedPod>> pods = new HashMap<>();
    /** The Endpoints objects the API server holds, by the key of the service they share a name with. */
    private final Map<ServiceKey, StoredEndpoints> endpoints = new HashMap<>();
    /** Requests in flight per Endpoints object, oldest first; the API server answers them in this order. */
    private final Map<ServiceKey, ArrayDeque<Request>> inFlight = new HashMap<>();
    /** The highest resourceVersion of a fact seen per namespace. */
    private final ResourceVersions resourceVersions = new ResourceVersions();

    /** A service and its Endpoints object: same namespace, same name. */
    record ServiceKey(String namespace, String name) {}

    /** What of a Service decides its endpoints. {@code selector} is null for a service without one. */
    record CachedService(
            ServiceKey key,
            Map<String, String> labels,
            Map<String, String> selector,
            List<Port> ports,
            String type,
            String clusterIP,
            String ipFamily,
            boolean publishNotReadyAddresses) {
        /** A service port; its targetPort is a number or the name of a container port. */
        record Port(
                String name, String protocol, Integer targetPortNumber, String targetPortName, String appProtocol) {}

        /** Whether the selector selects the pod; a service without a selector selects nothing. */
        boolean selects(CachedPod pod) {
            return selector != null && pod != null && pod.labels().entrySet().containsAll(selector.entrySet());
        }
    }

    /** What of a Pod decides its place in Endpoints. {@code ips} are {@code status.podIPs}, primary first. */
    record CachedPod(
            String uid,
            String namespace,
            String name,
            Map<String, String> labels,
            List<String> ips,
            String nodeName,
            boolean terminal,
            boolean ready,
            boolean deleting,
            List<NamedPort> namedPorts) {
        /** A container port with a name, which a service's targetPort may refer to. */
        record NamedPort(String name, String protocol, int containerPort) {}
    }

    /** What the controller writes of an Endpoints object, and compares: its labels and subsets. */
    record EndpointsContent(Map<String, String> labels, List<Subset> subsets) {
        EndpointsContent {
            labels = Map.copyOf(labels);
            subsets = List.copyOf(subsets);
        }
    }

    /** An Endpoints object as stored. */
    record StoredEndpoints(String resourceVersion, EndpointsContent content) {}

    /**
     * A request in flight: its event id (the causationId of the answer), the content it writes (null for a delete), the
     * resourceVersion of the object when it was decided (null: absent), and the time of the change that triggered it.
     */
    record Request(String id, EndpointsContent content, String basedOn, Instant triggerTime) {}

    // --- queries ---

    Optional<CachedService> service(ServiceKey key) {
        return Optional.ofNullable(
                services.getOrDefault(key.namespace(), new TreeMap<>()).get(key.name()));
    }

    Collection<CachedService> servicesIn(String namespace) {
        return services.getOrDefault(namespace, new TreeMap<>()).values();
    }

    Optional<CachedPod> pod(String namespace, String name) {
        return Optional.ofNullable(pods.getOrDefault(namespace, new TreeMap<>()).get(name));
    }

    Collection<CachedPod> podsIn(String namespace) {
        return pods.getOrDefault(namespace, new TreeMap<>()).values();
    }

    public Optional<StoredEndpoints> endpoints(String namespace, String name) {
        return Optional.ofNullable(endpoints.get(new ServiceKey(namespace, name)));
    }

    /** The requests in flight for the Endpoints of that name, oldest first. */
    public List<Request> inFlight(String namespace, String name) {
        return List.copyOf(inFlight.getOrDefault(new ServiceKey(namespace, name), new ArrayDeque<>()));
    }

    /**
     * What the Endpoints object will hold once the requests in flight are applied: the content of the last one (nothing
     * after a delete), else what is stored. The API server applies requests in log order, so this is what a new request
     * must be compared with.
     */
    Optional<EndpointsContent> expected(ServiceKey key) {
        ArrayDeque<Request> requests = inFlight.get(key);
        if (requests != null) {
            return Optional.ofNullable(requests.getLast().content());
        }
        return Optional.ofNullable(endpoints.get(key)).map(StoredEndpoints::content);
    }

    String storedResourceVersion(ServiceKey key) {
        StoredEndpoints stored = endpoints.get(key);
        return stored == null ? null : stored.resourceVersion();
    }

    boolean hasInFlight(ServiceKey key) {
        return inFlight.containsKey(key);
    }

    /** Whether a fact about the namespace is new ({@link ResourceVersions}); remembered if so. */
    boolean isNews(String namespace, String resourceVersion) {
        return resourceVersions.isNews(namespace, resourceVersion);
    }

    // --- changes ---

    /** Caches the service (null: removed); false if that changes nothing. */
    boolean putService(ServiceKey key, CachedService service) {
        return put(services, key.namespace(), key.name(), service);
    }

    /** Caches the pod (null: removed); false if that changes nothing. */
    boolean putPod(String namespace, String name, CachedPod pod) {
        return put(pods, namespace, name, pod);
    }

    void putEndpoints(ServiceKey key, StoredEndpoints stored) {
        if (stored == null) {
            endpoints.remove(key);
        } else {
            endpoints.put(key, stored);
        }
    }

    void sent(ServiceKey key, Request request) {
        inFlight.computeIfAbsent(key, k -> new ArrayDeque<>()).addLast(request);
    }

    /**
     * The API server answered the request with this id (a fact or a rejection caused by it): it and every older request
     * for the same object are done, as the server applies them in order (one that changed nothing has no fact of its
     * own). Returns the request, if it was one of ours in flight.
     */
    Optional<Request> answered(ServiceKey key, String requestId) {
        ArrayDeque<Request> requests = inFlight.get(key);
        if (requestId == null || requests == null || requests.stream().noneMatch(r -> r.id().equals(requestId))) {
            return Optional.empty();
        }
        Request done;
        do {
            done = requests.removeFirst();
        } while (!done.id().equals(requestId));
        if (requests.isEmpty()) {
            inFlight.remove(key);
        }
        return Optional.of(done);
    }

    /** The object a request in flight with this id is about (a rejection's subject need not say). */
    Optional<ServiceKey> requestedFor(String requestId) {
        return inFlight.entrySet().stream()
                .filter(e -> e.getValue().stream().anyMatch(r -> r.id().equals(requestId)))
                .map(Map.Entry::getKey)
                .findFirst();
    }

    private static <T> boolean put(Map<String, TreeMap<String, T>> index, String namespace, String name, T value) {
        TreeMap<String, T> byName = index.computeIfAbsent(namespace, ns -> new TreeMap<>());
        T before = value == null ? byName.remove(name) : byName.put(name, value);
        if (byName.isEmpty()) {
            index.remove(namespace);
        }
        return !Objects.equals(before, value);
    }
}
