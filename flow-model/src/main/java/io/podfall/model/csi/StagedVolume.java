package io.podfall.model.csi;

/**
 * A volume staged on a node: CSI NodeStageVolume mounts it once per node at its staging path (upstream's global mount,
 * pkg/volume/csi/csi_attacher.go MountDevice), whatever number of pods then publish it. The data of
 * {@code csi.NodeStageVolumeRequested}, {@code csi.VolumeStaged}, {@code csi.NodeUnstageVolumeRequested} and
 * {@code csi.VolumeUnstaged}.
 *
 * @param driver the CSI driver's name
 * @param volumeId the volume's handle in that driver
 * @param stagingTargetPath where the node mounts it once for all its pods
 */
public record StagedVolume(String node, String driver, String volumeId, String stagingTargetPath) {}
