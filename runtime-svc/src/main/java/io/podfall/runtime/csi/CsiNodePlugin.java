package io.podfall.runtime.csi;

import static io.podfall.runtime.Requests.read;

import io.podfall.model.core.Effects;
import io.podfall.model.core.Part;
import io.podfall.model.core.Timer;
import io.podfall.model.csi.NodePublishVolume;
import io.podfall.model.csi.PublishedVolume;
import io.podfall.model.csi.StagedVolume;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCatalogue;
import io.podfall.model.event.EventTypes;
import io.podfall.runtime.SimulatedDurations;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The CSI node plugin of every node (the Node service of the CSI spec, which the kubelet calls over the driver's
 * socket: pkg/volume/csi/csi_client.go), for every driver: it answers the {@code csi.*Requested} events of the
 * kubelets' volume managers with what it did on the node. Every fact it emits has source {@code /csi/<node>}, the
 * subject of the request (the pod it served) and the request as its cause.
 *
 * <p>State ({@link CsiState}): per node the volumes staged there and the volumes published into pods, and the ids of
 * the requests it served.
 *
 * <ul>
 *   <li><b>NodeStageVolume</b> mounts a volume at its staging path, once for the node: VolumeStaged.
 *   <li><b>NodePublishVolume</b> mounts it into one pod, from the staging path when there is one: VolumePublished. The
 *       CSI spec has the plugin refuse (FAILED_PRECONDITION) a publish from a staging path where nothing is staged; so
 *       does this plugin, by not answering (podfall has no error facts for CSI yet, and the kubelet never asks so).
 *   <li><b>NodeUnpublishVolume</b> unmounts it from the pod: VolumeUnpublished, at once, or once the pod's
 *       {@code podfall.io/unmount-seconds} (given with the publish, decimal seconds, default 0) have passed since the
 *       request: a slow or stuck unmount (a busy mount point, an unreachable server) is simulated by a timer, keyed
 *       {@code csi/unpublish/<node>/<podUid>/<volumeName>}.
 *   <li><b>NodeUnstageVolume</b> unmounts it from the node: VolumeUnstaged. The volume itself is kept: deleting a
 *       persistent volume is no node's business.
 * </ul>
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Every request is answered once. The CSI calls are idempotent (the spec: a repeated call, or an unpublish or
 *       unstage of what is not there, replies OK), so a new request for what is already done is answered with the same
 *       fact; but a request delivered again, the same id, is recognised and emits nothing.
 *   <li>An unpublish under way is not started again: a second NodeUnpublishVolume for it waits for the same end.
 *   <li>The unmount's end is timed from the request's time on the log, not from when the plugin reads it: a plugin
 *       rebuilding its state from the log sets its timers at the very instants it set them live.
 *   <li>A request the plugin cannot serve (unreadable data, a publish from a staging path with nothing staged) changes
 *       nothing and emits nothing: the core never throws on its input.
 * </ul>
 */
public final class CsiNodePlugin implements Part<CsiState> {
    /** The pod annotation that makes unmounting its volumes take time. */
    public static final String UNMOUNT_SECONDS = "podfall.io/unmount-seconds";

    @Override
    public CsiState newState() {
        return new CsiState();
    }

    @Override
    public void handle(CsiState state, Event event, Effects.Builder out) {
        if (state.served.contains(event.id())) {
            return;
        }
        boolean served = switch (event.type()) {
            case EventTypes.NODE_STAGE_VOLUME_REQUESTED ->
                staging(event).map(r -> stage(state, r, event, out)).orElse(false);
            case EventTypes.NODE_UNSTAGE_VOLUME_REQUESTED ->
                staging(event).map(r -> unstage(state, r, event, out)).orElse(false);
            case EventTypes.NODE_PUBLISH_VOLUME_REQUESTED ->
                read(event, NodePublishVolume.class)
                        .filter(r -> r.node() != null && r.podUid() != null && r.volumeName() != null)
                        .map(r -> publish(state, r, event, out))
                        .orElse(false);
            case EventTypes.NODE_UNPUBLISH_VOLUME_REQUESTED ->
                read(event, PublishedVolume.class)
                        .filter(r -> r.node() != null && r.podUid() != null && r.volumeName() != null)
                        .map(r -> unpublish(state, r, event, out))
                        .orElse(false);
            default -> false;
        };
        if (served) {
            state.served.add(event.id());
        }
    }

