package io.podfall.model.traffic;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The requests a node's clients sent to a Service that ended within [{@code from}, {@code to}): the Service's totals
 * and each endpoint's. Failure reasons: {@value #REFUSED}, {@value #RESET}, {@value #UNREACHABLE} (per endpoint and
 * summed) and {@value #NO_ENDPOINTS} (the Service's only). The maps are sorted and hold no zero.
 */
public record RequestCounts(
        String node,
        String namespace,
        String service,
        Instant from,
        Instant to,
        long succeeded,
        Map<String, Long> failed,
        List<EndpointCounts> endpoints) {
    /** Nothing listened on the pod's port any more: its process had stopped accepting, or was not running. */
    public static final String REFUSED = "refused";
    /** Accepted, then the process exited (a SIGKILL, or its own exit) before the answer. */
    public static final String RESET = "reset";
    /** The pod's sandbox was gone: its IP answered no more. */
    public static final String UNREACHABLE = "unreachable";
    /** The sending node's rules held no endpoint for the Service: kube-proxy's REJECT. */
    public static final String NO_ENDPOINTS = "no-endpoints";

    public RequestCounts {
        failed = new TreeMap<>(failed);
        endpoints = List.copyOf(endpoints);
    }

    /** All the failures, whatever their reason. */
    public long failedTotal() {
        return failed.values().stream().mapToLong(Long::longValue).sum();
    }

    /** One endpoint's requests of the window. */
    public record EndpointCounts(String pod, String podUid, String ip, long succeeded, Map<String, Long> failed) {
        public EndpointCounts {
            failed = new TreeMap<>(failed);
        }

        /** All the failures, whatever their reason. */
        public long failedTotal() {
            return failed.values().stream().mapToLong(Long::longValue).sum();
        }
    }
}
