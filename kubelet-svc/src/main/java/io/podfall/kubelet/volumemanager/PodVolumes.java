package io.podfall.kubelet.volumemanager;

import io.fabric8.kubernetes.api.model.Pod;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One pod's CSI volumes: what it wants mounted (the desired state of the world, until it is torn down) and what is
 * published into it (its part of the actual state). Changed only by {@link VolumeManager}.
 */
final class PodVolumes {
    final String uid;
    final String node;
    final String subject;
    /** The pod's annotations, passed to the plugin: the {@code podfall.io/} ones say how it behaves. */
    final Map<String, String> annotations;
    /** Its CSI volumes in spec order. */
    final List<VolumeSpec> volumes;
    /** Its runtime is gone: it wants nothing mounted any more (the populator removed it from the desired state). */
    boolean tornDown;
    /** Its volumes published, being published or being unpublished, by volume name; gone once unpublished. */
    final Map<String, Mount> mounts = new LinkedHashMap<>();

    PodVolumes(Pod pod, List<VolumeSpec> volumes) {
        this.uid = pod.getMetadata().getUid();
        this.node = pod.getSpec().getNodeName();
        this.subject = Subjects.of(
                pod.getMetadata().getNamespace(),
                ResourceType.PODS.plural(),
                pod.getMetadata().getName());
        this.annotations = pod.getMetadata().getAnnotations() == null
                ? Map.of()
                : Map.copyOf(pod.getMetadata().getAnnotations());
        this.volumes = volumes;
    }

    /** Every volume it wants is published: its sandbox may start. */
    boolean isMounted() {
        return !tornDown
                && volumes.stream().allMatch(v -> {
                    Mount m = mounts.get(v.name());
                    return m != null && m.phase == Mount.Phase.MOUNTED;
                });
    }

    /** Torn down and nothing of it is published any more: it may be terminated. */
    boolean isUnmounted() {
        return tornDown && mounts.isEmpty();
    }

    /** Whether it wants the volume or has it published (in any phase): the node must keep the volume staged. */
    boolean uses(String volumeKey) {
        return !tornDown && volumes.stream().anyMatch(v -> v.key().equals(volumeKey))
                || mounts.values().stream().anyMatch(m -> m.volume.key().equals(volumeKey));
    }
}
