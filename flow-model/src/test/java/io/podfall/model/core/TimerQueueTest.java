package io.podfall.model.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.model.event.Event;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class TimerQueueTest {
    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    private static final Event.Cause CAUSE =
            new Event.Cause("e1", "e1", "00-" + "1".repeat(32) + "-" + "2".repeat(16) + "-01");

    private record Key(String id) implements TimerKey {}

    private static Timer timer(String key, int seconds) {
        return new Timer(new Key(key), T0.plusSeconds(seconds), CAUSE);
    }

    @Test
    void timersFireInDueOrderThenKeyOrder() {
        TimerQueue q = new TimerQueue();
        q.set(timer("b", 5));
        q.set(timer("a", 5));
        q.set(timer("c", 1));
        assertEquals(
                List.of("c", "a", "b"),
                List.of(
                        q.pollDue(T0.plusSeconds(9)).orElseThrow().key().id(),
                        q.pollDue(T0.plusSeconds(9)).orElseThrow().key().id(),
                        q.pollDue(T0.plusSeconds(9)).orElseThrow().key().id()));
        assertTrue(q.pollDue(T0.plusSeconds(9)).isEmpty());
    }

    @Test
    void nothingFiresBeforeItsTime() {
        TimerQueue q = new TimerQueue();
        q.set(timer("kill", 30));
        assertTrue(q.pollDue(T0.plusSeconds(29)).isEmpty());
        assertEquals("kill", q.pollDue(T0.plusSeconds(30)).orElseThrow().key().id());
    }

    @Test
    void aTimerWithTheSameKeyReplacesTheEarlierOne() {
        TimerQueue q = new TimerQueue();
        Timer first = timer("kill", 60);
        q.set(first);
        q.set(timer("kill", 5));
        assertFalse(q.isCurrent(first));
        assertEquals(1, q.size());
        assertEquals(T0.plusSeconds(5), q.next().orElseThrow().at());
    }

    @Test
    void effectsCancelBeforeTheySet() {
        TimerQueue q = new TimerQueue();
        q.set(timer("exit", 2));
        q.apply(new Effects(List.of(), List.of(timer("exit", 7)), List.of(new Key("exit"))));
        assertEquals(T0.plusSeconds(7), q.next().orElseThrow().at(), "a step may cancel a key and set it anew");
    }
}
