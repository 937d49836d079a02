package io.podfall.cli.analysis;

import io.podfall.cli.analysis.Check.Finding;
import io.podfall.cli.analysis.Check.Level;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.runtime.ContainerState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code removed-while-running}: a pod left the store while a container of it still ran. Expected only after a force
 * deletion (grace 0 from the client): the API server then deletes at once and the node catches up, as upstream
 * documents.
 */
final class RemovedWhileRunning {
    private RemovedWhileRunning() {}

    static List<Finding> of(List<Event> log) {
        Map<String, Map<String, Event>> running = new HashMap<>();
        Map<String, DeletionFlow> flows = new HashMap<>();
        DeletionFlow.all(log).forEach(f -> flows.put(f.key(), f));
        List<Finding> out = new ArrayList<>();
        for (int i = 0; i < log.size(); i++) {
            Event e = log.get(i);
            if (e.is(EventTypes.CONTAINER_STARTED)) {
                ContainerState c = e.data(ContainerState.class);
                running.computeIfAbsent(c.podUid(), k -> new LinkedHashMap<>()).put(container(c), e);
            } else if (e.is(EventTypes.CONTAINER_EXITED)) {
                ContainerState c = e.data(ContainerState.class);
                // A log that starts mid-flow (an export --since) may show the exit of a start it does not hold.
                Map<String, Event> started = running.get(c.podUid());
                if (started != null) {
                    started.remove(container(c));
                }
            } else if (e.is(EventTypes.OBJECT_REMOVED) && DeletionFlow.isPod(e.subject())) {
                Map<String, Event> still = running.getOrDefault(KubeObject.of(e).uid(), Map.of());
                if (still.isEmpty()) {
                    continue;
                }
                List<String> ids = new ArrayList<>(List.of(e.id()));
                List<String> names = new ArrayList<>();
                for (Map.Entry<String, Event> c : still.entrySet()) {
                    names.add(c.getValue().data(ContainerState.class).containerName());
                    ids.add(c.getValue().id());
                    exitAfter(log, i, c.getValue()).ifPresent(x -> ids.add(x.id()));
                }
                DeletionFlow flow = flows.get(DeletionFlow.key(e));
                boolean forced = flow != null && flow.forced();
                out.add(new Finding(
                        forced ? Level.WARNING : Level.ERROR,
                        "removed-while-running",
                        e.subject(),
                        "removed from the store while container(s) " + String.join(", ", names) + " still ran"
                                + (forced ? " (force deletion: the API server does not wait for the node)" : ""),
                        ids));
            }
        }
        return out;
    }

    private static String container(ContainerState c) {
        return Check.container(c.containerId(), c.containerName());
    }

    private static Optional<Event> exitAfter(List<Event> log, int from, Event started) {
        ContainerState s = started.data(ContainerState.class);
        return log.subList(from, log.size()).stream()
                .filter(e -> e.is(EventTypes.CONTAINER_EXITED) && isOf(e.data(ContainerState.class), s))
                .findFirst();
    }

    /** Whether a container state is of the same container as {@code other}. */
    private static boolean isOf(ContainerState c, ContainerState other) {
        return Objects.equals(c.podUid(), other.podUid()) && Objects.equals(container(c), container(other));
    }
}
