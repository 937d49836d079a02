package io.podfall.controller.deployment;

import static io.podfall.controller.testing.Deployments.aDeployment;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.podfall.model.Json;
import org.junit.jupiter.api.Test;

class DeploymentUtilTest {

    @Test
    void surgeRoundsAPercentageUpAndUnavailableRoundsItDown() {
        Deployment d = aDeployment("web").replicas(10).build();

        assertEquals(3, DeploymentUtil.maxSurge(d), "25% of 10 = 2.5, up");
        assertEquals(2, DeploymentUtil.maxUnavailable(d), "25% of 10 = 2.5, down");
    }

    @Test
    void whenBothRoundToZeroOneMayBeUnavailable() {
        Deployment d = aDeployment("web")
                .replicas(1)
                .rollingUpdate(new IntOrString("0%"), new IntOrString("25%"))
                .build();

        assertEquals(0, DeploymentUtil.maxSurge(d));
        assertEquals(1, DeploymentUtil.maxUnavailable(d));
    }

    @Test
    void numbersAreTakenAsTheyAreAndUnavailableNeverExceedsTheReplicas() {
        Deployment d = aDeployment("web")
                .replicas(2)
                .rollingUpdate(new IntOrString(3), new IntOrString(5))
                .build();

        assertEquals(3, DeploymentUtil.maxSurge(d));
        assertEquals(2, DeploymentUtil.maxUnavailable(d));
        assertEquals(
                0,
                DeploymentUtil.maxSurge(
                        aDeployment("web").replicas(2).recreate().build()),
                "Recreate has no surge");
    }

    @Test
    void theTemplateHashIsStableAndChangesWithTheTemplateAndTheCollisionCount() {
        PodTemplateSpec template = aDeployment("web").build().getSpec().getTemplate();
        PodTemplateSpec reordered = Json.convert(Json.read("""
                {"spec":{"containers":[{"image":"nginx:1.27","name":"app"}]},"metadata":{"labels":{"app":"web"}}}""".getBytes()), PodTemplateSpec.class);

        String hash = DeploymentUtil.computeHash(template, null);
        assertEquals("66764b56c4", hash, "pinned: the same in every run and every JVM");
        assertEquals(hash, DeploymentUtil.computeHash(reordered, null));
        assertNotEquals(
                hash,
                DeploymentUtil.computeHash(
                        aDeployment("web").image("nginx:1.28").build().getSpec().getTemplate(), null));
        assertNotEquals(hash, DeploymentUtil.computeHash(template, 1));
        assertTrue(hash.matches("[bcdfghjklmnpqrstvwxz2456789]+"), hash);
    }

    @Test
    void templatesAreEqualButForTheHashLabel() {
        PodTemplateSpec template = aDeployment("web").build().getSpec().getTemplate();
        PodTemplateSpec labelled = Json.convert(Json.tree(template), PodTemplateSpec.class);
        labelled.getMetadata().getLabels().put(DeploymentUtil.POD_TEMPLATE_HASH, "abc");

        assertTrue(DeploymentUtil.equalIgnoreHash(labelled, template));
        assertFalse(DeploymentUtil.equalIgnoreHash(
                template,
                aDeployment("web").image("nginx:1.28").build().getSpec().getTemplate()));
    }
}
