package io.podfall.cli.analysis;

import io.podfall.cli.analysis.Check.Finding;
import io.podfall.cli.analysis.Check.Level;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * {@code finalizer-blocking}: an object its finalizers kept in the store longer than a threshold after its final
 * delete: the delete found grace 0 (a pod's comes from its kubelet, once its containers stopped) with finalizers left,
 * so the API server only marked it (store.go markAsDeleting: deletionGracePeriodSeconds 0) and removes it with the
 * update that takes the last one away. Meanwhile a pod's name cannot be reused and a foreground owner waits. A warning
 * naming the finalizers, with the delete, the marking, each update that took finalizers away and the removal.
 */
final class FinalizerBlocking {
    private FinalizerBlocking() {}

    static List<Finding> of(List<Event> log, Duration threshold) {
        Map<String, Event> deletes = new HashMap<>();
        Map<String, List<Event>> held = new LinkedHashMap<>();
        List<Finding> out = new ArrayList<>();
        for (Event e : log) {
            if (isDelete(e)) {
                deletes.put(e.id(), e);
                continue;
            }
            if (!EventTypes.OBJECT_CHANGES.contains(e.type())) {
                continue;
            }
            KubeObject object = KubeObject.of(e);
            String uid = object.uid();
            List<Event> hold = held.get(uid);
            Long grace = object.deletionGracePeriodSeconds();
            if (hold == null
                    && !e.is(EventTypes.OBJECT_REMOVED)
                    && object.terminating()
                    && grace != null
                    && grace == 0
                    && !object.finalizers().isEmpty()) {
                hold = new ArrayList<>();
                Optional.ofNullable(deletes.get(e.causationId())).ifPresent(hold::add);
                hold.add(e);
                held.put(uid, hold);
            } else if (hold != null
                    && (e.is(EventTypes.OBJECT_REMOVED)
                            || !object.finalizers().equals(finalizers(hold.get(hold.size() - 1))))) {
                hold.add(e);
                if (e.is(EventTypes.OBJECT_REMOVED)) {
                    held.remove(uid);
                    blocking(hold, e.time(), threshold).ifPresent(out::add);
                }
            }
        }
        Instant end = Check.end(log);
        held.values().forEach(hold -> blocking(hold, end, threshold).ifPresent(out::add));
        return out;
    }

    private static boolean isDelete(Event e) {
        return e.is(EventTypes.DELETION_REQUESTED) || e.is(EventTypes.COLLECTION_DELETION_REQUESTED);
    }

    /**
     * The finding of one hold, if it lasted longer than {@code threshold} until {@code until}: its events are the
     * delete (if on the log), the marking, then each change of the finalizers, the last being the removal if any.
     */
    private static Optional<Finding> blocking(List<Event> hold, Instant until, Duration threshold) {
        Event delete = isDelete(hold.get(0)) ? hold.get(0) : null;
        List<Event> states = hold.subList(delete == null ? 0 : 1, hold.size());
        Event since = states.get(0);
        Duration held = Duration.between(since.time(), until);
        if (held.compareTo(threshold) <= 0) {
            return Optional.empty();
        }
        StringJoiner changes = new StringJoiner(", ");
        for (int i = 1; i < states.size(); i++) {
            Event s = states.get(i);
            List<String> gone = new ArrayList<>(finalizers(states.get(i - 1)));
            gone.removeAll(finalizers(s));
            changes.add((gone.isEmpty() ? "finalizers changed" : String.join(", ", gone) + " taken away") + " at +"
                    + Duration.between(since.time(), s.time()).toMillis() + " ms"
                    + (s.is(EventTypes.OBJECT_REMOVED) ? " (removed)" : ""));
        }
        Event last = states.get(states.size() - 1);
        boolean removed = last.is(EventTypes.OBJECT_REMOVED);
        return Optional.of(new Finding(
                Level.WARNING,
                "finalizer-blocking",
                since.subject(),
                "kept by its finalizers " + finalizers(since) + " " + held.toMillis() + " ms after its final delete"
                        + (delete == null ? "" : " by " + delete.source()) + " (longer than " + threshold.toMillis()
                        + " ms)" + (changes.length() == 0 ? "" : ": " + changes)
                        + (removed ? "" : "; still held by " + finalizers(last) + " when the log ends"),
                hold.stream().map(Event::id).toList()));
    }

    /** The finalizers of the object a stored state carries. */
    private static List<String> finalizers(Event change) {
        return KubeObject.of(change).finalizers();
    }
}
