package io.podfall.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.cli.analysis.Stats;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.ToLongFunction;

/**
 * P1, single-pod latency: pods whose process exits at once on SIGTERM, deleted one after another with the default grace
 * period, each timed from the DELETE to the DELETED watch event through the four services over Kafka, and taken apart
 * hop by hop ({@link Hops}). Pods are created in batches of at most 100 ahead of their deletions, since the one node
 * takes 110 (the kubelet's --max-pods).
 */
final class LatencyBench {
    static final String NAMESPACE = "default";
    private static final String LABEL = "podfall-bench";
    private static final int BATCH = 100;
    /**
     * A fresh suite's JVMs compile their hot paths over the first thousand or so deletions (C2 took about half the
     * machine's CPU then, and p99 was 2.5 times the warm one), so that many run first and are reported apart.
     */
    static final String DEFAULT_WARMUP = "1000";

    private final RunOptions run;
    private final int deletions;
    private final int warmup;

    /** {@code deletions} measured after {@code warmup} more. */
    LatencyBench(RunOptions run, int deletions, int warmup) {
        this.run = run;
        this.deletions = deletions;
        this.warmup = warmup;
    }

    /** One timed deletion: when the DELETE was sent and when its DELETED watch event came, in microseconds. */
    private record Timed(String name, long sentMicros, long watchedMicros) {}

    Report run() {
        Machine machine = Machine.now();
        try (BenchSuite suite = BenchSuite.start(run, "p1", 1, 1.0)) {
            Map<String, TopicTap.Tapped> byId = new ConcurrentHashMap<>();
            List<Event> log = Collections.synchronizedList(new ArrayList<>());
            List<Timed> timed = new ArrayList<>();
            try (TopicTap tap = new TopicTap(suite.bootstrap(), BenchSuite.TOPIC, t -> {
                byId.put(t.event().id(), t);
                log.add(t.event());
            })) {
                ApiClient api = suite.api();
                String pods = "/api/v1/namespaces/" + NAMESPACE + "/pods";
                String selector = "?labelSelector=" + LABEL + "%3Dp1";
                String rv = api.get(pods + selector)
                        .body()
                        .path("metadata")
                        .path("resourceVersion")
                        .asText();
                Map<String, CompletableFuture<Long>> deleted = new ConcurrentHashMap<>();
                try (WatchClient watch =
                        new WatchClient(suite.http(), suite.server(), pods + selector + "&resourceVersion=" + rv, c -> {
                            if ("DELETED".equals(c.type())) {
                                deleted.computeIfAbsent(c.name(), n -> new CompletableFuture<>())
                                        .complete(c.receivedMicros());
                            }
                        })) {
                    int total = warmup + deletions;
                    for (int from = 0; from < total; from += BATCH) {
                        List<String> batch = new ArrayList<>();
                        for (int i = from; i < Math.min(total, from + BATCH); i++) {
                            batch.add(String.format("lat-%05d", i));
                        }
                        createRunning(suite, batch);
                        for (String name : batch) {
                            CompletableFuture<Long> gone =
                                    deleted.computeIfAbsent(name, n -> new CompletableFuture<>());
                            long sent = Clock.micros();
                            ApiClient.Response r = api.delete(pods + "/" + name, new DeleteOptions());
                            if (r.code() != 200) {
                                throw new IllegalStateException(
                                        "DELETE " + name + " answered " + r.code() + " " + r.body());
                            }
                            timed.add(new Timed(name, sent, await(gone, name, watch)));
                        }
                        ProgressLines.line("p1: %d of %d deletions (%d of them warm-up)", timed.size(), total, warmup);
                    }
                }
                long[] held = suite.awaitRuntimeEmpty(Duration.ofSeconds(30));
                tap.awaitCaughtUp(Duration.ofSeconds(60));
                Report report = report(
                        machine,
                        timed,
                        byId,
                        List.copyOf(log),
                        held,
                        api.get(pods + selector).body().path("items").size());
                tap.check(report);
                return report;
            }
        }
    }

