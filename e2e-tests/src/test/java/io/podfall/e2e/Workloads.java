package io.podfall.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.model.Json;
import io.podfall.model.event.Subjects;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** Deployments, their ReplicaSets and pods in one namespace, as the end-to-end tests create them and wait on them. */
final class Workloads {
    static final Duration WAIT = Duration.ofSeconds(90);

    private final ApiClient api;
    private final String namespace;

    Workloads(ApiClient api, String namespace) {
        this.api = api;
        this.namespace = namespace;
    }

    /** A Deployment whose processes take a second to exit on SIGTERM, so a pod is seen Terminating; as JSON. */
    static JsonNode deployment(String name, int replicas) {
        return Json.read("""
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"%1$s"},
                 "spec":{"replicas":%2$d,"selector":{"matchLabels":{"app":"%1$s"}},
                  "template":{"metadata":{"labels":{"app":"%1$s"},"annotations":{"podfall.io/exit-delay-seconds":"1"}},
                   "spec":{"terminationGracePeriodSeconds":10,"containers":[{"name":"app","image":"nginx:1.27"}]}}}}""".formatted(name, replicas).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The Deployment with a pod template tolerating the node.kubernetes.io/unreachable NoExecute taint for
     * {@code seconds}, so a test of a lost node need not wait out the default 300 s.
     */
    static JsonNode toleratingUnreachable(JsonNode deployment, long seconds) {
        ((ObjectNode) deployment.path("spec").path("template").path("spec"))
                .putArray("tolerations")
                .addObject()
                .put("key", "node.kubernetes.io/unreachable")
                .put("operator", "Exists")
                .put("effect", "NoExecute")
                .put("tolerationSeconds", seconds);
        return deployment;
    }

    /** A pod's subject on the log. */
    static String subject(JsonNode pod) {
        return Subjects.of(
                pod.path("metadata").path("namespace").asText(),
                "pods",
                pod.path("metadata").path("name").asText());
    }

    /** A Service selecting the pods of the Deployment of that name; as JSON. */
    static JsonNode service(String name) {
        return Json.read("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"%1$s"},
                 "spec":{"selector":{"app":"%1$s"},"ports":[{"port":80,"targetPort":8080}]}}""".formatted(name).getBytes(StandardCharsets.UTF_8));
    }

    /** Creates the namespace over HTTP; its workloads. */
    static Workloads inNewNamespace(ApiClient api, String namespace) {
        ApiClient.Response created = api.post(
                "/api/v1/namespaces",
                Json.read(
                        ("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" + namespace + "\"}}")
                                .getBytes(StandardCharsets.UTF_8)));
        assertEquals(201, created.code(), created.body().toString());
        return new Workloads(api, namespace);
    }

    /**
     * A Deployment of two run through a suite and deleted, so that no scenario of a test class meets the services'
     * first seconds.
     */
    void warmUp() {
        deploy("warm-up", 2);
        assertEquals(
                200,
                api.delete(
                                path("deployments") + "/warm-up",
                                new DeleteOptionsBuilder()
                                        .withPropagationPolicy("Background")
                                        .build())
                        .code());
        awaitNone("warm-up");
    }

    String namespace() {
        return namespace;
    }

    String path(String resource) {
        return (resource.equals("deployments") || resource.equals("replicasets") ? "/apis/apps/v1" : "/api/v1")
                + "/namespaces/" + namespace + "/" + resource;
    }

    /** Creates the Deployment over HTTP and waits until it is ready. */
    void deploy(String name, int replicas) {
        ApiClient.Response created = api.post(path("deployments"), deployment(name, replicas));
        assertEquals(201, created.code(), created.body().toString());
        awaitReady(name, replicas);
    }

    /** Waits until the Deployment reports the number of ready replicas and that many pods run. */
    void awaitReady(String name, int replicas) {
        api.await(
                path("deployments") + "/" + name,
                r -> r.code() == 200
                        && r.body().path("status").path("readyReplicas").asInt() == replicas
                        && r.body().path("status").path("replicas").asInt() == replicas,
                WAIT,
                name + " with " + replicas + " ready replicas");
        assertEquals(
                replicas,
                pods(name).stream()
                        .filter(p ->
                                "Running".equals(p.path("status").path("phase").asText()))
                        .count());
    }

    List<JsonNode> pods(String app) {
        return items(path("pods") + "?labelSelector=app%3D" + app);
    }

    List<JsonNode> replicaSets(String app) {
        return items(path("replicasets") + "?labelSelector=app%3D" + app);
    }

    private List<JsonNode> items(String path) {
        ApiClient.Response list = api.get(path);
        assertEquals(200, list.code(), list.body().toString());
        List<JsonNode> items = new ArrayList<>();
        list.body().path("items").forEach(items::add);
        return items;
    }

    void awaitGone(String path, String what) {
        api.await(path, r -> r.code() == 404, WAIT, what + " gone");
    }

    /** Waits until no pod and no ReplicaSet of the app is left. */
    void awaitNone(String app) {
        api.await(
                path("pods") + "?labelSelector=app%3D" + app,
                r -> r.body().path("items").isEmpty(),
                WAIT,
                "no pods of " + app);
        assertTrue(replicaSets(app).isEmpty(), "no ReplicaSet of " + app);
    }

    static Set<String> names(List<JsonNode> objects) {
        return objects.stream()
                .map(o -> o.path("metadata").path("name").asText())
                .collect(Collectors.toSet());
    }
}
