package io.podfall.runtime.cni;

import java.util.BitSet;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The pod IPs of one node, as the host-local IPAM plugin hands them out on CNI ADD and takes them back on CNI DEL: the
 * node's /24 of the cluster CIDR {@code 10.244.0.0/16}, hosts {@code .2} to {@code .254} ({@code .1} is the bridge
 * gateway, {@code .255} the broadcast address), lowest free first, so a released IP is the next one given.
 *
 * <p>The third octet comes from the node's name alone, never from the order in which nodes appear, so every replay
 * gives every pod the same IP: the trailing number of the name ({@code node-3} → {@code 10.244.3.0/24}), or, for names
 * without one that fits an octet, a hash of the name mod 250, plus 1.
 */
public final class IpPool {
    private static final int FIRST_HOST = 2;
    private static final int LAST_HOST = 254;
    private static final Pattern TRAILING_NUMBER = Pattern.compile("\\d+$");
    private static final Pattern HOST_PART = Pattern.compile("[1-9]\\d{0,2}");

    private final int subnet;
    private final BitSet allocated = new BitSet(LAST_HOST + 1);

    private IpPool(int subnet) {
        this.subnet = subnet;
    }

    public static IpPool forNode(String nodeName) {
        return new IpPool(subnetOf(nodeName));
    }

    /** The third octet of the node's pod CIDR. */
    static int subnetOf(String nodeName) {
        Matcher m = TRAILING_NUMBER.matcher(nodeName);
        if (m.find() && m.group().length() <= 3 && Integer.parseInt(m.group()) <= 255) {
            return Integer.parseInt(m.group());
        }
        // String.hashCode is fixed by the Java language specification, so this is stable across JVMs.
        return Math.floorMod(nodeName.hashCode(), 250) + 1;
    }

    /** The node's pod CIDR, e.g. {@code 10.244.3.0/24}. */
    public String cidr() {
        return "10.244." + subnet + ".0/24";
    }

    /** CNI ADD: the lowest free IP, now in use; empty when all 253 are in use. */
    public Optional<String> allocate() {
        int host = allocated.nextClearBit(FIRST_HOST);
        if (host > LAST_HOST) {
            return Optional.empty();
        }
        allocated.set(host);
        return Optional.of(address(host));
    }

    /** CNI DEL: gives {@code ip} back. False (and nothing changes) if it was not in use: an IP is released once. */
    public boolean release(String ip) {
        int host = hostOf(ip);
        if (host < 0 || !allocated.get(host)) {
            return false;
        }
        allocated.clear(host);
        return true;
    }

    public boolean isAllocated(String ip) {
        int host = hostOf(ip);
        return host >= 0 && allocated.get(host);
    }

    public int inUse() {
        return allocated.cardinality();
    }

    private String address(int host) {
        return "10.244." + subnet + "." + host;
    }

    /** The host part of an IP of this pool, or -1 for any other string. */
    private int hostOf(String ip) {
        String prefix = "10.244." + subnet + ".";
        if (ip == null || !ip.startsWith(prefix)) {
            return -1;
        }
        String hostPart = ip.substring(prefix.length());
        if (!HOST_PART.matcher(hostPart).matches()) {
            return -1;
        }
        int host = Integer.parseInt(hostPart);
        return host >= FIRST_HOST && host <= LAST_HOST ? host : -1;
    }
}
