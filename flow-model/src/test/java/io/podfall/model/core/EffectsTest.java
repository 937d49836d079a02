package io.podfall.model.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.podfall.model.event.Event;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EffectsTest {
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private final Event cause =
            Event.request("cause-1", "/apiserver", "apiserver.ObjectUpdated", "nodes/node-1", T0, null, Map.of());

    @Test
    void aRequestStartsAFlowOfItsOwn() {
        Event request = Effects.of(cause, T0)
                .request("renew-1", "/kubelet/node-1", "apiserver.UpdateRequested", "s", Map.of())
                .build()
                .events()
                .get(0);

        assertEquals("renew-1", request.id());
        assertEquals("renew-1", request.correlationId());
        assertNull(request.causationId());
    }
}
