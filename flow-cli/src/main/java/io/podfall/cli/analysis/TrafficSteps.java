package io.podfall.cli.analysis;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.proxy.ServiceRules;
import io.podfall.model.runtime.ContainerSignal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What a deletion did to its pods' traffic, read from the whole log for the timeline of one flow: each node's
 * kube-proxy sync that dropped a deleted pod from the node's rules ({@code proxy.RulesSynced}), with how long after the
 * pod's stop signal it came; and each window in which requests to the pod failed ({@code traffic.RequestsCounted}), the
 * nodes' counts summed. A sync that drops the pod carries the deletion's correlation when the pod's EndpointSlice
 * change was the latest fact of the sync, so it may be one of the flow's steps already; the counts never are.
 */
final class TrafficSteps {
    /** The syncs that dropped a pod of the flow, by event id, to what the timeline says of them. */
    final Map<String, String> removals = new LinkedHashMap<>();
    /** The steps the flow's own events do not hold: the other syncs that dropped its pods, the failed requests. */
    final List<Event> removalsOutside;

    final List<Timeline.Step> failures;

    private TrafficSteps(List<Event> removalsOutside, List<Timeline.Step> failures) {
        this.removalsOutside = removalsOutside;
        this.failures = failures;
    }

    /** The traffic steps of the pods {@code flow} deletes, offsets counted from {@code start}. */
    static TrafficSteps of(List<Event> log, List<Event> flow, Instant start) {
        Map<String, String> pods = new LinkedHashMap<>();
        Map<String, Instant> stopSignals = new HashMap<>();
        Set<String> inFlow = new HashSet<>();
        for (Event e : flow) {
            inFlow.add(e.id());
            if (e.is(EventTypes.OBJECT_MARKED_TERMINATING) && DeletionFlow.isPod(e.subject())) {
                String uid = KubeObject.of(e).uid();
                if (!uid.isEmpty()) {
                    pods.putIfAbsent(uid, e.subject());
                }
            } else if (DeletionFlow.isStopSignal(e)) {
                String uid = e.data(ContainerSignal.class).podUid();
                if (uid != null) {
                    stopSignals.putIfAbsent(uid, e.time());
                    pods.putIfAbsent(uid, e.subject());
                }
            }
        }
        if (pods.isEmpty()) {
            return new TrafficSteps(List.of(), List.of());
        }
        TrafficSteps steps = new TrafficSteps(new ArrayList<>(), failures(log, pods, start));
        // each node's rules for each Service, as the pod uids they held at its latest sync
        Map<String, Set<String>> held = new HashMap<>();
        for (Event e : log) {
            if (!e.is(EventTypes.PROXY_RULES_SYNCED)) {
                continue;
            }
            ServiceRules rules = e.data(ServiceRules.class);
            Set<String> now = rules.endpoints().stream()
                    .map(ServiceRules.RuleEndpoint::podUid)
                    .collect(Collectors.toCollection(TreeSet::new));
            Set<String> before = held.put(rules.node() + " " + rules.namespace() + "/" + rules.service(), now);
            if (before == null) {
                continue;
            }
            List<String> dropped = before.stream()
                    .filter(uid -> pods.containsKey(uid) && !now.contains(uid))
                    .toList();
            // the syncs before the flow tell what the rules held; a drop before it (the pod unready) is not its own
            if (!dropped.isEmpty() && !e.time().isBefore(start)) {
                steps.removals.put(e.id(), removal(rules, dropped, pods, stopSignals, e.time()));
                if (!inFlow.contains(e.id())) {
                    steps.removalsOutside.add(e);
                }
            }
        }
        return steps;
    }

    /** {@code node-1 dropped web-1 from its rules, +812 ms after SIGTERM}. */
    private static String removal(
            ServiceRules rules,
            List<String> dropped,
            Map<String, String> pods,
            Map<String, Instant> stopSignals,
            Instant at) {
        return dropped.stream()
                .map(uid -> {
                    String name = name(pods.get(uid));
                    Instant signal = stopSignals.get(uid);
                    String lag = signal == null
                            ? "no stop signal yet"
                            : signalLag(Duration.between(signal, at).toMillis());
                    return rules.node() + " dropped " + name + " from its rules for " + rules.service() + ", " + lag;
                })
                .collect(Collectors.joining("; "));
    }

    private static String signalLag(long millis) {
        return millis >= 0 ? "+" + millis + " ms after SIGTERM" : -millis + " ms before SIGTERM";
    }

    /**
     * One step a window in which requests to a pod of the flow failed, at the window's end (the last request it counts
     * ended before it), the nodes' counts summed: {@code requests: 12 refused, 3 reset (node-1, node-2)}. Only the
     * windows that end after the flow began: earlier failures are not the deletion's.
     */
    private static List<Timeline.Step> failures(List<Event> log, Map<String, String> pods, Instant start) {
        Requests requests = Requests.of(log);
        record Window(String uid, Instant from, Instant to) {}
        Map<Window, Requests.Tally> failed = new LinkedHashMap<>();
        Map<Window, Set<String>> nodes = new HashMap<>();
        pods.keySet()
                .forEach(uid -> requests.failedOf(uid).stream()
                        .filter(f -> f.to().isAfter(start))
                        .forEach(f -> {
                            Window w = new Window(uid, f.from(), f.to());
                            failed.computeIfAbsent(w, x -> new Requests.Tally()).add(0, f.failed());
                            nodes.computeIfAbsent(w, x -> new TreeSet<>()).add(f.node());
                        }));
        return failed.entrySet().stream()
                .sorted(Map.Entry.comparingByKey(Comparator.comparing(Window::to)))
                .map(f -> {
                    Window w = f.getKey();
                    return new Timeline.Step(
                            Duration.between(start, w.to()).toMillis(),
                            null,
                            "",
                            "traffic",
                            EventTypes.REQUESTS_COUNTED,
                            pods.get(w.uid()),
                            "requests: " + f.getValue().reasons() + " (" + String.join(", ", nodes.get(w)) + ") in ["
                                    + signed(Duration.between(start, w.from()).toMillis()) + ", "
                                    + signed(Duration.between(start, w.to()).toMillis()) + ") ms");
                })
                .toList();
    }

    private static String signed(long millis) {
        return (millis >= 0 ? "+" : "") + millis;
    }

    private static String name(String subject) {
        return subject.substring(subject.lastIndexOf('/') + 1);
    }
}
