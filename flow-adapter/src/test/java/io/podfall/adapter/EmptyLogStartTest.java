package io.podfall.adapter;

import static io.podfall.adapter.LogProcessorTest.hasEffectOf;
import static io.podfall.adapter.LogProcessorTest.logUntil;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.model.event.Event;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A service that starts on an empty log is live at once, even though no record has made it read anything yet: its first
 * effects are appended, not held back as if it were still rebuilding.
 */
@QuarkusTest
@QuarkusTestResource(
        value = BrokerResource.class,
        restrictToAnnotatedClass = true,
        initArgs = @ResourceArg(name = "prefill", value = "false"))
class EmptyLogStartTest {

    @Test
    void theFirstEventOnAnEmptyLogIsAnsweredLive() {
        Event ping = BrokerResource.ping("first", Instant.now(), -1);
        BrokerResource.send(ping);
        assertTrue(hasEffectOf(ping.id(), PingCore.PONG).test(logUntil(hasEffectOf(ping.id(), PingCore.PONG))));
    }
}
