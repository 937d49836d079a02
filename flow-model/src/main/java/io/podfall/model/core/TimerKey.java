package io.podfall.model.core;

/**
 * What a timer is for, as a record of the core that sets it: the core recognises its timers by type and reads their
 * fields, never by parsing a string. Keys are equal when their records are.
 */
public interface TimerKey {

    /**
     * The key as text, unique across a service's parts: it orders timers due at one instant and seeds the ids of the
     * events the timer's firing emits, so it is part of the log and must not change.
     */
    String id();
}
