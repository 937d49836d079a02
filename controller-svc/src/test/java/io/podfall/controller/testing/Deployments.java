package io.podfall.controller.testing;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import java.time.Instant;

/**
 * Test data for Deployments as the API server stores them, with its defaults (RollingUpdate 25%/25%,
 * progressDeadlineSeconds 600, generation 1; selector and template label {@code app=<name>}):
 * {@code aDeployment("web").replicas(4).image("nginx:1.28").build()}.
 */
public final class Deployments {
    private final DeploymentBuilder b;

    private Deployments(String name) {
        b = new DeploymentBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .withGeneration(1L)
                .endMetadata()
                .withNewSpec()
                .withReplicas(1)
                .withRevisionHistoryLimit(10)
                .withProgressDeadlineSeconds(600)
                .withNewSelector()
                .addToMatchLabels("app", name)
                .endSelector()
                .withNewStrategy()
                .withType("RollingUpdate")
                .withNewRollingUpdate()
                .withMaxSurge(new IntOrString("25%"))
                .withMaxUnavailable(new IntOrString("25%"))
                .endRollingUpdate()
                .endStrategy()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx:1.27")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .withNewStatus()
                .endStatus();
    }

    public static Deployments aDeployment(String name) {
        return new Deployments(name);
    }

    public Deployments replicas(int replicas) {
        b.editSpec().withReplicas(replicas).endSpec();
        return this;
    }

    /** A new image is a new pod template, hence a new generation. */
    public Deployments image(String image) {
        b.editSpec()
                .editTemplate()
                .editSpec()
                .editFirstContainer()
                .withImage(image)
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec();
        return this;
    }

    public Deployments generation(long generation) {
        b.editMetadata().withGeneration(generation).endMetadata();
        return this;
    }

    public Deployments rollingUpdate(IntOrString maxSurge, IntOrString maxUnavailable) {
        b.editSpec()
                .editStrategy()
                .editRollingUpdate()
                .withMaxSurge(maxSurge)
                .withMaxUnavailable(maxUnavailable)
                .endRollingUpdate()
                .endStrategy()
                .endSpec();
        return this;
    }

    public Deployments recreate() {
        b.editSpec().withNewStrategy().withType("Recreate").endStrategy().endSpec();
        return this;
    }

    public Deployments paused() {
        b.editSpec().withPaused(true).endSpec();
        return this;
    }

    public Deployments terminating(Instant deletionTimestamp) {
        b.editMetadata()
                .withDeletionTimestamp(deletionTimestamp.toString())
                .withDeletionGracePeriodSeconds(0L)
                .addToFinalizers("foregroundDeletion")
                .endMetadata();
        return this;
    }

    public Deployment build() {
        return b.build();
    }
}
