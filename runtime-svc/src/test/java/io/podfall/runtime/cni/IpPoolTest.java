package io.podfall.runtime.cni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class IpPoolTest {

    @Test
    void theSubnetIsTheTrailingNumberOfTheNodeName() {
        assertEquals("10.244.3.0/24", IpPool.forNode("node-3").cidr());
        assertEquals("10.244.42.0/24", IpPool.forNode("worker42").cidr());
        assertEquals("10.244.3.2", IpPool.forNode("node-3").allocate().orElseThrow());
    }

    @Test
    void namesWithoutANumberThatFitsAnOctetHashToAStableSubnetFrom1To250() {
        for (String name : new String[] {"control-plane", "node-300", "node-1234"}) {
            int subnet = IpPool.subnetOf(name);
            assertTrue(subnet >= 1 && subnet <= 250, name);
            assertEquals(Math.floorMod(name.hashCode(), 250) + 1, subnet, name);
        }
    }

    @Test
    void givesDistinctIpsLowestFirstFrom2To254ThenNone() {
        IpPool pool = IpPool.forNode("node-1");
        Set<String> given = new HashSet<>();
        for (int host = 2; host <= 254; host++) {
            assertEquals(Optional.of("10.244.1." + host), pool.allocate());
            given.add("10.244.1." + host);
        }
        assertEquals(253, given.size());
        assertEquals(Optional.empty(), pool.allocate(), "the pool is exhausted");
    }

    @Test
    void aReleasedIpIsReusedFirst() {
        IpPool pool = IpPool.forNode("node-1");
        pool.allocate();
        pool.allocate();
        pool.allocate();

        assertTrue(pool.release("10.244.1.3"));

        assertEquals(Optional.of("10.244.1.3"), pool.allocate());
        assertEquals(Optional.of("10.244.1.5"), pool.allocate());
    }

    @Test
    void anIpIsReleasedOnlyOnce() {
        IpPool pool = IpPool.forNode("node-1");
        String ip = pool.allocate().orElseThrow();

        assertTrue(pool.release(ip));
        assertFalse(pool.release(ip));
        assertFalse(pool.release("10.244.2.2"), "another node's IP");
        assertFalse(pool.release("10.244.1.02"));
        assertFalse(pool.release(null));
        assertEquals(0, pool.inUse());
    }

    @Test
    void poolsOfDifferentNodesAreIndependent() {
        IpPool one = IpPool.forNode("node-1");
        IpPool two = IpPool.forNode("node-2");
        one.allocate();

        assertEquals(Optional.of("10.244.2.2"), two.allocate());
        assertEquals(Optional.of("10.244.1.3"), one.allocate());
    }
}
