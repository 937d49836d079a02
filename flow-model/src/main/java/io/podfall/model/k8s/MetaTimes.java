package io.podfall.model.k8s;

import io.podfall.model.event.Rfc3339;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * {@code metav1.Time} as objects carry it: RFC 3339 in whole seconds, as its {@code MarshalJSON} writes it
 * (k8s.io/apimachinery/pkg/apis/meta/v1/time.go; only {@code MicroTime}, a Lease's or an Event's, keeps microseconds);
 * absent is the zero time (null here). Read by position ({@link Rfc3339}): the ReplicaSet and Deployment controllers
 * read a pod's times at each of its facts.
 */
public final class MetaTimes {
    private MetaTimes() {}

    public static Instant parse(String time) {
        return time == null || time.isEmpty() ? null : Rfc3339.parse(time);
    }

    /** What the API server, the kubelet and the controllers write: a time truncated to its second. */
    public static String format(Instant time) {
        return time.truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
