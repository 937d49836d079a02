package io.podfall.runtime.csi;

import io.podfall.model.csi.PublishedVolume;
import java.time.Duration;
import java.time.Instant;

/**
 * A volume the plugin published into a pod: published until NodeUnpublishVolume, then, if unmounting it takes time,
 * unpublishing until that time has passed. Changed only by {@link CsiNodePlugin}.
 */
final class Publication {
    final PublishedVolume volume;
    /** The pod's subject: every fact about the publication is in the pod's flow and partition. */
    final String subject;
    /** How long unmounting it takes: {@code podfall.io/unmount-seconds} of its pod [0]. */
    final Duration unmountDelay;
    /** When the unmount under way ends; null while published. */
    Instant unpublishDueAt;

    Publication(PublishedVolume volume, String subject, Duration unmountDelay) {
        this.volume = volume;
        this.subject = subject;
        this.unmountDelay = unmountDelay;
    }
}
