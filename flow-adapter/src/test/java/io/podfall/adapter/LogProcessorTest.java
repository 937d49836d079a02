package io.podfall.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCodec;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.UnreadableEventException;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

/** The shared adapter against a real broker: rebuild on start, dead letters, timers. */
@QuarkusTest
@QuarkusTestResource(value = BrokerResource.class, restrictToAnnotatedClass = true)
class LogProcessorTest {

    /** The readable events among {@code records} (the poison records of some tests are skipped). */
    static List<Event> events(List<ConsumerRecord<String, byte[]>> records) {
        List<Event> events = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> r : records) {
            try {
                events.add(EventCodec.decode(
                        name -> {
                            Header h = r.headers().lastHeader(name);
                            return h == null ? null : h.value();
                        },
                        r.value()));
            } catch (UnreadableEventException poison) {
                // not an event: only the dead-letter topic says more of it
            }
        }
        return events;
    }

    /** The log until {@code done} holds; each record decoded once (one test appends 150,000 events). */
    static List<Event> logUntil(Predicate<List<Event>> done) {
        List<Event> log = new ArrayList<>();
        int[] decoded = {0};
        BrokerResource.readUntil(BrokerResource.TOPIC, records -> {
            log.addAll(events(records.subList(decoded[0], records.size())));
            decoded[0] = records.size();
            return done.test(log);
        });
        return log;
    }

    static Predicate<List<Event>> hasEffectOf(String causeId, String type) {
        return log -> log.stream().anyMatch(e -> e.is(type) && causeId.equals(e.causationId()));
    }

    @Test
    void onStartAnEffectAlreadyOnTheLogIsNotAppendedAgainAndAMissingOneIs() {
        List<Event> log = logUntil(hasEffectOf(BrokerResource.PING_UNANSWERED.id(), PingCore.PONG));
        assertEquals(
                1,
                log.stream()
                        .filter(e -> e.is(PingCore.PONG)
                                && BrokerResource.PING_ANSWERED.id().equals(e.causationId()))
                        .count(),
                "appended before the restart: kept once");
        assertEquals(
                1,
                log.stream()
                        .filter(e -> e.is(PingCore.PONG)
                                && BrokerResource.PING_UNANSWERED.id().equals(e.causationId()))
                        .count(),
                "decided but never appended: appended now");
    }

    /**
     * A decision larger than the producer takes at once (a garbage collector deleting the 100,000 pods of a ReplicaSet
     * in one pass) is appended whole: the emitter once overflowed at 65,536 and dropped the rest.
     */
    @Test
    void aDecisionOfMoreEventsThanTheProducerTakesAtOnceIsAppendedWhole() {
        int pongs = 150_000;
        Event ping = Event.request(
                "many-pongs",
                "/test-client",
                PingCore.PING,
                "namespaces/test/things/many",
                Instant.now(),
                null,
                Map.of("ringAfterMillis", -1, "pongs", pongs));
        BrokerResource.send(ping);

        byte[] cause = ping.id().getBytes(StandardCharsets.UTF_8);
        long[] counted = {0, 0}; // records looked at, answers among them
        BrokerResource.readUntil(BrokerResource.TOPIC, records -> {
            for (; counted[0] < records.size(); counted[0]++) {
                Header h = records.get((int) counted[0]).headers().lastHeader(EventCodec.H_CAUSATIONID);
                counted[1] += h != null && Arrays.equals(cause, h.value()) ? 1 : 0;
            }
            return counted[1] >= pongs;
        });
        assertEquals(pongs, counted[1]);
    }

    @Test
    void eventsOfATypeTheCoreDoesNotReadNeverReachIt() {
        Instant now = Instant.now();
        Event first = BrokerResource.ping("heard-1", now, -1);
        Event unread = Event.request(
                "unheard", "/test", PingCore.PONG, "namespaces/test/things/x", now, null, Map.of("pings", 0));
        Event second = BrokerResource.ping("heard-2", now, -1);
        BrokerResource.send(first, unread, second);

        List<Event> log = logUntil(hasEffectOf(second.id(), PingCore.PONG));
        Function<Event, Integer> handed = ping -> log.stream()
                .filter(e -> e.is(PingCore.PONG) && ping.id().equals(e.causationId()))
                .findFirst()
                .orElseThrow()
                .data()
                .path("handed")
                .asInt();
        assertEquals(
                1,
                handed.apply(second) - handed.apply(first),
                "only the second ping reached the core after the first: neither the pong between them nor the first's answer");
    }

    /** The event loop serves HTTP too: a poll handled on it held kubectl, watches and the health probe. */
    @Test
    void recordsAreHandledOnTheLogsOwnThreadNotOnAnEventLoop() {
        Event ping = BrokerResource.ping("which-thread", Instant.now(), -1);
        BrokerResource.send(ping);

        // The observers hear of the ping just after its pong is appended.
        logUntil(log -> threads.of(ping.id()) != null);
        HandlingThreads.Handler handler = threads.of(ping.id());
        assertTrue(handler != null, "the ping was handled");
        assertFalse(handler.eventLoop(), "handled on " + handler.thread());
        assertTrue(handler.thread().startsWith(LogProcessor.LOG_THREAD), "handled on " + handler.thread());
    }

    @Test
    void anUnreadableRecordGoesToTheDeadLetterTopicWithItsReasonAndTheServiceGoesOn() {
        BrokerResource.sendRaw(BrokerResource.TOPIC, "{not an event".getBytes(StandardCharsets.UTF_8));
        Event after = BrokerResource.ping("after-poison", Instant.now(), -1);
        BrokerResource.send(after);

        logUntil(hasEffectOf(after.id(), PingCore.PONG));
        assertFalse(
                deadLetterReasons(r -> r.contains("ce_specversion")).isEmpty(),
                "the record is on the dead-letter topic, and the reason says what is wrong");
    }

    @Test
    void eventsTheContractRefusesAreDeadLetteredWithTheirReasonAndCounted() {
        double before = deadLetters("unknown-type") + deadLetters("wrong-source") + deadLetters("bad-data");
        Instant now = Instant.now();
        BrokerResource.send(
                Event.request(
                        "teleported",
                        "/apiserver",
                        "apiserver.PodTeleported",
                        "namespaces/test/pods/a",
                        now,
                        null,
                        Map.of()),
                Event.request(
                        "forged-exit",
                        "/kubelet/node-1",
                        EventTypes.CONTAINER_EXITED,
                        "namespaces/test/pods/a",
                        now,
                        null,
                        Map.of()),
                Event.request(
                        "bad-ping",
                        "/test-client",
                        PingCore.PING,
                        "namespaces/test/things/bad",
                        now,
                        null,
                        Map.of("ringAfterMillis", "soon")));
        Event after = BrokerResource.ping("after-contract", now, -1);
        BrokerResource.send(after);

        logUntil(hasEffectOf(after.id(), PingCore.PONG));
        assertFalse(deadLetterReasons(r -> r.contains("unknown event type apiserver.PodTeleported"))
                .isEmpty());
        assertFalse(deadLetterReasons(r -> r.contains("runtime.ContainerExited may not come from /kubelet/node-1"))
                .isEmpty());
        assertFalse(deadLetterReasons(r -> r.contains("data of test.Ping does not match its schema"))
                .isEmpty());
        assertEquals(
                before + 3,
                deadLetters("unknown-type") + deadLetters("wrong-source") + deadLetters("bad-data"),
                "each is counted by kind");
    }

    @Test
    void liveARecordOfATypeTheCoreDoesNotReadIsReadNoFurtherThanItsEnvelope() {
        double before = deadLetters("not-an-event");
        Instant now = Instant.now();
        BrokerResource.sendWithHeader(
                Event.request(
                        "untimed-pong",
                        "/test",
                        PingCore.PONG,
                        "namespaces/test/things/x",
                        now,
                        null,
                        Map.of("pings", 0)),
                EventCodec.H_TIME,
                "soon");
        BrokerResource.sendWithHeader(BrokerResource.ping("untimed-ping", now, -1), EventCodec.H_TIME, "soon");
        Event after = BrokerResource.ping("after-untimed", now, -1);
        BrokerResource.send(after);

        logUntil(hasEffectOf(after.id(), PingCore.PONG));
        assertFalse(deadLetterReasons(r -> r.contains("ce_time is not an RFC 3339 timestamp: soon"))
                .isEmpty());
        assertEquals(before + 1, deadLetters("not-an-event"), "the ping's: the core reads pings, never pongs");
    }

    @Inject
    MeterRegistry metrics;

    @Inject
    LogProcessor processor;

    @Inject
    HandlingThreads threads;

    private double deadLetters(String reason) {
        var counter =
                metrics.find(LogProcessor.DEAD_LETTERS).tag("reason", reason).counter();
        return counter == null ? 0 : counter.count();
    }

    /** The reasons on the dead-letter topic that {@code match}, once at least one is there (or 30 s passed). */
    private static List<String> deadLetterReasons(Predicate<String> match) {
        Function<List<ConsumerRecord<String, byte[]>>, List<String>> reasons = records -> records.stream()
                .map(r ->
                        new String(r.headers().lastHeader("dead-letter-reason").value(), StandardCharsets.UTF_8))
                .filter(match)
                .toList();
        return reasons.apply(BrokerResource.readUntil(
                BrokerResource.TOPIC + ".dlq", r -> !reasons.apply(r).isEmpty()));
    }

    @Test
    void eventsWhileATimerWaitsLeaveOneAlarmQueued() {
        Event waiting = BrokerResource.ping(
                "far-timer", Instant.now(), Duration.ofMinutes(10).toMillis());
        BrokerResource.send(waiting);
        List<Event> pings = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            // Each with a timer of its own, later than the first: the earliest stays the same.
            pings.add(BrokerResource.ping(
                    "later-timer-" + i,
                    Instant.now(),
                    Duration.ofMinutes(20 + i).toMillis()));
        }
        BrokerResource.send(pings.toArray(Event[]::new));

        Event last = pings.get(pings.size() - 1);
        logUntil(hasEffectOf(last.id(), PingCore.PONG));
        assertEquals(1, processor.alarmsQueued(), "one alarm, for the earliest timer");
    }

    @Test
    void aTimerFiresAfterItsDelayAndContinuesTheFlowOfTheEventThatSetIt() {
        Event ping = BrokerResource.ping("with-timer", Instant.now(), 300);
        BrokerResource.send(ping);

        List<Event> log = logUntil(log1 ->
                log1.stream().anyMatch(e -> e.is(PingCore.RANG) && ping.id().equals(e.correlationId())));
        Event rang = log.stream()
                .filter(e -> e.is(PingCore.RANG) && ping.id().equals(e.correlationId()))
                .findFirst()
                .orElseThrow();
        Event pong = log.stream()
                .filter(e -> e.is(PingCore.PONG) && ping.id().equals(e.causationId()))
                .findFirst()
                .orElseThrow();
        assertEquals(ping.id(), rang.causationId());
        assertFalse(
                Duration.between(pong.time(), rang.time()).minusMillis(300).isNegative(),
                "the timer does not fire before its time");
    }
}
