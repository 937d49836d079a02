package io.podfall.controller.replicaset;

import io.podfall.model.event.Rfc3339;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * {@code metav1.Time} as objects carry it: RFC 3339 in whole seconds; absent is the zero time (null here). Read by
 * position ({@link Rfc3339}): the ReplicaSet and Deployment controllers read a pod's times at each of its facts.
 */
public final class MetaTimes {
    private MetaTimes() {
    }

    public static Instant parse(String time) {
        return time == null || time.isEmpty() ? null : Rfc3339.parse(time);
    }

    public static String format(Instant time) {
        return time.truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
