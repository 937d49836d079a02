package io.podfall.model;

import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CompressedAtRestTest {
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private final CompressedAtRest resting = new CompressedAtRest(Duration.ofSeconds(30));

    private static byte[] pod(String name) {
        return Json.bytes(aPod(name).withUid("uid-" + name).onNode("node-1").build());
    }

    @Test
    void jsonIsHeldPlainUntilItHasRestedThenCompressedAndReadsBackTheSame() {
        byte[] web1 = pod("web-1");
        CompressedAtRest.Held first = resting.hold(web1, T0);
        assertSame(web1, first.json(), "plain: the very bytes");

        CompressedAtRest.Held second = resting.hold(pod("web-2"), T0.plusSeconds(29));
        assertFalse(first.isCompressed(), "29 s unwritten is not at rest");

        resting.hold(pod("web-3"), T0.plusSeconds(30));
        assertTrue(first.isCompressed());
        assertFalse(second.isCompressed());
        assertArrayEquals(web1, first.json());
    }

    @Test
    void whatTheOwnerReleasedIsNeverCompressed() {
        CompressedAtRest.Held replaced = resting.hold(pod("web-1"), T0);
        resting.release(replaced);

        resting.hold(pod("web-2"), T0.plusSeconds(60));

        assertFalse(replaced.isCompressed(), "work spent on JSON no one holds any more");
    }
}
