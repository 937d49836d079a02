package io.podfall.controller.replicaset;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** {@code metav1.Time} as objects carry it: RFC 3339 in whole seconds; absent is the zero time (null here). */
public final class MetaTimes {
    private MetaTimes() {
    }

    public static Instant parse(String time) {
        return time == null || time.isEmpty() ? null : Instant.parse(time);
    }

    public static String format(Instant time) {
        return time.truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
