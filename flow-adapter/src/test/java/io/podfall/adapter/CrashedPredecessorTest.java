package io.podfall.adapter;

import static io.podfall.adapter.LogProcessorTest.hasEffectOf;
import static io.podfall.adapter.LogProcessorTest.logUntil;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/**
 * A service started again after a SIGKILL: the broker still counts the dead process a member of the group, holding the
 * partition, until its session times out. The service takes its place at once (static membership: the same
 * {@code group.instance.id}), so it rebuilds and goes live without waiting for a rebalance the dead member would hold
 * up (CrashIT found each restart waiting 40 s for it).
 */
@QuarkusTest
@QuarkusTestResource(
        value = BrokerResource.class,
        restrictToAnnotatedClass = true,
        initArgs = @ResourceArg(name = "crashed-predecessor", value = "true"))
class CrashedPredecessorTest {

    @Test
    void aServiceStartedAgainAfterACrashTakesItsPredecessorsPlaceAndCatchesUp() {
        var answered = hasEffectOf(BrokerResource.PING_UNANSWERED.id(), PingCore.PONG);
        assertTrue(
                answered.test(logUntil(answered)),
                "the pong decided before the crash but never appended is appended once the service has caught up");
    }
}
