package io.podfall.model.testing;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import java.util.Map;

/** Test data for pods: {@code aPod("web-1").onNode("node-1").withGrace(30).build()}. */
public final class Pods {
    private final PodBuilder b;

    private Pods(String name) {
        b = new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx:1.27")
                .endContainer()
                .endSpec();
    }

    public static Pods aPod(String name) {
        return new Pods(name);
    }

    public Pods inNamespace(String ns) {
        b.editMetadata().withNamespace(ns).endMetadata();
        return this;
    }

    public Pods withUid(String uid) {
        b.editMetadata().withUid(uid).endMetadata();
        return this;
    }

    public Pods onNode(String node) {
        b.editSpec().withNodeName(node).endSpec();
        return this;
    }

    public Pods withGrace(long seconds) {
        b.editSpec().withTerminationGracePeriodSeconds(seconds).endSpec();
        return this;
    }

    public Pods withContainer(String name) {
        b.editSpec()
                .addNewContainer()
                .withName(name)
                .withImage("busybox")
                .endContainer()
                .endSpec();
        return this;
    }

    /** A volume from a PersistentVolumeClaim of the pod's namespace. */
    /** A regular init container: it runs to completion before the next one starts. */
    public Pods withInitContainer(String name) {
        b.editSpec()
                .addNewInitContainer()
                .withName(name)
                .withImage("busybox")
                .endInitContainer()
                .endSpec();
        return this;
    }

    /** A sidecar: an init container with restartPolicy Always, running beside the main containers. */
    public Pods withSidecar(String name) {
        b.editSpec()
                .addNewInitContainer()
                .withName(name)
                .withImage("envoy")
                .withRestartPolicy("Always")
                .endInitContainer()
                .endSpec();
        return this;
    }

    public Pods withClaim(String volumeName, String claimName) {
        b.editSpec()
                .addNewVolume()
                .withName(volumeName)
                .withNewPersistentVolumeClaim()
                .withClaimName(claimName)
                .endPersistentVolumeClaim()
                .endVolume()
                .endSpec();
        return this;
    }

    /** An inline CSI ephemeral volume of the driver, with its volumeAttributes. */
    public Pods withCsiVolume(String volumeName, String driver, Map<String, String> attributes) {
        b.editSpec()
                .addNewVolume()
                .withName(volumeName)
                .withNewCsi()
                .withDriver(driver)
                .withVolumeAttributes(attributes)
                .endCsi()
                .endVolume()
                .endSpec();
        return this;
    }

    public Pods withEmptyDir(String volumeName) {
        b.editSpec()
                .addNewVolume()
                .withName(volumeName)
                .withNewEmptyDir()
                .endEmptyDir()
                .endVolume()
                .endSpec();
        return this;
    }

    public Pods withLabel(String key, String value) {
        b.editMetadata().addToLabels(key, value).endMetadata();
        return this;
    }

    public Pods withAnnotation(String key, String value) {
        b.editMetadata().addToAnnotations(key, value).endMetadata();
        return this;
    }

    /** spec.restartPolicy: {@code Always} (the default), {@code OnFailure} or {@code Never}. */
    public Pods withRestartPolicy(String policy) {
        b.editSpec().withRestartPolicy(policy).endSpec();
        return this;
    }

    public Pods withFinalizer(String finalizer) {
        b.editMetadata().addToFinalizers(finalizer).endMetadata();
        return this;
    }

    public Pods terminating(Instant deletionTimestamp, long grace) {
        b.editMetadata()
                .withDeletionTimestamp(deletionTimestamp.toString())
                .withDeletionGracePeriodSeconds(grace)
                .endMetadata();
        return this;
    }

    public Pods inPhase(String phase) {
        b.editOrNewStatus().withPhase(phase).endStatus();
        return this;
    }

    public Pod build() {
        return b.build();
    }
}
