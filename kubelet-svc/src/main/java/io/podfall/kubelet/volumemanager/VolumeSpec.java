package io.podfall.kubelet.volumemanager;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.podfall.model.csi.NodePublishVolume;
import io.podfall.model.csi.PublishedVolume;
import io.podfall.model.csi.StagedVolume;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One volume of a pod that the node's CSI plugin mounts, as the kubelet reads it from {@code spec.volumes}
 * (pkg/volume/csi/csi_plugin.go NewMounter):
 *
 * <ul>
 *   <li>{@code csi}, an inline ephemeral volume: its driver and volumeAttributes; its handle is made from the pod UID
 *       and the volume's name ({@code csi-<sha256>}, csi_util.go makeVolumeHandle), so it is the pod's alone; it is
 *       never staged (csi_plugin.go CanDeviceMount is false for the ephemeral lifecycle mode);
 *   <li>{@code persistentVolumeClaim}: podfall has no PersistentVolume objects, so the claim stands for a CSI
 *       persistent volume of the driver {@link #CLAIM_DRIVER} with the handle {@code <namespace>/<claimName>}; it is
 *       staged once per node, and every pod of the node that uses the claim publishes it from there.
 * </ul>
 *
 * Every other kind (emptyDir, configMap, secret, projected, hostPath, ...) is set up by the kubelet itself without a
 * CSI call, so it is no step of the flow and is left out.
 *
 * @param name the volume's name in the pod's spec
 * @param staged whether the volume is staged on the node before it is published (persistent volumes)
 * @param attributes the volume context passed to the plugin (an inline volume's volumeAttributes)
 */
record VolumeSpec(
        String name, String driver, String volumeId, boolean staged, boolean readOnly, Map<String, String> attributes) {
    /** The CSI driver podfall gives a pod's PersistentVolumeClaims. */
    static final String CLAIM_DRIVER = "podfall.csi";
    /** Where the kubelet keeps its pods' and its plugins' directories (upstream --root-dir). */
    private static final String ROOT_DIR = "/var/lib/kubelet";

    static List<VolumeSpec> of(Pod pod) {
        if (pod.getSpec() == null || pod.getSpec().getVolumes() == null) {
            return List.of();
        }
        String uid = pod.getMetadata().getUid();
        String namespace = pod.getMetadata().getNamespace();
        return pod.getSpec().getVolumes().stream()
                .filter(v -> v.getName() != null)
                .map(v -> of(uid, namespace, v))
                .filter(Objects::nonNull)
                .toList();
    }

    private static VolumeSpec of(String podUid, String namespace, Volume v) {
        if (v.getCsi() != null && v.getCsi().getDriver() != null) {
            return new VolumeSpec(
                    v.getName(),
                    v.getCsi().getDriver(),
                    "csi-" + sha256(podUid + v.getName()),
                    false,
                    Boolean.TRUE.equals(v.getCsi().getReadOnly()),
                    v.getCsi().getVolumeAttributes() == null
                            ? Map.of()
                            : Map.copyOf(v.getCsi().getVolumeAttributes()));
        }
        if (v.getPersistentVolumeClaim() != null && v.getPersistentVolumeClaim().getClaimName() != null) {
            return new VolumeSpec(
                    v.getName(),
                    CLAIM_DRIVER,
                    namespace + "/" + v.getPersistentVolumeClaim().getClaimName(),
                    true,
                    Boolean.TRUE.equals(v.getPersistentVolumeClaim().getReadOnly()),
                    Map.of());
        }
        return null;
    }

    /**
     * The volume across pods: upstream's unique volume name, {@code <driver>^<volumeHandle>} (csi_plugin.go
     * GetVolumeName).
     */
    String key() {
        return key(driver, volumeId);
    }

    static String key(String driver, String volumeId) {
        return driver + "^" + volumeId;
    }

    /** NodeStageVolume's and NodeUnstageVolume's request. */
    StagedVolume staging(String node) {
        return new StagedVolume(node, driver, volumeId, stagingTargetPath());
    }

    NodePublishVolume publish(String node, String podUid, Map<String, String> podAnnotations) {
        return new NodePublishVolume(
                node,
                podUid,
                name,
                driver,
                volumeId,
                stagingTargetPath(),
                targetPath(podUid),
                readOnly,
                attributes,
                podAnnotations);
    }

    /** NodeUnpublishVolume's request. */
    PublishedVolume publication(String node, String podUid) {
        return new PublishedVolume(node, podUid, name, driver, volumeId, targetPath(podUid));
    }

    /** The node's global mount of a staged volume (csi_attacher.go MakeDeviceMountPath); null if not staged. */
    private String stagingTargetPath() {
        return staged
                ? String.join("/", ROOT_DIR, "plugins/kubernetes.io/csi", driver, sha256(volumeId), "globalmount")
                : null;
    }

    /** Where the pod sees the volume (csi_mounter.go GetPath: the pod's volume directory plus {@code mount}). */
    private String targetPath(String podUid) {
        return String.join("/", ROOT_DIR, "pods", podUid, "volumes/kubernetes.io~csi", name, "mount");
    }

    private static String sha256(String s) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
