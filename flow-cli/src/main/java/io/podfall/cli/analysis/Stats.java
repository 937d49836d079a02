package io.podfall.cli.analysis;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.runtime.ContainerSignal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Every pod deletion of a log, measured: how long the whole deletion and each of its phases took, how often a container
 * had to be killed, how much of the requested grace period the containers got, and how often a pod was still in a
 * Service's Endpoints when it got SIGTERM (traffic may still reach it: the endpoints controller and the kubelet both
 * act on the pod being marked for deletion, and race). When the log counts the clients' requests
 * ({@code traffic.RequestsCounted}), how many succeeded and failed, and why, overall, per Service and per deletion (the
 * requests to the deleted pod that failed after the delete). Percentiles are nearest-rank: the value at rank ceil(p/100
 * * n) of the sorted values, so every figure is one that occurred.
 */
public record Stats(
        int flows,
        int completed,
        int rejected,
        int killed,
        int inEndpoints,
        int endpointsAfterSigterm,
        Map<String, Summary> durations,
        ClusterIncidents.Figures cluster,
        Traffic requests) {

    /** Row names, in the order of the table. */
    public static final String TOTAL = "total (request -> removed)";

    public static final String TO_TERMINATING = "request -> terminating";
    public static final String TO_SIGTERM = "terminating -> SIGTERM";
    public static final String TO_ENDPOINTS = "terminating -> out of endpoints";
    public static final String TO_EXIT = "SIGTERM -> exit";
    public static final String TO_SANDBOX_STOPPED = "exit -> sandbox stopped";
    public static final String TO_REMOVED = "sandbox stopped -> removed";
    public static final String GRACE_REQUESTED = "grace requested";
    public static final String GRACE_HONOURED = "grace honoured (SIGTERM -> exit/kill)";

    /**
     * The clients' requests: null when the log counts none. {@code broken}: the deletions whose pod failed requests, in
     * the order they were asked for.
     */
    public record Traffic(Requests.Tally all, Map<String, Requests.Tally> byService, List<Requests.Broken> broken) {
        /** How many deletions the text names; {@code --json} names them all. */
        static final int LISTED = 10;

        String render() {
            StringBuilder out = new StringBuilder("requests: " + all.render() + String.format("%n"));
            byService.forEach((service, t) -> out.append(String.format("  %s: %s%n", service, t.render())));
            out.append(String.format("deletions that broke requests: %d%n", broken.size()));
            broken.stream()
                    .sorted(Comparator.comparingLong(
                            (Requests.Broken b) -> -b.failed().failed()))
                    .limit(LISTED)
                    .forEach(b -> out.append(String.format(
                            "  %s (flow %s): %s%n",
                            b.pod(), b.correlationId(), b.failed().renderFailed())));
            if (broken.size() > LISTED) {
                out.append(String.format("  ... %d more (--json lists them all)%n", broken.size() - LISTED));
            }
            return out.toString();
        }

        ObjectNode json() {
            ObjectNode o = all.json();
            ObjectNode services = o.putObject("services");
            byService.forEach((service, t) -> services.set(service, t.json()));
            ArrayNode deletions = o.putArray("deletions");
            broken.forEach(
                    b -> deletions.add(b.failed().json().put("pod", b.pod()).put("correlationId", b.correlationId())));
            return o;
        }
    }

    /** n values, in milliseconds. */
    public record Summary(int n, long p50, long p90, long p99, long max) {
        public static Summary of(List<Long> values) {
            List<Long> sorted = values.stream().sorted().toList();
            return new Summary(
                    sorted.size(),
                    rank(sorted, 50),
                    rank(sorted, 90),
                    rank(sorted, 99),
                    sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1));
        }

        private static long rank(List<Long> sorted, int p) {
            return sorted.isEmpty() ? 0 : sorted.get((int) Math.ceil(p / 100.0 * sorted.size()) - 1);
        }
    }

    /** The phases, by row: what each measures of a deletion that was not rejected (empty: not measured). */
    private static final Map<String, Function<Deletion, Optional<Duration>>> PHASES = new LinkedHashMap<>();

    static {
        PHASES.put(TOTAL, d -> span(d.requested, d.removed));
        PHASES.put(TO_TERMINATING, d -> span(d.requested, d.terminating));
        PHASES.put(TO_SIGTERM, d -> span(d.terminating, d.sigterm));
        PHASES.put(TO_ENDPOINTS, d -> span(d.terminating, d.outOfEndpoints));
        PHASES.put(TO_EXIT, d -> span(d.sigterm, d.lastExit));
        PHASES.put(TO_SANDBOX_STOPPED, d -> span(d.lastExit, d.sandboxStopped));
        PHASES.put(TO_REMOVED, d -> span(d.sandboxStopped, d.removed));
        PHASES.put(GRACE_REQUESTED, d -> d.requestedGraceSeconds().map(Duration::ofSeconds));
        PHASES.put(GRACE_HONOURED, d -> span(d.sigterm, d.sigkill != null ? d.sigkill : d.lastExit));
    }

    public static Stats of(List<Event> log) {
        Collector c = new Collector();
        log.forEach(c);
        return c.result();
    }

    /**
     * What stats reads of one pod deletion, folded from the events of its correlation in log order: the times of the
     * first of each step (the last container exit), and the grace periods. Nothing of an event is kept but these, so a
     * deletion costs the same few fields however many events it has.
     */
    static final class Deletion {
        final Instant requested;
        /** The grace period the client asked for; null when it asked none. */
        final Long askedGrace;

        final String requestId;
        final String requestCorrelation;
        /** The pod's subject. */
        final String subject;
        /** The deleted pod's uid: from its marking, else from a signal to it; null until one is read. */
        String podUid;

        Instant terminating;
        /** The API server's deletionGracePeriodSeconds, on the first ObjectMarkedTerminating. */
        Long terminatingGrace;

        Instant sigterm;
        Instant sigkill;
        Instant lastExit;
        Instant sandboxStopped;
        Instant removed;
        /** When a Service's Endpoints first changed in answer to the pod being marked for deletion. */
        Instant outOfEndpoints;

        boolean rejected;

        Deletion(Event request) {
            requested = request.time();
            requestId = request.id();
            requestCorrelation = request.correlationId();
            subject = request.subject();
            askedGrace = DeletionFlow.askedGrace(request);
        }

        void fold(Event e) {
            switch (e.type()) {
                case EventTypes.OBJECT_MARKED_TERMINATING -> {
                    if (terminating == null) {
                        terminating = e.time();
                        terminatingGrace = KubeObject.of(e).deletionGracePeriodSeconds();
                    }
                    String uid = KubeObject.of(e).uid();
                    podUid = podUid == null && !uid.isEmpty() ? uid : podUid;
                }
                case EventTypes.CONTAINER_SIGNALLED -> {
                    ContainerSignal signal = e.data(ContainerSignal.class);
                    boolean kill = DeletionFlow.isKill(signal);
                    podUid = podUid == null ? signal.podUid() : podUid;
                    if (!kill && sigterm == null) {
                        sigterm = e.time();
                    } else if (kill && sigkill == null) {
                        sigkill = e.time();
                    }
                }
                case EventTypes.CONTAINER_EXITED -> lastExit = e.time();
                case EventTypes.SANDBOX_STOPPED -> sandboxStopped = sandboxStopped == null ? e.time() : sandboxStopped;
                case EventTypes.OBJECT_REMOVED -> removed = removed == null ? e.time() : removed;
                case EventTypes.REQUEST_REJECTED -> rejected |= DeletionFlow.rejects(e, requestId);
                default -> {}
            }
        }

        /** The pod as {@code namespace/name}. */
        String pod() {
            return Subjects.namespaceOf(subject) + "/" + subject.substring(subject.lastIndexOf('/') + 1);
        }

        /** The grace period the client asked for, else the one the API server set; empty when neither says. */
        Optional<Long> requestedGraceSeconds() {
            return Optional.ofNullable(askedGrace != null ? askedGrace : terminatingGrace);
        }
    }

    /**
     * Stats of a log read one event at a time, in log order, without keeping the log: each event is folded into its
     * deletion's {@link Deletion} and forgotten. Memory grows with the number of deletions (a few fields each, as the
     * exact percentiles need one number per phase and deletion anyway), not with their events. A deletion is never
     * closed early: steps may still come after its pod is gone (a restarted runtime repeating a kill), and they count
     * as they did when the whole log was held.
     */
    public static final class Collector implements Consumer<Event> {
        private final Instant since;
        private final Instant until;
        private final Map<String, Deletion> deletions = new LinkedHashMap<>();
        private final EndpointsChain endpoints = new EndpointsChain();
        /** Each pod's ObjectMarkedTerminating, by id, to its deletion. */
        private final Map<String, Deletion> markedFor = new HashMap<>();

        private final ClusterIncidents cluster = new ClusterIncidents();
        private final Requests requests;

        /** Every deletion of the log. */
        public Collector() {
            this(null, null);
        }

        /**
         * The deletions requested in {@code [since, until)} (either null: unbounded), each measured to its end even
         * when that lies beyond {@code until}.
         */
        public Collector(Instant since, Instant until) {
            this.since = since;
            this.until = until;
            this.requests = new Requests(since, until);
        }

        @Override
        public void accept(Event e) {
            cluster.accept(e);
            requests.accept(e);
            if (DeletionFlow.isRequest(e)) {
                if ((since == null || !e.time().isBefore(since))
                        && (until == null || e.time().isBefore(until))) {
                    deletions.putIfAbsent(DeletionFlow.key(e), new Deletion(e));
                }
                return;
            }
            Deletion d = deletions.get(DeletionFlow.key(e));
            if (d != null) {
                d.fold(e);
                if (e.is(EventTypes.OBJECT_MARKED_TERMINATING)) {
                    markedFor.put(e.id(), d);
                }
            }
            endpoints
                    .accept(e)
                    .map(marked -> markedFor.get(marked.id()))
                    .filter(x -> x.outOfEndpoints == null)
                    .ifPresent(x -> x.outOfEndpoints = e.time());
        }

        /** Deletions read so far. */
        public int deletions() {
            return deletions.size();
        }

        /** The figures of everything read so far. */
        public Stats result() {
            Map<String, List<Long>> millis = new LinkedHashMap<>();
            PHASES.keySet().forEach(row -> millis.put(row, new ArrayList<>()));
            int flows = 0;
            int completed = 0;
            int rejected = 0;
            int killed = 0;
            int inEndpoints = 0;
            int afterSigterm = 0;
            for (Deletion d : deletions.values()) {
                if (d.rejected) {
                    rejected++;
                    continue;
                }
                flows++;
                PHASES.forEach((row, phase) ->
                        phase.apply(d).ifPresent(x -> millis.get(row).add(x.toMillis())));
                completed += d.removed != null ? 1 : 0;
                killed += d.sigkill != null ? 1 : 0;
                inEndpoints += d.outOfEndpoints != null ? 1 : 0;
                afterSigterm +=
                        d.outOfEndpoints != null && d.sigterm != null && d.outOfEndpoints.isAfter(d.sigterm) ? 1 : 0;
            }
            Map<String, Summary> summaries = new LinkedHashMap<>();
            millis.forEach((row, values) -> summaries.put(row, Summary.of(values)));
            Traffic traffic = requests.any()
                    ? new Traffic(requests.all(), requests.byService(), requests.broken(deletions.values()))
                    : null;
            return new Stats(
                    flows,
                    completed,
                    rejected,
                    killed,
                    inEndpoints,
                    afterSigterm,
                    summaries,
                    cluster.figures(),
                    traffic);
        }
    }

    /** The share of deletions (not rejected) in which a container got SIGKILL; 0 without deletions. */
    public double sigkillRate() {
        return flows == 0 ? 0 : (double) killed / flows;
    }

    private static Optional<Duration> span(Instant from, Instant to) {
        return from != null && to != null ? Optional.of(Duration.between(from, to)) : Optional.empty();
    }

    public String render() {
        StringBuilder out = new StringBuilder();
        out.append(String.format(
                "deletion flows: %d (completed %d, incomplete %d; rejected requests %d)%n",
                flows, completed, flows - completed, rejected));
        out.append(String.format("SIGKILL rate: %d/%d (%.1f%%)%n", killed, flows, 100 * sigkillRate()));
        out.append(String.format(
                "still in a Service's endpoints after SIGTERM: %d/%d of the pods that were in one%n%n",
                endpointsAfterSigterm, inEndpoints));
        out.append(cluster.render());
        out.append(cluster.any() ? String.format("%n") : "");
        if (requests != null) {
            out.append(requests.render()).append(String.format("%n"));
        }
        int label = durations.keySet().stream().mapToInt(String::length).max().orElse(0);
        String row = "%-" + label + "s %5s %10s %10s %10s %10s%n";
        out.append(String.format(row, "in ms", "n", "p50", "p90", "p99", "max"));
        durations.forEach((name, s) -> out.append(String.format(
                row,
                name,
                s.n(),
                s.n() == 0 ? "-" : s.p50(),
                s.n() == 0 ? "-" : s.p90(),
                s.n() == 0 ? "-" : s.p99(),
                s.n() == 0 ? "-" : s.max())));
        return out.toString();
    }

    public ObjectNode json() {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("flows", flows);
        o.put("completed", completed);
        o.put("rejected", rejected);
        o.put("killed", killed);
        o.put("sigkillRate", sigkillRate());
        o.put("inEndpoints", inEndpoints);
        o.put("endpointsAfterSigterm", endpointsAfterSigterm);
        ObjectNode ms = o.putObject("millis");
        durations.forEach((name, s) -> ms.set(key(name), Json.tree(s)));
        o.set("cluster", cluster.json());
        if (requests != null) {
            o.set("requests", requests.json());
        }
        return o;
    }

    /** JSON keys: the row names in camel case ("request -> terminating" is "requestToTerminating"). */
    static String key(String row) {
        String[] words =
                row.replaceAll("\\(.*\\)", "").replace("->", "to").trim().split("[^A-Za-z0-9]+");
        StringBuilder k = new StringBuilder(words[0].toLowerCase());
        for (int i = 1; i < words.length; i++) {
            k.append(Character.toUpperCase(words[i].charAt(0))).append(words[i].substring(1));
        }
        return k.toString();
    }
}
