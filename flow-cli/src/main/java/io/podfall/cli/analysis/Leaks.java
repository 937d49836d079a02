package io.podfall.cli.analysis;

import io.podfall.cli.analysis.Check.Finding;
import io.podfall.cli.analysis.Check.Level;
import io.podfall.model.csi.PublishedVolume;
import io.podfall.model.csi.StagedVolume;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.runtime.Sandbox;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What a removed pod left behind on its node: {@code ip-leaked}, an IP CNI gave it and never took back;
 * {@code volume-leaked}, a CSI volume left mounted.
 */
final class Leaks {
    private Leaks() {}

    /** CNI gave a pod an IP, the pod was removed, and CNI DEL never came for that sandbox. */
    static List<Finding> ips(List<Event> log) {
        Map<String, Event> removed = removedPods(log);
        Map<String, Event> released = new HashMap<>();
        for (Event e : log) {
            if (e.is(EventTypes.POD_IP_RELEASED)) {
                released.putIfAbsent(e.data(Sandbox.class).sandboxId(), e);
            }
        }
        List<Finding> out = new ArrayList<>();
        for (Event e : log) {
            if (!e.is(EventTypes.POD_IP_ALLOCATED)) {
                continue;
            }
            Sandbox s = e.data(Sandbox.class);
            Event gone = removed.get(s.podUid());
            if (gone != null && !released.containsKey(s.sandboxId())) {
                out.add(new Finding(
                        Level.ERROR,
                        "ip-leaked",
                        e.subject(),
                        "IP " + s.ip() + " of sandbox " + s.sandboxId() + " on " + s.node()
                                + " never released, though the pod was removed",
                        List.of(e.id(), gone.id())));
            }
        }
        return out;
    }

    /**
     * A CSI volume a removed pod left mounted: published into the pod and never unpublished, or staged on the node and
     * never unstaged although every pod of the node that published it since was removed. The kubelet's volume manager
     * unpublishes before the pod's final status, and unstages once no pod of the node uses the volume
     * (pkg/kubelet/volumemanager/reconciler/reconciler.go: unmountVolumes, unmountDetachDevices), so only a force
     * deletion, whose pod leaves the store at once, sees these steps after the removal: the finding is a warning while
     * the log ends less than {@link Check#STALL} after the pod's last event.
     */
    static List<Finding> volumes(List<Event> log) {
        Map<String, Event> removed = removedPods(log);
        Map<String, Instant> lastOf = new HashMap<>();
        Map<String, Event> published = new LinkedHashMap<>();
        Map<String, Event> staged = new LinkedHashMap<>();
        Map<String, Map<String, Event>> usedBy = new HashMap<>();
        Map<String, Event> asked = new HashMap<>();
        for (Event e : log) {
            lastOf.put(e.subject(), e.time());
            switch (e.type()) {
                case EventTypes.VOLUME_PUBLISHED -> {
                    PublishedVolume v = e.data(PublishedVolume.class);
                    published.put(mount(v), e);
                    if (staged.containsKey(device(v.node(), v.volumeId()))) {
                        usedBy.get(device(v.node(), v.volumeId())).put(v.podUid(), e);
                    }
                }
                case EventTypes.NODE_UNPUBLISH_VOLUME_REQUESTED -> asked.put(mount(e.data(PublishedVolume.class)), e);
                case EventTypes.VOLUME_UNPUBLISHED -> published.remove(mount(e.data(PublishedVolume.class)));
                case EventTypes.VOLUME_STAGED -> {
                    staged.put(device(e), e);
                    usedBy.put(device(e), new LinkedHashMap<>());
                }
                case EventTypes.NODE_UNSTAGE_VOLUME_REQUESTED -> asked.put(device(e), e);
                case EventTypes.VOLUME_UNSTAGED -> staged.remove(device(e));
                default -> {}
            }
        }
        Instant end = Check.end(log);
        List<Finding> out = new ArrayList<>();
        published.forEach((mount, e) -> {
            PublishedVolume v = e.data(PublishedVolume.class);
            Event gone = removed.get(v.podUid());
            if (gone != null) {
                out.add(volumeLeak(
                        e,
                        gone,
                        asked.get(mount),
                        lastOf,
                        end,
                        "volume " + v.volumeName() + " (" + v.volumeId() + ") published into the pod on " + v.node()
                                + " never unpublished"));
            }
        });
        staged.forEach((device, e) -> {
            List<Event> gone =
                    usedBy.get(device).keySet().stream().map(removed::get).toList();
            if (!gone.isEmpty() && !gone.contains(null)) {
                StagedVolume v = e.data(StagedVolume.class);
                Event last =
                        gone.stream().max(Comparator.comparing(Event::time)).orElseThrow();
                out.add(volumeLeak(
                        e,
                        last,
                        asked.get(device),
                        lastOf,
                        end,
                        "volume " + v.volumeId() + " staged on "
                                + v.node() + " never unstaged, though no pod of the node uses it"
                                + (gone.size() > 1 ? " (" + gone.size() + " pods published it)" : "")));
            }
        });
        return out;
    }

    /** Each removed pod's first removal, by uid. */
    private static Map<String, Event> removedPods(List<Event> log) {
        Map<String, Event> removed = new HashMap<>();
        for (Event e : log) {
            if (e.is(EventTypes.OBJECT_REMOVED) && DeletionFlow.isPod(e.subject())) {
                removed.putIfAbsent(KubeObject.of(e).uid(), e);
            }
        }
        return removed;
    }

    /** A volume published into one pod. */
    private static String mount(PublishedVolume v) {
        return v.podUid() + "/" + v.volumeName();
    }

    /** A volume staged on one node. */
    private static String device(Event staged) {
        StagedVolume v = staged.data(StagedVolume.class);
        return device(v.node(), v.volumeId());
    }

    private static String device(String node, String volumeId) {
        return node + "/" + volumeId;
    }

    /** A volume left mounted for a removed pod: an error once the log went on for a while after its last event. */
    private static Finding volumeLeak(
            Event mounted, Event gone, Event asked, Map<String, Instant> lastOf, Instant end, String what) {
        Instant settled = Stream.of(gone.time(), lastOf.get(gone.subject()))
                .max(Instant::compareTo)
                .orElseThrow();
        boolean maybeRunning = Check.mayStillCome(end, settled);
        List<String> ids = new ArrayList<>(List.of(mounted.id(), gone.id()));
        if (asked != null) {
            ids.add(asked.id());
        }
        return new Finding(
                maybeRunning ? Level.WARNING : Level.ERROR,
                "volume-leaked",
                gone.subject(),
                what
                        + ", though the pod was removed at " + gone.time()
                        + (asked == null ? "" : "; " + asked.type() + " at " + asked.time() + " got no answer")
                        + (maybeRunning
                                ? "; the log ends within " + Check.STALL.toSeconds()
                                        + " s of the pod's last event, so it may still come"
                                : ""),
                ids);
    }
}
