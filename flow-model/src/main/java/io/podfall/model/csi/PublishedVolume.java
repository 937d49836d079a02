package io.podfall.model.csi;

/**
 * A volume published into one pod on a node: the data of {@code csi.VolumePublished},
 * {@code csi.NodeUnpublishVolumeRequested} (CSI NodeUnpublishVolume takes the volume id and the target path) and
 * {@code csi.VolumeUnpublished}.
 *
 * @param volumeName the name of the volume in the pod's spec.volumes
 * @param targetPath where it is mounted for this pod
 */
public record PublishedVolume(
        String node, String podUid, String volumeName, String driver, String volumeId, String targetPath) {}
