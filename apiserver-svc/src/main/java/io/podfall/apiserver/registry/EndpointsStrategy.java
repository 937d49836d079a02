package io.podfall.apiserver.registry;

import io.fabric8.kubernetes.api.model.EndpointAddress;
import io.fabric8.kubernetes.api.model.EndpointPort;
import io.fabric8.kubernetes.api.model.EndpointSubset;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.podfall.apiserver.registry.StatusError.FieldError;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The Endpoints rules of {@code pkg/apis/core/v1/defaults.go} SetDefaults_Endpoints (a port without a protocol is TCP)
 * and {@code ValidateEndpoints} of {@code pkg/apis/core/validation/validation.go}, narrowed to what a reader of
 * Endpoints relies on: every address an IP, every port a valid number and protocol, and a name on every port of a
 * subset with more than one. Applied on create and on every update or patch.
 */
final class EndpointsStrategy {
    private static final List<String> PROTOCOLS = List.of("SCTP", "TCP", "UDP");
    private static final Pattern IPV4 =
            Pattern.compile("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
    /** What an IPv6 literal is made of; only such text is handed to the JDK's parser, which then looks up no name. */
    private static final Pattern IPV6_CHARACTERS = Pattern.compile("[0-9a-fA-F:.]*:[0-9a-fA-F:.]*");

    private EndpointsStrategy() {}

    static void applyDefaults(Endpoints endpoints) {
        for (EndpointSubset subset : endpoints.getSubsets()) {
            for (EndpointPort port : subset.getPorts()) {
                if (port.getProtocol() == null || port.getProtocol().isEmpty()) {
                    port.setProtocol("TCP");
                }
            }
        }
    }

    static List<FieldError> validate(Endpoints endpoints) {
        List<FieldError> errors = new ArrayList<>();
        List<EndpointSubset> subsets = endpoints.getSubsets();
        for (int i = 0; i < subsets.size(); i++) {
            String path = "subsets[" + i + "]";
            EndpointSubset subset = subsets.get(i);
            validateAddresses(subset.getAddresses(), path + ".addresses", errors);
            validateAddresses(subset.getNotReadyAddresses(), path + ".notReadyAddresses", errors);
            List<EndpointPort> ports = subset.getPorts();
            for (int k = 0; k < ports.size(); k++) {
                String portPath = path + ".ports[" + k + "]";
                EndpointPort port = ports.get(k);
                if (ports.size() > 1
                        && (port.getName() == null || port.getName().isEmpty())) {
                    errors.add(FieldError.required(portPath + ".name", ""));
                }
                if (port.getPort() == null || port.getPort() < 1 || port.getPort() > 65535) {
                    errors.add(FieldError.invalidValue(
                            portPath + ".port",
                            String.valueOf(port.getPort() == null ? 0 : port.getPort()),
                            "must be between 1 and 65535, inclusive"));
                }
                if (!PROTOCOLS.contains(port.getProtocol())) {
                    errors.add(FieldError.notSupported(portPath + ".protocol", port.getProtocol(), PROTOCOLS));
                }
            }
        }
        return errors;
    }

    private static void validateAddresses(List<EndpointAddress> addresses, String path, List<FieldError> errors) {
        for (int j = 0; j < addresses.size(); j++) {
            String ip = addresses.get(j).getIp();
            if (ip == null || ip.isEmpty()) {
                errors.add(FieldError.required(path + "[" + j + "].ip", ""));
            } else if (!IPV4.matcher(ip).matches() && !isIPv6(ip)) {
                errors.add(FieldError.invalid(
                        path + "[" + j + "].ip", ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
            }
        }
    }

    private static boolean isIPv6(String text) {
        if (!IPV6_CHARACTERS.matcher(text).matches()) {
            return false;
        }
        try {
            return InetAddress.getByName(text) instanceof Inet6Address;
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
