package io.podfall.kubelet.volumemanager;

import io.fabric8.kubernetes.api.model.Pod;
import io.podfall.model.core.Effects;
import io.podfall.model.csi.PublishedVolume;
import io.podfall.model.csi.StagedVolume;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The volume manager of a kubelet (pkg/kubelet/volumemanager/volume_manager.go): it mounts a pod's CSI volumes
 * ({@link VolumeSpec}) before the pod's sandbox is asked for, and unmounts them once the sandbox stopped. It calls the
 * node's CSI plugin directly, as the kubelet does over the plugin's socket (pkg/volume/csi/csi_client.go), not through
 * the container runtime: its requests are {@code csi.*Requested} events and the plugin's answers are
 * {@code csi.Volume*} facts.
 *
 * <p>What it holds, as upstream does: the desired state of the world (the pods whose volumes should be mounted, each
 * with its volumes) and the actual state of the world (per node, the volumes staged there; per pod, the volumes
 * published into it: {@link Mount}). After every change the reconciler compares the two and acts, in upstream's order
 * (pkg/kubelet/volumemanager/reconciler/reconciler_common.go reconcile):
 *
 * <ol>
 *   <li><b>unmountVolumes</b>: a volume published into a pod that is torn down is unpublished
 *       ({@code csi.NodeUnpublishVolumeRequested});
 *   <li><b>mountOrAttachVolumes</b>: a volume a pod wants and does not have is published
 *       ({@code csi.NodePublishVolumeRequested}); a persistent volume is staged on the node first
 *       ({@code csi.NodeStageVolumeRequested}), once per node (operation_generator.go MountVolume: MountDevice, then
 *       SetUp): only the first pod of the node that uses it waits for the staging, later ones publish from the staging
 *       path at once;
 *   <li><b>unmountDetachDevices</b>: a volume staged on a node that no pod there wants or has published any more is
 *       unstaged ({@code csi.NodeUnstageVolumeRequested}). That only unmounts it from the node: the persistent volume
 *       itself is kept.
 * </ol>
 *
 * <p>Who calls what: the pod workers ask {@link #waitForAttachAndMount} before they ask for a pod's sandbox (kubelet.go
 * SyncPod waits for the volumes to attach and mount before the runtime creates the sandbox), and start the pod once it
 * answers true, at once or on the VolumePublished that completes the set. They ask {@link #waitForUnmount} once the
 * pod's sandbox stopped (the populator removes a pod from the desired state once the pod workers report its runtime may
 * be removed), and the pod is terminated once it answers true, at once or on the last VolumeUnpublished: kubelet.go
 * SyncTerminatedPod waits in WaitForUnmount before the status manager terminates the pod, and status_manager.go
 * canBeDeleted lets the final delete go only once PodResourcesAreReclaimed, that is once no volume of the pod is left.
 * Unstaging is not waited for: it is the node's, not the pod's. A pod without CSI volumes is never held: both answer
 * true and emit nothing, so its flow is exactly the one without a volume manager.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li><i>One request at a time per volume per pod, and per volume per node.</i> An operation in flight is recorded
 *       with the id of its request (upstream's pending operations), and only the fact caused by that request moves it
 *       on: a fact delivered again, or one answering an earlier staging of the same volume, changes nothing.
 *   <li><i>A persistent volume is published only from its staging</i>, and unstaged only once no pod of the node wants
 *       it or has it published.
 *   <li><i>A pod's volumes are unpublished only after its sandbox stopped</i>, and it is terminated only once every one
 *       of them is unpublished. A publish still in flight when the pod is torn down is waited for, then undone.
 *   <li>A pod's spec.volumes never change (the API server refuses it), so they are read once, at its first sync.
 * </ul>
 *
 * <p>Every request has the kubelet's source {@code /kubelet/<node>} and the subject of the pod it serves; a staging or
 * unstaging, which serves the whole node, has the subject of the pod that caused it (so it lies in that pod's
 * namespace, the claim's, and in its flow). Requests carry no time and the state changes only on facts, so a kubelet
 * rebuilding its state from the log asks for the same things with the same ids.
 */
public final class VolumeManager {
    /** Per pod UID, the pods with at least one CSI volume, from their first sync until they are forgotten. */
    private final Map<String, PodVolumes> pods = new LinkedHashMap<>();
    /** Per node, the volumes staged there (or being staged or unstaged), by {@link VolumeSpec#key()}. */
    private final Map<String, Map<String, Mount>> staged = new HashMap<>();

    /**
     * Adds the pod to the desired state (the first time) and tells whether every one of its volumes is published, so
     * that its sandbox may be asked for.
     */
    public boolean waitForAttachAndMount(Pod pod, Effects.Builder out) {
        String uid = pod.getMetadata().getUid();
        if (!pods.containsKey(uid)) {
            List<VolumeSpec> volumes = VolumeSpec.of(pod);
            if (volumes.isEmpty()) {
                return true;
            }
            PodVolumes p = new PodVolumes(pod, volumes);
            pods.put(uid, p);
            reconcile(p.node, out);
        }
        return isMounted(uid);
    }

    /**
     * Removes the pod from the desired state (the first time: its runtime is gone) and tells whether nothing of it is
     * published any more, so that it may be terminated.
     */
    public boolean waitForUnmount(String podUid, Effects.Builder out) {
        PodVolumes p = pods.get(podUid);
        if (p != null && !p.tornDown) {
            p.tornDown = true;
            reconcile(p.node, out);
        }
        return isUnmounted(podUid);
    }

    /** Every CSI volume of the pod is published (true for a pod without any). */
    public boolean isMounted(String podUid) {
        PodVolumes p = pods.get(podUid);
        return p == null || p.isMounted();
    }

    /** The pod was torn down and none of its CSI volumes is published any more (true for a pod without any). */
    public boolean isUnmounted(String podUid) {
        PodVolumes p = pods.get(podUid);
        return p == null || p.isUnmounted();
    }

    /** The pod workers forgot the pod: its volumes are unpublished, nothing of it is left to keep. */
    public void forget(String podUid) {
        pods.remove(podUid);
    }

    /**
     * A fact of a node's CSI plugin. If it answers a request in flight, the actual state takes it in and the reconciler
     * acts on it; the result is then the UID of the pod whose own volume it was about (VolumePublished,
     * VolumeUnpublished), for the pod workers to see whether that pod may now start or terminate.
     */
    public Optional<String> handle(Event fact, Effects.Builder out) {
        return switch (fact.type()) {
            case EventTypes.VOLUME_STAGED, EventTypes.VOLUME_UNSTAGED -> {
                stagingChanged(fact, out);
                yield Optional.empty();
            }
            case EventTypes.VOLUME_PUBLISHED, EventTypes.VOLUME_UNPUBLISHED -> publicationChanged(fact, out);
            default -> Optional.empty();
        };
    }

    private void stagingChanged(Event fact, Effects.Builder out) {
        StagedVolume v = fact.data(StagedVolume.class);
        Map<String, Mount> onNode = staged.getOrDefault(v.node(), Map.of());
        String key = VolumeSpec.key(v.driver(), v.volumeId());
        Mount device = onNode.get(key);
        if (device == null || !device.isAnsweredBy(fact)) {
            return;
        }
        answered(device, onNode, key);
        reconcile(v.node(), out);
    }

    private Optional<String> publicationChanged(Event fact, Effects.Builder out) {
        PublishedVolume v = fact.data(PublishedVolume.class);
        PodVolumes p = pods.get(v.podUid());
        Mount m = p == null || !p.node.equals(v.node()) ? null : p.mounts.get(v.volumeName());
        if (m == null || !m.isAnsweredBy(fact)) {
            return Optional.empty();
        }
        answered(m, p.mounts, v.volumeName());
        Mount device = staged.getOrDefault(p.node, Map.of()).get(m.volume.key());
        if (device != null) {
            // The unstaging that may follow belongs to the flow of the pod that used the volume last.
            device.subject = p.subject;
        }
        reconcile(p.node, out);
        return Optional.of(p.uid);
    }

    /** The request in flight is done: a mount is mounted, an unmount leaves nothing behind. */
    private static void answered(Mount m, Map<String, Mount> holder, String key) {
        m.requestId = null;
        if (m.phase == Mount.Phase.MOUNTING) {
            m.phase = Mount.Phase.MOUNTED;
        } else {
            holder.remove(key);
        }
    }

    /** Brings the node's actual state toward the desired one: what is asked for is in flight until answered. */
    private void reconcile(String node, Effects.Builder out) {
        List<PodVolumes> onNode =
                pods.values().stream().filter(p -> p.node.equals(node)).toList();
        Map<String, Mount> devices = staged.computeIfAbsent(node, n -> new LinkedHashMap<>());
        // unmountVolumes
        for (PodVolumes p : onNode) {
            if (p.tornDown) {
                p.mounts.values().stream()
                        .filter(m -> m.phase == Mount.Phase.MOUNTED)
                        .forEach(m -> request(
                                m,
                                Mount.Phase.UNMOUNTING,
                                EventTypes.NODE_UNPUBLISH_VOLUME_REQUESTED,
                                m.volume.publication(node, p.uid),
                                out));
            }
        }
        // mountOrAttachVolumes
        for (PodVolumes p : onNode) {
            for (VolumeSpec v : p.tornDown ? List.<VolumeSpec>of() : p.volumes) {
                if (p.mounts.containsKey(v.name())) {
                    continue;
                }
                Mount device = devices.get(v.key());
                if (v.staged() && device == null) {
                    device = new Mount(node, v, p.subject);
                    devices.put(v.key(), device);
                    request(device, Mount.Phase.MOUNTING, EventTypes.NODE_STAGE_VOLUME_REQUESTED, v.staging(node), out);
                } else if (!v.staged() || device.phase == Mount.Phase.MOUNTED) {
                    Mount m = new Mount(node, v, p.subject);
                    p.mounts.put(v.name(), m);
                    request(
                            m,
                            Mount.Phase.MOUNTING,
                            EventTypes.NODE_PUBLISH_VOLUME_REQUESTED,
                            v.publish(node, p.uid, p.annotations),
                            out);
                }
            }
        }
        // unmountDetachDevices
        for (Mount device : devices.values()) {
            if (device.phase == Mount.Phase.MOUNTED && onNode.stream().noneMatch(p -> p.uses(device.volume.key()))) {
                request(
                        device,
                        Mount.Phase.UNMOUNTING,
                        EventTypes.NODE_UNSTAGE_VOLUME_REQUESTED,
                        device.volume.staging(node),
                        out);
            }
        }
    }

    private static void request(Mount m, Mount.Phase phase, String type, Object request, Effects.Builder out) {
        out.emit("/kubelet/" + m.node, type, m.subject, request);
        m.phase = phase;
        m.requestId = out.lastEventId();
    }
}
