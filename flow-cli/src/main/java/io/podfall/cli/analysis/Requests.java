package io.podfall.cli.analysis;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.traffic.RequestCounts;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The clients' requests of a log, read from its {@code traffic.RequestsCounted} in one pass: the totals, each
 * Service's, and each pod's failures window by window, so a deletion's share (the failures of its pod after it was
 * asked for) and a rule's (those after the pod's SIGTERM) can be told afterwards. A log without traffic holds none.
 */
public final class Requests implements Consumer<Event> {
    /** Counted windows that end after {@code since} and begin before {@code until} (either null: unbounded). */
    private final Instant since;

    private final Instant until;
    private final Tally all = new Tally();
    private final Map<String, Tally> byService = new TreeMap<>();
    /** Each pod's windows with failed requests, by pod uid, in log order. */
    private final Map<String, List<Failed>> failedByPod = new HashMap<>();

    /** The uids of the pods requests were sent to. */
    private final Set<String> counted = new HashSet<>();

    private boolean any;

    /** The failed requests of one endpoint in one node's window. */
    record Failed(String node, Instant from, Instant to, Map<String, Long> failed) {}

    Requests() {
        this(null, null);
    }

    Requests(Instant since, Instant until) {
        this.since = since;
        this.until = until;
    }

    static Requests of(List<Event> log) {
        Requests r = new Requests();
        log.forEach(r);
        return r;
    }

    @Override
    public void accept(Event e) {
        if (!e.is(EventTypes.REQUESTS_COUNTED)) {
            return;
        }
        any = true;
        RequestCounts c = e.data(RequestCounts.class);
        if ((since == null || c.to().isAfter(since))
                && (until == null || c.from().isBefore(until))) {
            all.add(c.succeeded(), c.failed());
            byService
                    .computeIfAbsent(c.namespace() + "/" + c.service(), s -> new Tally())
                    .add(c.succeeded(), c.failed());
        }
        for (RequestCounts.EndpointCounts ep : c.endpoints()) {
            counted.add(ep.podUid());
            if (!ep.failed().isEmpty()) {
                failedByPod
                        .computeIfAbsent(ep.podUid(), u -> new ArrayList<>())
                        .add(new Failed(c.node(), c.from(), c.to(), ep.failed()));
            }
        }
    }

    /** Whether the log holds any counted requests: without them there is nothing to report. */
    boolean any() {
        return any;
    }

    /** Whether requests were sent to the pod: its Service was under load while it was one of its endpoints. */
    boolean counted(String podUid) {
        return counted.contains(podUid);
    }

    Tally all() {
        return all;
    }

    /** Each Service's requests, by {@code namespace/name}. */
    Map<String, Tally> byService() {
        return byService;
    }

    /** The windows in which requests to the pod failed, in log order. */
    List<Failed> failedOf(String podUid) {
        return failedByPod.getOrDefault(podUid, List.of());
    }

    /**
     * The requests to the pod that failed in the windows that end after {@code after}: a window is counted whole, as
     * the counts say no more of when in it a request ended.
     */
    Tally failedAfter(String podUid, Instant after) {
        Tally t = new Tally();
        failedOf(podUid).stream().filter(f -> f.to().isAfter(after)).forEach(f -> t.add(0, f.failed()));
        return t;
    }

    /** Requests succeeded and failed by reason; mutable while a log is read. */
    public static final class Tally {
        private long succeeded;
        private final Map<String, Long> failed = new TreeMap<>();

        void add(long succeeded, Map<String, Long> failed) {
            this.succeeded += succeeded;
            failed.forEach((reason, n) -> this.failed.merge(reason, n, Long::sum));
        }

        public long succeeded() {
            return succeeded;
        }

        public long failed() {
            return failed.values().stream().mapToLong(Long::longValue).sum();
        }

        /** Failures by reason, sorted, no zero. */
        public Map<String, Long> failedBy() {
            return failed;
        }

        /** {@code 1200 sent, 1163 succeeded, 37 failed (30 refused, 7 reset)}. */
        public String render() {
            return (succeeded + failed()) + " sent, " + succeeded + " succeeded, " + renderFailed();
        }

        /** {@code 37 failed (30 refused, 7 reset)}, or {@code 0 failed}. */
        public String renderFailed() {
            return failed() + " failed" + (failed.isEmpty() ? "" : " (" + reasons() + ")");
        }

        /** {@code 30 refused, 7 reset}. */
        public String reasons() {
            return failed.entrySet().stream()
                    .map(r -> r.getValue() + " " + r.getKey())
                    .collect(Collectors.joining(", "));
        }

        ObjectNode json() {
            ObjectNode o = Json.MAPPER.createObjectNode();
            o.put("sent", succeeded + failed());
            o.put("succeeded", succeeded);
            o.put("failed", failed());
            o.set("failedBy", Json.tree(failed));
            return o;
        }
    }

    /** A pod's deletion and the requests to the pod that failed after it was asked for. */
    public record Broken(String pod, String correlationId, Tally failed) {}

    /**
     * The deletions that broke requests, in log order: each pod's failures go to its first deletion (a second delete of
     * the pod only shortens the first's grace), counted from the windows that end after it was asked for.
     */
    List<Broken> broken(Collection<Stats.Deletion> deletions) {
        Set<String> claimed = new HashSet<>();
        List<Broken> out = new ArrayList<>();
        for (Stats.Deletion d : deletions) {
            if (d.rejected || d.podUid == null || !claimed.add(d.podUid)) {
                continue;
            }
            Tally failed = failedAfter(d.podUid, d.requested);
            if (failed.failed() > 0) {
                out.add(new Broken(d.pod(), d.requestCorrelation, failed));
            }
        }
        return out;
    }
}
