package io.podfall.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.ServiceProcess;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.e2e.HostileRequests.Existing;
import io.podfall.e2e.HostileRequests.Hostile;
import io.podfall.model.Json;
import io.podfall.model.k8s.ResourceType;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Thousands of malformed and hostile requests ({@link HostileRequests}, seeded) against the packaged API server on a
 * real broker: none gets a 5xx, every 4xx is a Kubernetes {@code Status} whose code is the HTTP status, no write aimed
 * at an existing object is accepted, the objects are as they were before, and the suite still works: every service
 * ready, nothing dead-lettered, no unhandled exception in the API server's log, a pod deleted gracefully. Every finding
 * is collected with the request that caused it and reported at the end.
 *
 * <p>{@code -Dpodfall.fuzz.seed=N} replays a run (the seed is printed), {@code -Dpodfall.fuzz.requests=N} runs longer.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class ApiFuzzIT {
    private static final long SEED = Long.getLong("podfall.fuzz.seed", 20260310L);
    private static final int REQUESTS = Integer.getInteger("podfall.fuzz.requests", 2500);
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final Duration SETTLE = Duration.ofSeconds(90);
    private static final Pattern MALFORMED_ESCAPE = Pattern.compile("%(?![0-9A-Fa-f]{2})");

    @Test
    void hostileRequestsGetA4xxStatusAndChangeNothing(Suite suite) throws Exception {
        ApiClient api = new ApiClient(suite.apiserverUrl());
        List<Existing> snapshot = createTargets(api);
        List<Existing> targets = new ArrayList<>(snapshot);
        targets.addAll(liveTargets(api));
        RawHttp http = new RawHttp(suite.apiserverUrl());
        List<Existing> decoys = createDecoys(api, http);
        Map<String, Long> deadLettersBefore = deadLetters(suite);
        long logStart = Files.size(suite.service("apiserver-svc").log());
        System.out.printf("ApiFuzzIT: seed %d, %d requests (-Dpodfall.fuzz.seed=%d to replay)%n", SEED, REQUESTS, SEED);

        HostileRequests generator = new HostileRequests(SEED, targets, decoys);
        List<String> findings = new ArrayList<>();
        Map<String, Integer> byKind = new TreeMap<>();
        Map<Integer, Integer> byCode = new TreeMap<>();
        for (int i = 0; i < REQUESTS; i++) {
            Hostile h = generator.next();
            byKind.merge(h.kind(), 1, Integer::sum);
            try {
                RawHttp.Response r = http.send(h.request());
                byCode.merge(r.code(), 1, Integer::sum);
                check(h, r)
                        .ifPresent(why ->
                                findings.add("#" + findings.size() + " " + why + "\n    request: " + describe(h)));
            } catch (IOException e) {
                byCode.merge(0, 1, Integer::sum);
                findings.add("#" + findings.size() + " no answer (" + e + ")\n    request: " + describe(h));
            }
        }
        System.out.println("ApiFuzzIT: requests by kind " + byKind);
        System.out.println("ApiFuzzIT: answers by status " + byCode);

        for (Existing t : snapshot) {
            ApiClient.Response now = api.get(t.path());
            if (now.code() != 200 || !now.body().equals(t.object())) {
                findings.add(
                        "changed: " + t.path() + " was " + t.object() + "\n    now " + now.code() + " " + now.body());
            }
        }
        for (ServiceProcess s : suite.services()) {
            if (!s.isAlive() || status(s, "/q/health/ready") != 200) {
                findings.add(s.name() + " is not ready after the run");
            }
        }
        Map<String, Long> deadLettersAfter = deadLetters(suite);
        if (!deadLettersAfter.equals(deadLettersBefore)) {
            findings.add("dead letters before " + deadLettersBefore + ", after " + deadLettersAfter);
        }
        unhandledExceptions(suite, logStart).forEach(line -> findings.add("in the API server's log: " + line));

        System.out.println("ApiFuzzIT: " + findings.size() + " findings"
                + (findings.isEmpty() ? "" : ":\n" + String.join("\n", findings)));
        assertTrue(
                findings.isEmpty(),
                findings.size() + " findings with seed " + SEED + ":\n"
                        + String.join("\n", findings.subList(0, Math.min(60, findings.size()))));

        // The suite still works: the pod on the node is deleted gracefully.
        Existing victim = snapshot.get(0);
        assertEquals(
                200, api.delete(victim.path(), Map.of("gracePeriodSeconds", 1)).code());
        api.await(victim.path(), r -> r.code() == 404, SETTLE, "the victim deleted");
    }

    /**
     * Why the answer is wrong, if it is: a 5xx or another status outside 2xx and 4xx; a 4xx that is not a Status of
     * that code; a write that had to be refused accepted; a 413 expected and something else given.
     */
    private static Optional<String> check(Hostile h, RawHttp.Response r) {
        int code = r.code();
        if (code >= 500 || code < 200 || (code >= 300 && code < 400)) {
            return Optional.of(code + " " + prefix(r.bodyText()));
        }
        if (h.expect() != 0 && code != h.expect()) {
            return Optional.of("expected " + h.expect() + ", got " + code + " " + prefix(r.bodyText()));
        }
        if (code < 300) {
            return h.mayAccept() ? Optional.empty() : Optional.of("accepted: " + code + " " + prefix(r.bodyText()));
        }
        if (code == 400 && MALFORMED_ESCAPE.matcher(h.request().target()).find()) {
            // A request target that is no URI is refused by the HTTP server, as Go's refuses it before kube-apiserver.
            return Optional.empty();
        }
        JsonNode status;
        try {
            status = Json.read(r.body());
        } catch (RuntimeException e) {
            return Optional.of(code + " not JSON (" + r.headers().get("content-type") + "): " + prefix(r.bodyText()));
        }
        boolean ok = "Status".equals(status.path("kind").asText())
                && "v1".equals(status.path("apiVersion").asText())
                && "Failure".equals(status.path("status").asText())
                && status.path("code").asInt() == code
                && !status.path("reason").asText().isEmpty()
                && !status.path("message").asText().isEmpty();
        return ok
                ? Optional.empty()
                : Optional.of(code + " not a Failure Status of that code: " + prefix(r.bodyText()));
    }

    /**
     * A pod running on the node, a Deployment (its pod available), a Service, the namespace, and what the system made
     * of them (Endpoints, a ReplicaSet), once settled: as served then, they are the snapshot compared after the run.
     */
    private static List<Existing> createTargets(ApiClient api) {
        assertEquals(
                201,
                api.post("/api/v1/namespaces", Json.read(bytes("{\"metadata\":{\"name\":\"fuzz\"}}")))
                        .code());
        assertEquals(
                201,
                api.post("/api/v1/namespaces/fuzz/pods", Json.read(bytes("""
                {"metadata":{"name":"victim","labels":{"app":"victim"}},
                 "spec":{"terminationGracePeriodSeconds":5,"containers":[{"name":"app","image":"nginx"}]}}"""))).code());
        assertEquals(
                201,
                api.post("/apis/apps/v1/namespaces/fuzz/deployments", Json.read(bytes("""
                {"metadata":{"name":"web"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
                 "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"app","image":"nginx"}]}}}}""")))
                        .code());
        assertEquals(
                201,
                api.post("/api/v1/namespaces/fuzz/services", Json.read(bytes("""
                {"metadata":{"name":"web"},"spec":{"selector":{"app":"web"},"ports":[{"port":80}]}}""")))
                        .code());
        api.await(
                "/api/v1/namespaces/fuzz/pods/victim",
                r -> "Running".equals(r.body().path("status").path("phase").asText()) && ready(r.body()),
                SETTLE,
                "the victim running and ready");
        api.await(
                "/apis/apps/v1/namespaces/fuzz/deployments/web",
                r -> r.body().path("status").path("availableReplicas").asInt() == 1
                        && r.body().path("status").path("observedGeneration").asLong()
                                == r.body().path("metadata").path("generation").asLong()
                        && r.body().path("status").path("updatedReplicas").asInt() == 1,
                SETTLE,
                "the deployment available");
        api.await(
                "/api/v1/namespaces/fuzz/endpoints/web",
                r -> r.body().path("subsets").path(0).path("addresses").size() == 1,
                SETTLE,
                "the service's endpoints");
        List<Existing> targets = new ArrayList<>();
        for (String path : List.of(
                "/api/v1/namespaces/fuzz/pods/victim",
                "/apis/apps/v1/namespaces/fuzz/deployments/web",
                "/api/v1/namespaces/fuzz/services/web",
                "/api/v1/namespaces/fuzz",
                "/api/v1/namespaces/fuzz/endpoints/web")) {
            targets.add(existing(api, path));
        }
        JsonNode rs = api.get("/apis/apps/v1/namespaces/fuzz/replicasets")
                .body()
                .path("items")
                .path(0);
        targets.add(existing(
                api,
                "/apis/apps/v1/namespaces/fuzz/replicasets/"
                        + rs.path("metadata").path("name").asText()));
        return targets;
    }

    /**
     * Objects the system itself changes (the node's heartbeats and status), so aimed at but not compared afterwards.
     */
    private static List<Existing> liveTargets(ApiClient api) {
        return List.of(
                existing(api, "/api/v1/nodes/node-1"),
                existing(api, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1"),
                existing(api, "/api/v1/namespaces/default"));
    }

    /**
     * Pods bound to a node no kubelet runs: they take the deletes kube-apiserver accepts, and stay terminating. Each is
     * created with a body in chunks, as the hostile requests sometimes send theirs: accepted as well as refused.
     */
    private static List<Existing> createDecoys(ApiClient api, RawHttp http) throws IOException {
        List<Existing> decoys = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            byte[] pod = bytes("{\"metadata\":{\"name\":\"decoy-" + i + "\"},\"spec\":{\"nodeName\":\""
                    + HostileRequests.NOWHERE_NODE + "\",\"containers\":[{\"name\":\"app\",\"image\":\"nginx\"}]}}");
            RawHttp.Response created = http.send(
                    new RawHttp.Request("POST", "/api/v1/namespaces/fuzz/pods", "application/json", pod, true));
            assertEquals(201, created.code(), created.bodyText());
            decoys.add(existing(api, "/api/v1/namespaces/fuzz/pods/decoy-" + i));
        }
        return decoys;
    }

    private static Existing existing(ApiClient api, String path) {
        ApiClient.Response r = api.get(path);
        assertEquals(200, r.code(), path);
        ObjectNode object = (ObjectNode) r.body();
        ResourceType type = ResourceType.byPlural(path.replaceAll("^.*/([a-z]+)/[^/]+$", "$1"));
        JsonNode meta = object.path("metadata");
        return new Existing(
                type,
                type.namespaced() ? meta.path("namespace").asText() : null,
                meta.path("name").asText(),
                object);
    }

    private static boolean ready(JsonNode pod) {
        for (JsonNode c : pod.path("status").path("conditions")) {
            if ("Ready".equals(c.path("type").asText())) {
                return "True".equals(c.path("status").asText());
            }
        }
        return false;
    }

    /** podfall_dead_letters_total of each service, summed over the reasons. */
    private static Map<String, Long> deadLetters(Suite suite) throws Exception {
        Map<String, Long> counts = new TreeMap<>();
        Pattern line = Pattern.compile("^podfall_dead_letters_total\\{[^}]*} (\\S+)$", Pattern.MULTILINE);
        for (ServiceProcess s : suite.services()) {
            Matcher m = line.matcher(get(s, "/q/metrics"));
            long total = 0;
            while (m.find()) {
                total += (long) Double.parseDouble(m.group(1));
            }
            counts.put(s.name(), total);
        }
        return counts;
    }

    /** ERROR lines and stack frames the API server logged since {@code from}. */
    private static List<String> unhandledExceptions(Suite suite, long from) throws IOException {
        byte[] log = Files.readAllBytes(suite.service("apiserver-svc").log());
        String since = new String(
                log,
                (int) Math.min(from, log.length),
                log.length - (int) Math.min(from, log.length),
                StandardCharsets.UTF_8);
        return since.lines()
                .filter(l -> l.contains(" ERROR ")
                        || l.startsWith("Caused by")
                        || l.matches("^[\\w.$]+(Exception|Error)\\b.*"))
                .limit(20)
                .toList();
    }

    private static int status(ServiceProcess s, String path) throws Exception {
        return HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private static String get(ServiceProcess s, String path) throws Exception {
        return HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    private static String describe(Hostile h) {
        RawHttp.Request r = h.request();
        return "[" + h.kind() + "] " + r.method() + " " + prefix(r.target()) + " content-type " + r.contentType()
                + (r.chunked() ? " chunked" : "")
                + (r.body() == null
                        ? " no body"
                        : " body(" + r.body().length + ") " + prefix(new String(r.body(), StandardCharsets.UTF_8)));
    }

    private static String prefix(String s) {
        String oneLine = s.replace('\n', ' ').replace('\r', ' ');
        return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 200) + "…";
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
