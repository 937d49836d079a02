package io.podfall.cli.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;

/**
 * The walking skeleton's scenario: create a pod, wait until it runs, delete it with a grace period, wait until it is
 * gone. Returns the pod's uid.
 */
public final class PodDeletion {
    private final ApiClient api;
    private final PrintStream out;

    public PodDeletion(ApiClient api, PrintStream out) {
        this.api = api;
        this.out = out;
    }

    /** @param annotations the {@code podfall.io/} annotations that set how the simulated process reacts to SIGTERM */
    public String run(
            String namespace, String name, long gracePeriodSeconds, Map<String, String> annotations, Duration timeout) {
        String uid = createRunning(namespace, name, annotations, timeout)
                .path("metadata")
                .path("uid")
                .asText();
        deleteAndAwaitGone(namespace, name, gracePeriodSeconds, timeout);
        return uid;
    }

    /** Creates the pod and waits until it runs; returns it as the API server then serves it. */
    public JsonNode createRunning(String namespace, String name, Map<String, String> annotations, Duration timeout) {
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .withAnnotations(annotations)
                .addToLabels("app", "podfall-demo")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx:1.27")
                .endContainer()
                .endSpec()
                .build();
        ApiClient.Response created = api.post(pods(namespace), pod);
        if (created.code() != 201) {
            throw new IllegalStateException("create " + name + " failed: " + created.code() + " " + created.body());
        }
        out.printf(
                "pod/%s created (uid %s)%n",
                name, created.body().path("metadata").path("uid").asText());

        ApiClient.Response running = api.await(
                pods(namespace) + "/" + name,
                r -> r.code() == 200
                        && "Running"
                                .equals(r.body().path("status").path("phase").asText()),
                timeout,
                "pod " + name + " to be Running");
        out.printf(
                "pod/%s Running on %s with IP %s%n",
                name,
                running.body().path("spec").path("nodeName").asText(),
                running.body().path("status").path("podIP").asText());
        return running.body();
    }

    /** Deletes the pod with a grace period and waits until the API server no longer has it. */
    public void deleteAndAwaitGone(String namespace, String name, long gracePeriodSeconds, Duration timeout) {
        ApiClient.Response deleted = api.delete(
                pods(namespace) + "/" + name,
                new DeleteOptionsBuilder()
                        .withGracePeriodSeconds(gracePeriodSeconds)
                        .withPropagationPolicy("Background")
                        .build());
        if (deleted.code() != 200) {
            throw new IllegalStateException("delete " + name + " failed: " + deleted.code() + " " + deleted.body());
        }
        out.printf(
                "pod/%s deletion requested with grace %ds: deletionTimestamp %s%n",
                name,
                gracePeriodSeconds,
                deleted.body().path("metadata").path("deletionTimestamp").asText("(removed at once)"));

        api.await(
                pods(namespace) + "/" + name,
                r -> r.code() == 404,
                timeout.plusSeconds(gracePeriodSeconds),
                "pod " + name + " to be gone");
        out.printf("pod/%s deleted%n", name);
    }

    private static String pods(String namespace) {
        return "/api/v1/namespaces/" + namespace + "/pods";
    }
}
