package io.podfall.cli.analysis;

import io.podfall.cli.analysis.Check.Finding;
import io.podfall.cli.analysis.Check.Level;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.runtime.ContainerSignal;
import io.podfall.model.runtime.Sandbox;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code duplicate-side-effect}: a side effect that must happen once happened more often: the stop signal to a
 * container (the runtime sends it once), CNI DEL of a sandbox.
 */
final class DuplicateSideEffects {
    private DuplicateSideEffects() {}

    static List<Finding> of(List<Event> log) {
        Map<String, List<Event>> sigterms = new LinkedHashMap<>();
        Map<String, List<Event>> releases = new LinkedHashMap<>();
        for (Event e : log) {
            if (DeletionFlow.isStopSignal(e)) {
                ContainerSignal s = e.data(ContainerSignal.class);
                sigterms.computeIfAbsent(
                                s.podUid() + "/" + Check.container(s.containerId(), s.containerName()),
                                k -> new ArrayList<>())
                        .add(e);
            } else if (e.is(EventTypes.POD_IP_RELEASED)) {
                releases.computeIfAbsent(e.data(Sandbox.class).sandboxId(), k -> new ArrayList<>())
                        .add(e);
            }
        }
        List<Finding> out = new ArrayList<>();
        sigterms.values().stream().filter(l -> l.size() > 1).forEach(l -> {
            ContainerSignal first = l.get(0).data(ContainerSignal.class);
            out.add(new Finding(
                    Level.ERROR,
                    "duplicate-side-effect",
                    l.get(0).subject(),
                    l.size() + " stop signals (" + first.signal() + ") to container " + first.containerName(),
                    ids(l)));
        });
        releases.values().stream()
                .filter(l -> l.size() > 1)
                .forEach(l -> out.add(new Finding(
                        Level.ERROR,
                        "duplicate-side-effect",
                        l.get(0).subject(),
                        l.size() + " PodIPReleased (CNI DEL) for sandbox "
                                + l.get(0).data(Sandbox.class).sandboxId(),
                        ids(l))));
        return out;
    }

    private static List<String> ids(List<Event> events) {
        return events.stream().map(Event::id).toList();
    }
}