    private void createRunning(BenchSuite suite, List<String> names) {
        String pods = "/api/v1/namespaces/" + NAMESPACE + "/pods";
        for (String name : names) {
            ApiClient.Response r = suite.api()
                    .post(
                            pods,
                            new PodBuilder()
                                    .withNewMetadata()
                                    .withName(name)
                                    .withNamespace(NAMESPACE)
                                    .addToLabels(LABEL, "p1")
                                    .endMetadata()
                                    .withSpec(Deployments.podSpec())
                                    .build());
            if (r.code() != 201) {
                throw new IllegalStateException("create " + name + " answered " + r.code() + " " + r.body());
            }
        }
        suite.api()
                .await(
                        pods + "?labelSelector=" + LABEL + "%3Dp1",
                        r -> running(r.body()) == names.size(),
                        Duration.ofSeconds(120),
                        names.size() + " pods Running");
    }

    private static long running(JsonNode list) {
        long n = 0;
        for (JsonNode pod : list.path("items")) {
            if ("Running".equals(pod.path("status").path("phase").asText())) {
                n++;
            }
        }
        return n;
    }

    private static long await(CompletableFuture<Long> gone, String name, WatchClient watch) {
        try {
            return gone.get(120, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            watch.check();
            throw new IllegalStateException("no DELETED watch event for " + name + " within 120 s");
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private Report report(
            Machine machine,
            List<Timed> timed,
            Map<String, TopicTap.Tapped> byId,
            List<Event> log,
            long[] runtimeHeld,
            int podsLeft) {
        List<Timed> warming = timed.subList(0, Math.min(warmup, timed.size()));
        List<Timed> measured = timed.subList(warming.size(), timed.size());
        Report report = new Report(
                "P1 single-pod latency",
                String.format(
                        "%d sequential deletions after %d of warm-up on the same fresh suite, DELETE → DELETED watch event; one "
                                + "node, time-scale 1, default grace period (30 s) with a process that exits at once on SIGTERM.",
                        measured.size(), warming.size()),
                machine);
        Map<String, Event> removed = new LinkedHashMap<>();
        for (Event e : log) {
            if (e.is(EventTypes.OBJECT_REMOVED)) {
                removed.put(e.subject(), e);
            }
        }
        List<Long> latencies = new ArrayList<>();
        Map<String, Long> byCategory = new LinkedHashMap<>();
        // per hop, per deletion: {Kafka, the service, HTTP}
        Map<String, List<long[]>> byHop = new LinkedHashMap<>();
        int broken = 0;
        for (Timed t : measured) {
            latencies.add(t.watchedMicros() - t.sentMicros());
            Event gone = removed.get(Subjects.of(NAMESPACE, "pods", t.name()));
            List<Hops.Point> chain = gone == null ? List.of() : chain(gone.id(), byId);
            if (chain.isEmpty()
                    || !EventTypes.DELETION_REQUESTED.equals(chain.get(0).type())) {
                broken++;
                continue;
            }
            Map<String, long[]> hop = new LinkedHashMap<>();
            for (Hops.Segment s : Hops.of(t.sentMicros(), t.watchedMicros(), chain)) {
                byCategory.merge(s.category(), s.micros(), Long::sum);
                hop.computeIfAbsent(s.hop(), h -> new long[3])[Hops.part(s.category())] += s.micros();
            }
            hop.forEach((h, parts) ->
                    byHop.computeIfAbsent(h, k -> new ArrayList<>()).add(parts));
        }

        Stats.Summary s = Stats.Summary.of(latencies);
        Stats.Summary cold = Stats.Summary.of(
                warming.stream().map(t -> t.watchedMicros() - t.sentMicros()).toList());
        report.table("latency, DELETE → DELETED watch event", "deletions", "n", "p50", "p90", "p99", "max")
                .row(
                        "warm-up (JIT compiling)",
                        cold.n(),
                        Report.ms(cold.p50() / 1e3),
                        Report.ms(cold.p90() / 1e3),
                        Report.ms(cold.p99() / 1e3),
                        Report.ms(cold.max() / 1e3))
                .row(
                        "measured",
                        s.n(),
                        Report.ms(s.p50() / 1e3),
                        Report.ms(s.p90() / 1e3),
                        Report.ms(s.p99() / 1e3),
                        Report.ms(s.max() / 1e3));
        report.figures()
                .putObject("warmup")
                .put("n", cold.n())
                .put("p50Ms", cold.p50() / 1e3)
                .put("p99Ms", cold.p99() / 1e3)
                .put("maxMs", cold.max() / 1e3);
        report.figures()
                .put("n", s.n())
                .put("p50Ms", s.p50() / 1e3)
                .put("p90Ms", s.p90() / 1e3)
                .put("p99Ms", s.p99() / 1e3)
                .put("maxMs", s.max() / 1e3);
        long total = byCategory.values().stream().mapToLong(Long::longValue).sum();
        Report.Table shares = report.table(
                "where the time goes (all measured deletions; each event's ce_time, its "
                        + "record's CreateTime, and when a reader with the services' consumer settings received it)",
                "where",
                "share",
                "mean per deletion");
        var sharesJson = report.figures().putObject("shares");
        byCategory.forEach((category, micros) -> {
            shares.row(
                    category,
                    Report.pct((double) micros / Math.max(total, 1)),
                    Report.ms(micros / 1e3 / Math.max(s.n(), 1)));
            sharesJson.put(category, (double) micros / Math.max(total, 1));
        });
        // p99 beside p50: the target is a p99, and a hop's tail is not where its median is.
        Report.Table hops = report.table(
                "per hop, p50 / p99 (in the service: its consumer and dispatch, then its core " + "and producer)",
                "hop",
                "Kafka",
                "in the service",
                "HTTP",
                "total");
        byHop.forEach((h, parts) -> hops.row(
                h,
                quantiles(parts, p -> p[0]),
                quantiles(parts, p -> p[1]),
                quantiles(parts, p -> p[2]),
                quantiles(parts, p -> p[0] + p[1] + p[2])));
        report.target("p99 ≤ 50 ms", Report.ms(s.p99() / 1e3), s.p99() <= 50_000);

        report.check("every pod gone", podsLeft == 0, podsLeft + " of the benchmark's pods still listed");
        report.check(
                "every deletion's chain on the log",
                broken == 0,
                broken == 0
                        ? "each from the client's DeletionRequested to ObjectRemoved"
                        : broken + " deletions without a causal chain from the request to ObjectRemoved");
        report.check(
                "no sandbox or pod IP left on the runtime",
                runtimeHeld[0] == 0 && runtimeHeld[1] == 0,
                "podfall_runtime_sandboxes " + runtimeHeld[0] + ", podfall_runtime_pod_ips " + runtimeHeld[1]);
        LogCheck.add(report, log);
        return report;
    }

    private static String quantiles(List<long[]> parts, ToLongFunction<long[]> part) {
        Stats.Summary s =
                Stats.Summary.of(parts.stream().map(p -> part.applyAsLong(p)).toList());
        return Report.ms(s.p50() / 1e3) + " / " + Report.ms(s.p99() / 1e3);
    }

    /** The events from the flow's first (a request with no cause) to {@code lastId}, following causes back. */
    static List<Hops.Point> chain(String lastId, Map<String, TopicTap.Tapped> byId) {
        List<Hops.Point> chain = new ArrayList<>();
        for (TopicTap.Tapped t = byId.get(lastId);
                t != null;
                t = t.event().causationId() == null ? null : byId.get(t.event().causationId())) {
            Event e = t.event();
            chain.add(new Hops.Point(
                    e.type(), e.source(), Clock.micros(e.time()), t.createTimeMillis(), t.receivedMicros()));
            if (e.causationId() != null && !byId.containsKey(e.causationId())) {
                return List.of();
            }
        }
        Collections.reverse(chain);
        return chain;
    }
}
