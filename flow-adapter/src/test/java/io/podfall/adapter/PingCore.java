package io.podfall.adapter;

import io.podfall.model.core.Core;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.core.TimerKey;
import io.podfall.model.event.Event;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.Map;

/**
 * A core for testing the adapter: answers every {@code test.Ping} with a {@code test.Pong} (or as many as the ping asks
 * for, in one decision), and when the ping asks for it, sets a timer that emits {@code test.Rang}. It reads pings only,
 * and each pong says how many events it was handed so far.
 */
final class PingCore implements Core<PingCore.Count> {
    static final String PING = "test.Ping";
    static final String PONG = "test.Pong";
    static final String RANG = "test.Rang";

    /** A ping's data: when to ring, if at all; how many pongs to answer with (one when absent). */
    record Ping(Long ringAfterMillis, Integer pongs) {}

    static final class Count {
        int pings;
        int handed;
    }

    @Override
    public Count newState() {
        return new Count();
    }

    @Override
    public Effects handle(Count state, Event event, Instant now) {
        state.handed++;
        if (!event.is(PING)) {
            return Effects.NONE;
        }
        state.pings++;
        Ping ping = event.data(Ping.class);
        var fx = Effects.of(event, now);
        for (int i = 0; i < (ping.pongs() == null ? 1 : ping.pongs()); i++) {
            fx.emit("/test", PONG, event.subject(), Map.of("pings", state.pings, "handed", state.handed));
        }
        Long after = ping.ringAfterMillis();
        if (after != null && after >= 0) {
            fx.timer(new Ring(event.id()), now.plusMillis(after));
        }
        return fx.build();
    }

    @Override
    public boolean reads(String type) {
        return type.equals(PING);
    }

    @Override
    public Effects fire(Count state, Timer timer, Instant now) {
        return Effects.of(timer, now)
                .emit(
                        "/test",
                        RANG,
                        "namespaces/test/things/x",
                        Map.of("key", timer.key().id()))
                .build();
    }

    /** The test types are this core's own catalogue; everything else is checked as podfall's. */
    @ApplicationScoped
    static class Contract extends EventContract {
        @Override
        public void check(String type, String source) {
            if (!type.startsWith("test.")) {
                super.check(type, source);
            }
        }
    }

    @ApplicationScoped
    static class Producer {
        @Produces
        @Singleton
        @SuppressWarnings("rawtypes")
        Core core() {
            return new PingCore();
        }
    }

    /** The alarm a ping set. */
    private record Ring(String ping) implements TimerKey {
        @Override
        public String id() {
            return "ring/" + ping;
        }
    }
}
