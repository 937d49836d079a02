package io.podfall.apiserver.registry;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.ServiceStatus;
import io.podfall.apiserver.registry.StatusError.FieldError;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The service rules that matter to the endpoints controller and {@code kubectl get svc}: the defaults of
 * {@code pkg/apis/core/v1/defaults.go} SetDefaults_Service (type ClusterIP, sessionAffinity None, ports TCP with
 * targetPort = port), {@code PrepareForCreate} of {@code pkg/registry/core/service/strategy.go} (status cleared), and
 * the cluster IP of {@code pkg/registry/core/service/storage/alloc.go}: single-stack IPv4 from kube-apiserver's default
 * service range {@value #SERVICE_CIDR}. podfall routes no traffic; the IP matters because a service without one is
 * headless, which its Endpoints say.
 */
final class ServiceStrategy {
    /** kube-apiserver's default {@code --service-cluster-ip-range}. */
    static final String SERVICE_CIDR = "10.96.0.0/12";

    private static final long RANGE_BASE = (10L << 24) | (96L << 16);
    private static final long RANGE_SIZE = 1L << 20;
    private static final String NONE = "None";
    private static final String IP_FIELD = "spec.clusterIPs";

    private ServiceStrategy() {}

    static void prepareForCreate(Service service) {
        ServiceStatus status = new ServiceStatus();
        status.setLoadBalancer(new LoadBalancerStatus());
        service.setStatus(status);
        applyDefaults(service);
    }

    static void applyDefaults(Service service) {
        ServiceSpec spec = service.getSpec() == null ? new ServiceSpec() : service.getSpec();
        service.setSpec(spec);
        if (spec.getType() == null || spec.getType().isEmpty()) {
            spec.setType("ClusterIP");
        }
        if (spec.getSessionAffinity() == null || spec.getSessionAffinity().isEmpty()) {
            spec.setSessionAffinity("None");
        }
        for (ServicePort port : spec.getPorts()) {
            if (port.getProtocol() == null || port.getProtocol().isEmpty()) {
                port.setProtocol("TCP");
            }
            if (port.getTargetPort() == null && port.getPort() != null) {
                port.setTargetPort(new IntOrString(port.getPort()));
            }
        }
    }

    /**
     * {@code allocateCreate}: a service that is not ExternalName and not headless ({@code clusterIP: None}) gets the
     * cluster IP it asks for, if it lies in the range and is free, else the lowest free one. Upstream picks a free IP
     * at random; the lowest is what a replay of the log allocates again. An IP is free when no stored service holds it,
     * so a removed service releases its IP with no bookkeeping.
     */
    static List<FieldError> allocateClusterIP(Service service, List<HasMetadata> services) {
        ServiceSpec spec = service.getSpec();
        if ("ExternalName".equals(spec.getType())) {
            return List.of();
        }
        String requested = spec.getClusterIP() == null ? "" : spec.getClusterIP();
        String ip = requested;
        if (!NONE.equals(requested)) {
            Set<Long> used = services.stream()
                    .map(s -> ipv4(((Service) s).getSpec().getClusterIP()))
                    .filter(Objects::nonNull)
                    .collect(Collectors.toSet());
            Long address = requested.isEmpty() ? lowestFree(used) : ipv4(requested);
            if (address == null && !requested.isEmpty()) {
                return List.of(FieldError.invalid(
                        IP_FIELD + "[0]", requested, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
            }
            // The allocator's errors (pkg/registry/core/service/ipallocator): ErrFull, ErrNotInRange, ErrAllocated.
            String failure = address == null
                    ? "range is full"
                    : !inRange(address)
                            ? "the provided IP (" + requested
                                    + ") is not in the valid range. The range of valid IPs is " + SERVICE_CIDR
                            : !requested.isEmpty() && used.contains(address)
                                    ? "provided IP is already allocated"
                                    : null;
            if (failure != null) {
                return List.of(FieldError.invalidValue(
                        IP_FIELD,
                        "[]string{" + StatusError.quote(requested) + "}",
                        "failed to allocate IP " + requested + ": " + failure));
            }
            ip = (address >> 24) + "." + ((address >> 16) & 255) + "." + ((address >> 8) & 255) + "." + (address & 255);
        }
        spec.setClusterIP(ip);
        spec.setClusterIPs(List.of(ip));
        spec.setIpFamilies(List.of("IPv4"));
        spec.setIpFamilyPolicy("SingleStack");
        return List.of();
    }

    /**
     * On update the allocated values stay ({@code patchAllocatedValues} of {@code storage.go}: a body without a cluster
     * IP keeps the stored one) and may not change ({@code ValidateServiceUpdate}).
     */
    static List<FieldError> keepClusterIP(Service current, Service next) {
        ServiceSpec stored = current.getSpec();
        ServiceSpec spec = next.getSpec();
        if (spec.getClusterIP() == null || spec.getClusterIP().isEmpty()) {
            spec.setClusterIP(stored.getClusterIP());
            spec.setClusterIPs(stored.getClusterIPs());
        }
        if (spec.getIpFamilies() == null || spec.getIpFamilies().isEmpty()) {
            spec.setIpFamilies(stored.getIpFamilies());
        }
        if (spec.getIpFamilyPolicy() == null) {
            spec.setIpFamilyPolicy(stored.getIpFamilyPolicy());
        }
        if (!Objects.equals(spec.getClusterIP(), stored.getClusterIP())) {
            return List.of(FieldError.invalidValue(
                    IP_FIELD + "[0]",
                    "[]string{" + StatusError.quote(spec.getClusterIP()) + "}",
                    "may not change once set"));
        }
        return List.of();
    }

    /** The lowest address of the range, past the network address, that no service holds; null if none is left. */
    private static Long lowestFree(Set<Long> used) {
        for (long address = RANGE_BASE + 1; address < RANGE_BASE + RANGE_SIZE - 1; address++) {
            if (!used.contains(address)) {
                return address;
            }
        }
        return null;
    }

    /** The range without its network and broadcast addresses, as the allocator hands them out. */
    private static boolean inRange(long address) {
        return address > RANGE_BASE && address < RANGE_BASE + RANGE_SIZE - 1;
    }

    /** A dotted IPv4 address as a number, or null. */
    private static Long ipv4(String text) {
        if (text == null || !text.matches("(\\d{1,3})(\\.\\d{1,3}){3}")) {
            return null;
        }
        long address = 0;
        for (String part : text.split("\\.")) {
            int octet = Integer.parseInt(part);
            if (octet > 255) {
                return null;
            }
            address = address << 8 | octet;
        }
        return address;
    }
}
