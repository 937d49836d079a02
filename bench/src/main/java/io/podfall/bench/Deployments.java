package io.podfall.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.podfall.cli.scenario.ApiClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * The Deployments the live benches create, roll out and delete through the suite's API, all in the bench's namespace;
 * and the pods every bench runs, a process that exits at once on SIGTERM.
 */
final class Deployments {
    static final String NAMESPACE = "default";
    static final String PATH = "/apis/apps/v1/namespaces/" + NAMESPACE + "/deployments";

    private Deployments() {}

    /** A Deployment of nginx pods labelled {@code app=NAME}, in the bench's namespace. */
    static Deployment of(String name, int replicas) {
        Map<String, String> labels = Map.of("app", name);
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(NAMESPACE)
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withNewSelector()
                .withMatchLabels(labels)
                .endSelector()
                .withTemplate(template(labels))
                .endSpec()
                .build();
    }

    /** Pods labelled {@code labels}, of {@link #podSpec()}. */
    static PodTemplateSpec template(Map<String, String> labels) {
        return new PodTemplateSpecBuilder()
                .withNewMetadata()
                .withLabels(labels)
                .endMetadata()
                .withSpec(podSpec())
                .build();
    }

    /** One container, {@code app}, of nginx: the simulated runtime's process exits at once on SIGTERM. */
    static PodSpec podSpec() {
        return new PodSpecBuilder()
                .addNewContainer()
                .withName("app")
                .withImage("nginx:1.27")
                .endContainer()
                .build();
    }

    /**
     * Creates the Deployment and waits until all its replicas are ready and up to date (a rollout done), within 2
     * minutes and 100 ms a replica.
     */
    static void create(BenchSuite suite, String workload, Deployment deployment) {
        String name = deployment.getMetadata().getName();
        ApiClient.Response r = suite.api().post(PATH, deployment);
        if (r.code() != 201) {
            throw new IllegalStateException("create the Deployment " + name + ": " + r.code() + " " + r.body());
        }
        awaitRolledOut(suite, workload, name, deployment.getSpec().getReplicas());
    }

    static void awaitRolledOut(BenchSuite suite, String workload, String name, int count) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(120).plusMillis(100L * count));
        while (true) {
            suite.checkAlive();
            JsonNode status = suite.api().get(PATH + "/" + name).body().path("status");
            int ready = status.path("readyReplicas").asInt();
            if (ready == count
                    && status.path("replicas").asInt() == count
                    && status.path("updatedReplicas").asInt() == count) {
                return;
            }
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException(
                        "only " + ready + " of " + count + " replicas of " + name + " ready by " + deadline);
            }
            ProgressLines.line("%s: %,d of %,d replicas of %s ready", workload, ready, count, name);
            Sleep.millis(500);
        }
    }

    /** {@code kubectl delete deployment NAME --cascade=foreground}: the request, not waiting for it to be done. */
    static void deleteForeground(ApiClient api, String name) {
        ApiClient.Response deleted = api.delete(
                PATH + "/" + name,
                new DeleteOptionsBuilder().withPropagationPolicy("Foreground").build());
        if (deleted.code() != 200) {
            throw new IllegalStateException(
                    "delete the Deployment " + name + ": " + deleted.code() + " " + deleted.body());
        }
    }
}
