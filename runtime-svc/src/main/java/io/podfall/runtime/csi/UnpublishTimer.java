package io.podfall.runtime.csi;

import io.podfall.model.core.TimerKey;

/** The end of an unmount that takes time: the volume of a pod on a node is unpublished then. */
public record UnpublishTimer(String node, String podUid, String volumeName) implements TimerKey {

    /** {@code csi/unpublish/<node>/<podUid>/<volume>}: Kubernetes names and UIDs never hold a slash. */
    @Override
    public String id() {
        return String.join("/", "csi", "unpublish", node, podUid, volumeName);
    }
}
