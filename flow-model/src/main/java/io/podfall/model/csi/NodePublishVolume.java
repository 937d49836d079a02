package io.podfall.model.csi;

import java.util.Map;

/**
 * CSI NodePublishVolume: mount a volume into one pod (pkg/volume/csi/csi_mounter.go SetUpAt), from its staging path
 * when the volume was staged, directly otherwise (an inline ephemeral volume).
 *
 * @param volumeName the name of the volume in the pod's spec.volumes
 * @param stagingTargetPath where the volume is staged on the node, null when it is not staged
 * @param targetPath where it is mounted for this pod
 * @param volumeContext the volume's attributes (an inline volume's volumeAttributes)
 * @param annotations the pod's annotations: the {@code podfall.io/} ones describe how the simulated plugin behaves, as
 *     RunPodSandbox's do for the containers' processes
 */
public record NodePublishVolume(
        String node,
        String podUid,
        String volumeName,
        String driver,
        String volumeId,
        String stagingTargetPath,
        String targetPath,
        boolean readOnly,
        Map<String, String> volumeContext,
        Map<String, String> annotations) {

    public PublishedVolume publication() {
        return new PublishedVolume(node, podUid, volumeName, driver, volumeId, targetPath);
    }
}