    /** The CSI calls made to it; its own facts are its effects, and nothing else reaches it. */
    @Override
    public boolean reads(String type) {
        return EventCatalogue.isRequest(type) && "csi".equals(EventCatalogue.owner(type));
    }

    /** An unmount that took time is done, unless that unpublish is no longer the one under way. */
    @Override
    public void fire(CsiState state, Timer timer, Effects.Builder out) {
        if (!(timer.key() instanceof UnpublishTimer key)) {
            return;
        }
        Optional<Publication> found = state.publication(key.node(), key.podUid(), key.volumeName())
                .filter(p -> timer.at().equals(p.unpublishDueAt));
        found.ifPresent(p -> unpublished(state, p, out));
    }

    private static Optional<StagedVolume> staging(Event request) {
        return read(request, StagedVolume.class)
                .filter(r -> r.node() != null && r.driver() != null && r.volumeId() != null);
    }

    private boolean stage(CsiState state, StagedVolume r, Event request, Effects.Builder out) {
        state.stagedOn(r.node()).put(CsiState.volumeKey(r.driver(), r.volumeId()), r);
        out.emit(source(r.node()), EventTypes.VOLUME_STAGED, request.subject(), r);
        return true;
    }

    private boolean unstage(CsiState state, StagedVolume r, Event request, Effects.Builder out) {
        state.stagedOn(r.node()).remove(CsiState.volumeKey(r.driver(), r.volumeId()));
        out.emit(source(r.node()), EventTypes.VOLUME_UNSTAGED, request.subject(), r);
        return true;
    }

    private boolean publish(CsiState state, NodePublishVolume r, Event request, Effects.Builder out) {
        if (r.stagingTargetPath() != null && !state.isStaged(r.node(), r.driver(), r.volumeId())) {
            return false;
        }
        Map<String, String> annotations = r.annotations() == null ? Map.of() : r.annotations();
        Duration unmountDelay =
                SimulatedDurations.seconds(annotations.get(UNMOUNT_SECONDS)).orElse(Duration.ZERO);
        state.publishedOn(r.node())
                .putIfAbsent(
                        CsiState.publicationKey(r.podUid(), r.volumeName()),
                        new Publication(r.publication(), request.subject(), unmountDelay));
        out.emit(source(r.node()), EventTypes.VOLUME_PUBLISHED, request.subject(), r.publication());
        return true;
    }

    /**
     * Unmounts the volume from the pod, at once or after its unmount delay, counted from the request's time on the log.
     * A volume that is not published is unpublished already: the spec's answer is OK.
     */
    private boolean unpublish(CsiState state, PublishedVolume r, Event request, Effects.Builder out) {
        Optional<Publication> found = state.publication(r.node(), r.podUid(), r.volumeName());
        if (found.isEmpty()) {
            out.emit(source(r.node()), EventTypes.VOLUME_UNPUBLISHED, request.subject(), r);
            return true;
        }
        Publication p = found.get();
        if (p.unpublishDueAt != null) {
            return true;
        }
        if (p.unmountDelay.isZero()) {
            unpublished(state, p, out);
            return true;
        }
        p.unpublishDueAt = request.time().plus(p.unmountDelay);
        out.timer(new UnpublishTimer(r.node(), r.podUid(), r.volumeName()), p.unpublishDueAt);
        return true;
    }

    private void unpublished(CsiState state, Publication p, Effects.Builder out) {
        PublishedVolume v = p.volume;
        state.publishedOn(v.node()).remove(CsiState.publicationKey(v.podUid(), v.volumeName()));
        out.emit(source(v.node()), EventTypes.VOLUME_UNPUBLISHED, p.subject, v);
    }

    private static String source(String node) {
        return "/csi/" + node;
    }
}
