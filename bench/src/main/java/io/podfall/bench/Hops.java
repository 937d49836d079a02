package io.podfall.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Where the time of one deletion goes, hop by hop along its causal chain (from the client's request, through each
 * event's cause, to the pod's {@code ObjectRemoved}), from three clocks every event carries or gets:
 *
 * <ul>
 *   <li>{@code ce_time}: when the service that appended it began to handle its cause (live, the simulated clock at the
 *       event's arrival, which is the wall clock at time-scale 1);
 *   <li>the Kafka record's CreateTime: when that service handed it to its producer, so the end of its decision (the
 *       topic keeps the producer's time; LogAppendTime, the broker's, would hide the decision's end and only split
 *       Kafka's share into produce and fetch);
 *   <li>when a reader with the services' consumer settings received it ({@link TopicTap}).
 * </ul>
 *
 * So for an event E caused by C: Kafka's share is C sent → C received, the share of E's service is C received → E
 * handled (its consumer, the reactive-messaging dispatch, the processor's lock) plus E handled → E sent (its core and
 * the encoding). Before the chain, the client's HTTP request to the API server; after it, the watch event's way back to
 * the client. The points are kept in order (a millisecond CreateTime can read a little before the microsecond
 * {@code ce_time} it follows), so the segments add up to the client's latency exactly.
 */
final class Hops {
    static final String HTTP_IN = "HTTP: DELETE → API server";
    static final String WATCH_OUT = "HTTP: watch event → client";
    static final String KAFKA = "Kafka: sent → received";

    /** One event of the chain, with its three times (microseconds, CreateTime in milliseconds). */
    record Point(String type, String source, long timeMicros, long createTimeMillis, long receivedMicros) {}

    /** A part of one deletion's latency: where it went ({@code category}) on which hop ({@code hop}). */
    record Segment(String hop, String category, long micros) {}

    private Hops() {}

    /**
     * The segments of one deletion: {@code sentMicros} when the client sent the DELETE, {@code watchedMicros} when it
     * received the DELETED watch event, {@code chain} the events from the client's request to ObjectRemoved.
     */
    static List<Segment> of(long sentMicros, long watchedMicros, List<Point> chain) {
        List<Segment> out = new ArrayList<>();
        Point first = chain.get(0);
        long at = sentMicros;
        String request = "DELETE → " + shortType(first.type()) + " (" + service(first.source()) + ")";
        at = add(out, request, HTTP_IN, at, first.timeMicros());
        at = add(out, request, service(first.source()) + ": handled → sent", at, first.createTimeMillis() * 1000);
        for (int i = 1; i < chain.size(); i++) {
            Point cause = chain.get(i - 1);
            Point e = chain.get(i);
            String hop = shortType(cause.type()) + " → " + shortType(e.type()) + " (" + service(e.source()) + ")";
            long received = Math.min(Math.max(cause.receivedMicros(), at), Math.max(e.timeMicros(), at));
            at = add(out, hop, KAFKA, at, received);
            at = add(out, hop, service(e.source()) + ": received → handled", at, e.timeMicros());
            at = add(out, hop, service(e.source()) + ": handled → sent", at, e.createTimeMillis() * 1000);
        }
        add(
                out,
                shortType(chain.get(chain.size() - 1).type()) + " → DELETED watch event (client)",
                WATCH_OUT,
                at,
                watchedMicros);
        return out;
    }

    /** Which part of a hop a category is: 0 Kafka, 1 a service, 2 HTTP between the client and the API server. */
    static int part(String category) {
        return category.equals(KAFKA) ? 0 : category.startsWith("HTTP") ? 2 : 1;
    }

    /** Adds the segment from {@code from} to {@code to} (none if {@code to} is earlier) and returns where it ends. */
    private static long add(List<Segment> out, String hop, String category, long from, long to) {
        long end = Math.max(from, to);
        out.add(new Segment(hop, category, end - from));
        return end;
    }

    /** The service that appends events of a source: {@code /kubelet/node-1} → kubelet-svc. */
    static String service(String source) {
        String first = source.replaceFirst("^/", "").split("/")[0];
        return switch (first) {
            case "apiserver" -> "apiserver-svc";
            case "controller" -> "controller-svc";
            case "kubelet" -> "kubelet-svc";
            case "runtime", "csi" -> "runtime-svc";
            default -> first;
        };
    }

    private static String shortType(String type) {
        return type.substring(type.indexOf('.') + 1);
    }
}
