package io.podfall.model.core;

import io.podfall.model.event.Event;
import java.time.Instant;

/**
 * A wake-up a core asked for: at {@code at}, call {@link Core#fire}. A timer with the same key replaces the earlier
 * one. The cause is the event that set it: the effects of the timer belong to that event's flow.
 */
public record Timer(TimerKey key, Instant at, Event.Cause cause) {}
