package io.podfall.controller.endpoint;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.Json;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code subsets} of an Endpoints object, and their canonical layout ({@code pkg/api/v1/endpoints/util.go}
 * RepackSubsets). The records serialize to, and read from, the Kubernetes JSON of {@code EndpointSubset},
 * {@code EndpointAddress} and {@code EndpointPort}; fields the controller never writes (an address's {@code hostname},
 * a targetRef's {@code resourceVersion}) are left out, so a stored subset that differs only there compares equal, as
 * upstream's {@code endpointSubsetsEqualIgnoreResourceVersion} wants.
 */
final class EndpointSubsets {
    /** Addresses in upstream's {@code LessEndpointAddress} order: by IP, then by the uid of their target. */
    private static final Comparator<Address> ADDRESS_ORDER = Comparator.comparing(Address::ip)
            .thenComparing(Address::uid, Comparator.nullsFirst(Comparator.naturalOrder()));
    /**
     * Upstream sorts ports and subsets by an md5 of their Go dump, which Java cannot reproduce; any fixed order does,
     * as long as the same pods always give the same subsets.
     */
    private static final Comparator<Port> PORT_ORDER = Comparator.comparing(
                    Port::name, Comparator.nullsFirst(Comparator.<String>naturalOrder()))
            .thenComparingInt(Port::port)
            .thenComparing(Port::protocol, Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(Port::appProtocol, Comparator.nullsFirst(Comparator.naturalOrder()));

    private static final Comparator<Subset> SUBSET_ORDER = Comparator.comparing(
                    Subset::addresses, lexicographic(ADDRESS_ORDER))
            .thenComparing(Subset::notReadyAddresses, lexicographic(ADDRESS_ORDER))
            .thenComparing(Subset::ports, lexicographic(PORT_ORDER));
    /** RepackSubsets' sentinel for the addresses of a headless service without ports: they are kept, with no port. */
    private static final Port NO_PORT = new Port(null, -1, null, null);

    private EndpointSubsets() {}

    /** {@code ObjectReference} of an address: always a Pod here. */
    record TargetRef(String kind, String namespace, String name, String uid) {}

    /** {@code EndpointAddress}. */
    record Address(String ip, String nodeName, TargetRef targetRef) {
        String uid() {
            return targetRef == null ? null : targetRef.uid();
        }
    }

    /** {@code EndpointPort}. */
    record Port(String name, int port, String protocol, String appProtocol) {}

    /** {@code EndpointSubset}: the addresses that serve exactly these ports; an empty list is left out, as upstream. */
    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    record Subset(List<Address> addresses, List<Address> notReadyAddresses, List<Port> ports) {
        Subset {
            addresses = addresses == null ? List.of() : List.copyOf(addresses);
            notReadyAddresses = notReadyAddresses == null ? List.of() : List.copyOf(notReadyAddresses);
            ports = ports == null ? List.of() : List.copyOf(ports);
        }
    }

    /** One address of a pod for one port of its service ({@code null}: a headless service without ports). */
    record Endpoint(Address address, Port port, boolean ready) {}

    /**
     * RepackSubsets: every address once (by IP and target uid, the first one seen kept), grouped with the ports it
     * serves, so that each subset holds the addresses offering exactly the same ports. An address not ready for a port
     * stays not ready there, whatever else says it is ready ("not ready always trumps ready").
     */
    static List<Subset> repack(List<Endpoint> endpoints) {
        // Per port, each address (by ADDRESS_ORDER: IP and target uid) once, the first one seen kept, with its
        // readiness.
        Map<Port, TreeMap<Address, Boolean>> readinessByPort = new LinkedHashMap<>();
        for (Endpoint endpoint : endpoints) {
            readinessByPort
                    .computeIfAbsent(
                            endpoint.port() == null ? NO_PORT : endpoint.port(), p -> new TreeMap<>(ADDRESS_ORDER))
                    .merge(endpoint.address(), endpoint.ready(), Boolean::logicalAnd);
        }
        Map<TreeMap<Address, Boolean>, List<Port>> portsByAddresses = new LinkedHashMap<>();
        readinessByPort.forEach((port, readiness) -> {
            List<Port> ports = portsByAddresses.computeIfAbsent(readiness, r -> new ArrayList<>());
            if (port != NO_PORT) {
                ports.add(port);
            }
        });
        List<Subset> subsets = new ArrayList<>();
        portsByAddresses.forEach((readiness, ports) -> {
            List<Address> ready = new ArrayList<>();
            List<Address> notReady = new ArrayList<>();
            readiness.forEach((address, isReady) -> (isReady ? ready : notReady).add(address));
            ports.sort(PORT_ORDER);
            subsets.add(new Subset(ready, notReady, ports));
        });
        subsets.sort(SUBSET_ORDER);
        return List.copyOf(subsets);
    }

    /** The subsets of a stored Endpoints object's JSON, as they are (a foreign writer's need not be canonical). */
    static List<Subset> read(JsonNode subsets) {
        return subsets == null || !subsets.isArray() ? List.of() : Arrays.asList(Json.convert(subsets, Subset[].class));
    }

    private static <T> Comparator<List<T>> lexicographic(Comparator<T> order) {
        return (a, b) -> {
            for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
                int c = order.compare(a.get(i), b.get(i));
                if (c != 0) {
                    return c;
                }
            }
            return Integer.compare(a.size(), b.size());
        };
    }
}
