package io.podfall.cli.analysis;

import io.podfall.cli.analysis.Check.Finding;
import io.podfall.cli.analysis.Check.Level;
import io.podfall.model.csi.PublishedVolume;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@code deletion-incomplete}: a deletion that never removed its pod, and no later removal of the same pod by another
 * flow either. It is a warning while the log may simply not have reached the end yet: less than {@link Check#STALL}
 * after the flow's last step or its deletion deadline.
 */
final class DeletionIncomplete {
    private DeletionIncomplete() {}

    static List<Finding> of(List<Event> log) {
        if (log.isEmpty()) {
            return List.of();
        }
        Instant end = Check.end(log);
        List<Finding> out = new ArrayList<>();
        for (DeletionFlow f : DeletionFlow.all(log)) {
            if (f.rejected() || f.removed().isPresent() || removedLater(log, f)) {
                continue;
            }
            Event last = f.events().get(f.events().size() - 1);
            Instant settled = Stream.concat(
                            Stream.of(last.time()),
                            f
                                    .first(EventTypes.OBJECT_MARKED_TERMINATING)
                                    .flatMap(m -> KubeObject.of(m).deletionTimestamp())
                                    .stream())
                    .max(Instant::compareTo)
                    .orElseThrow();
            boolean maybeRunning = Check.mayStillCome(end, settled);
            int next = Math.min(f.progress() + 1, DeletionFlow.GRACEFUL_ORDER.indexOf(EventTypes.OBJECT_REMOVED));
            String detail = Timeline.detail(last);
            out.add(new Finding(
                    maybeRunning ? Level.WARNING : Level.ERROR,
                    "deletion-incomplete",
                    f.subject(),
                    "no ObjectRemoved; last step " + last.type() + " from " + last.source() + " at +"
                            + DeletionFlow.between(f.request(), last).toMillis() + " ms"
                            + (detail.isEmpty() ? "" : " (" + detail + ")")
                            + ", waits for " + DeletionFlow.GRACEFUL_ORDER.get(next)
                            + stuckBecause(f).map(why -> "; " + why).orElse("")
                            + (maybeRunning
                                    ? "; the log ends within " + Check.STALL.toSeconds()
                                            + " s of it, so it may still be running"
                                    : ""),
                    List.of(f.request().id(), last.id())));
        }
        return out;
    }

    /**
     * Why a pod stays Terminating, as far as its flow tells: finalizers hold it after the kubelet's final delete; no
     * kubelet acted on it at all (its node is down, or its kubelet is); a CSI unmount has not come back.
     */
    static Optional<String> stuckBecause(DeletionFlow f) {
        Optional<KubeObject> latest = f.events().stream()
                .map(KubeObject::of)
                .filter(KubeObject::hasMetadata)
                .reduce((a, b) -> b);
        Long grace = latest.map(KubeObject::deletionGracePeriodSeconds).orElse(null);
        List<String> finalizers = latest.map(KubeObject::finalizers).orElse(List.of());
        if (grace != null && grace == 0 && !finalizers.isEmpty()) {
            return Optional.of("held by its finalizers " + finalizers + " after the kubelet's final delete");
        }
        boolean nodeActed = f.events().stream()
                .anyMatch(e -> e.source().startsWith("/kubelet/") || e.source().startsWith("/runtime/"));
        String node = f.events().stream()
                .map(e -> KubeObject.of(e).nodeName())
                .flatMap(Optional::stream)
                .reduce((a, b) -> b)
                .orElse(null);
        if (!nodeActed && node != null) {
            return Optional.of("no kubelet acted on it: is node " + node + " (or its kubelet) down?");
        }
        Event last = f.events().get(f.events().size() - 1);
        if (last.is(EventTypes.NODE_UNPUBLISH_VOLUME_REQUESTED)) {
            return Optional.of(
                    "its volume " + last.data(PublishedVolume.class).volumeId() + " is still being unmounted");
        }
        return Optional.empty();
    }

    private static boolean removedLater(List<Event> log, DeletionFlow f) {
        int from = log.indexOf(f.request());
        return log.subList(from, log.size()).stream()
                .anyMatch(e -> e.is(EventTypes.OBJECT_REMOVED) && f.subject().equals(e.subject()));
    }
}
