package io.podfall.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.e2e.clients.Command;
import io.podfall.model.Json;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Debian's python3-kubernetes (22.6) against the suite, unchanged. Each test runs a short script with the client's own
 * typed API; the script prints JSON for the assertions here. (Debian's module is importable only by /usr/bin/python3.)
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class PythonClientIT {
    private static final String PYTHON = "/usr/bin/python3";
    private static final String PRELUDE = """
            import json, sys
            from kubernetes import client
            from kubernetes.client.rest import ApiException
            conf = client.Configuration()
            conf.host = sys.argv[1]
            v1 = client.CoreV1Api(client.ApiClient(conf))
            def pod(name):
                return client.V1Pod(metadata=client.V1ObjectMeta(name=name),
                    spec=client.V1PodSpec(containers=[client.V1Container(name="app", image="nginx:1.27")]))
            """;
    private static String server;
    private static ApiClient api;
    private static SuiteClient pods;

    @BeforeAll
    static void clients(Suite suite) {
        assumeTrue(
                Command.find(PYTHON) != null
                        && Command.run(List.of(PYTHON, "-c", "import kubernetes"), Map.of(), null, 30)
                                        .exitCode()
                                == 0,
                "python3-kubernetes is not installed (apt-get install python3-kubernetes)");
        server = suite.apiserverUrl();
        pods = new SuiteClient(suite);
        api = pods.api;
    }

    private static JsonNode python(String script) {
        Command.Result r = Command.run(List.of(PYTHON, "-c", PRELUDE + script, server), Map.of(), null, 120);
        assertEquals(0, r.exitCode(), r.toString());
        return Json.read(r.stdout().getBytes(StandardCharsets.UTF_8));
    }

    /** Creates the pod with the Python client, then waits until it runs. */
    private static void createRunning(String name) {
        python("v1.create_namespaced_pod(\"default\", pod(\"" + name + "\"))\nprint(\"{}\")\n");
        pods.awaitRunning(name);
    }

    @Test
    void createsAPodSentWithoutKindAndListsIt() {
        JsonNode out = python("""
                created = v1.create_namespaced_pod("default", pod("py-create"))
                names = [p.metadata.name for p in v1.list_namespaced_pod("default").items]
                print(json.dumps({"uid": created.metadata.uid, "kind": created.kind, "listed": "py-create" in names}))
                """);
        assertEquals("Pod", out.path("kind").asText());
        assertTrue(out.path("uid").asText().length() > 0);
        assertTrue(out.path("listed").asBoolean());
    }

    @Test
    void deleteOptionsInTheBodySetTheGracePeriod() {
        createRunning("py-body");
        JsonNode out = python("""
                p = v1.delete_namespaced_pod("py-body", "default",
                    body=client.V1DeleteOptions(grace_period_seconds=5, propagation_policy="Background"))
                print(json.dumps({"grace": p.metadata.deletion_grace_period_seconds,
                                  "terminating": p.metadata.deletion_timestamp is not None}))
                """);
        assertEquals(5, out.path("grace").asInt());
        assertTrue(out.path("terminating").asBoolean());
    }

    @Test
    void deleteOptionsInTheQueryForceTheDeletion() {
        createRunning("py-query");
        python("""
                v1.delete_namespaced_pod("py-query", "default", grace_period_seconds=0)
                print("{}")
                """);
        assertEquals(404, api.get("/api/v1/namespaces/default/pods/py-query").code(), "grace 0 removes at once");
    }

    @Test
    void aUidPreconditionThatDoesNotMatchIsAConflict() {
        JsonNode out = python("""
                v1.create_namespaced_pod("default", pod("py-pre"))
                try:
                    v1.delete_namespaced_pod("py-pre", "default",
                        body=client.V1DeleteOptions(preconditions=client.V1Preconditions(uid="not-its-uid")))
                    print(json.dumps({"status": 200}))
                except ApiException as e:
                    print(json.dumps({"status": e.status, "reason": json.loads(e.body)["reason"]}))
                """);
        assertEquals(409, out.path("status").asInt());
        assertEquals("Conflict", out.path("reason").asText());
        assertEquals(200, api.get("/api/v1/namespaces/default/pods/py-pre").code(), "the pod is still there");
    }

    @Test
    void aWatchShowsThePodAddedThenTerminatingThenDeleted() {
        createRunning("py-watch");
        JsonNode out = python("""
                from kubernetes import watch
                w = watch.Watch()
                seen = []
                for ev in w.stream(v1.list_namespaced_pod, "default", field_selector="metadata.name=py-watch",
                                   timeout_seconds=60):
                    p = ev["object"]
                    seen.append({"type": ev["type"], "terminating": p.metadata.deletion_timestamp is not None})
                    if len(seen) == 1:
                        v1.delete_namespaced_pod("py-watch", "default", grace_period_seconds=1)
                    if ev["type"] == "DELETED":
                        w.stop()
                print(json.dumps(seen))
                """);
        assertEquals("ADDED", out.get(0).path("type").asText(), "the existing pod first: " + out);
        assertTrue(!out.get(0).path("terminating").asBoolean());
        assertTrue(
                java.util.stream.StreamSupport.stream(out.spliterator(), false)
                        .anyMatch(e -> e.path("type").asText().equals("MODIFIED")
                                && e.path("terminating").asBoolean()),
                out.toString());
        assertEquals("DELETED", out.get(out.size() - 1).path("type").asText(), out.toString());
    }

    @Test
    void aMissingPodIsNotFound() {
        JsonNode out = python("""
                try:
                    v1.read_namespaced_pod("py-nope", "default")
                    print(json.dumps({"status": 200}))
                except ApiException as e:
                    print(json.dumps({"status": e.status, "reason": json.loads(e.body)["reason"]}))
                """);
        assertEquals(404, out.path("status").asInt());
        assertEquals("NotFound", out.path("reason").asText());
    }
}
