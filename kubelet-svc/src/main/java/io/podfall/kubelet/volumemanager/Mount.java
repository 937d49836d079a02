package io.podfall.kubelet.volumemanager;

import io.podfall.model.event.Event;

/**
 * A volume mounted on a node (staged: one global mount for every pod of the node) or into one pod (published), as the
 * actual state of the world records it: asked for, done, or being undone. Changed only by {@link VolumeManager}.
 */
final class Mount {

    enum Phase {
        MOUNTING,
        MOUNTED,
        UNMOUNTING
    }

    final String node;
    final VolumeSpec volume;
    /**
     * The pod the requests about it are for: a published volume's own pod; for a staged one, the pod that used it last,
     * whose flow its staging or unstaging belongs to.
     */
    String subject;

    Phase phase = Phase.MOUNTING;
    /** The request in flight while MOUNTING or UNMOUNTING: only the plugin's answer to it moves the mount on. */
    String requestId;

    Mount(String node, VolumeSpec volume, String subject) {
        this.node = node;
        this.volume = volume;
        this.subject = subject;
    }

    boolean isAnsweredBy(Event fact) {
        return requestId != null && requestId.equals(fact.causationId());
    }
}
