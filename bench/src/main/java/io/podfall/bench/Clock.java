package io.podfall.bench;

import java.time.Instant;

/** Wall-clock time in microseconds since the epoch: the clock the services write {@code ce_time} with. */
final class Clock {
    private Clock() {}

    static long micros() {
        return micros(Instant.now());
    }

    static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000 + t.getNano() / 1_000;
    }
}
