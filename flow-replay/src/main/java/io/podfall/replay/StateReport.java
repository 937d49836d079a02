package io.podfall.replay;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.podfall.apiserver.registry.Registry;
import io.podfall.apiserver.registry.RegistryState;
import io.podfall.kubelet.podworkers.PodSyncStatus;
import io.podfall.kubelet.podworkers.PodWorker;
import io.podfall.kubelet.podworkers.RuntimeContainer;
import io.podfall.model.event.Event;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import io.podfall.runtime.cri.Container;
import io.podfall.runtime.cri.PodSandbox;
import io.podfall.runtime.cri.RuntimeState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;

/**
 * What each component held at one moment of a recorded log: the API server's objects, each kubelet's pod workers, the
 * runtime's sandboxes and containers. The state is rebuilt by folding the recording into the cores up to that moment
 * ({@link Engine#fold}), as a service restarted then would rebuild it, so it is what the services held, not what a
 * replay would decide.
 */
public final class StateReport {
    private StateReport() {}

    /** The cores' state after every event of {@code log} that took effect by {@code at} ({@link #walk}). */
    public static Engine rebuild(List<Event> log, Instant at) {
        List<Engine> there = new ArrayList<>();
        walk(log, List.of(at), (moment, engine) -> there.add(engine));
        return there.get(0);
    }

    /**
     * Rebuilds the cores' state from {@code log} once, handing it to {@code visit} at each of {@code moments}, in time
     * order: after every event that took effect by then (the log up to its first later event, a request to the API
     * server taking effect at its answer, below) and every timer due by then. The state at many moments of one log for
     * the cost of one fold; the engine is the same one throughout, so {@code visit} reads it and keeps none of it.
     *
     * <p>A request to the API server takes effect when the API server answers it: live, its store changes, and a GET or
     * a watch sees the change, when it handles the request, and it appends its answer then (apiserver-svc), some
     * milliseconds after the front door or a controller appended the request. Folded where it stands on the log, a
     * request would show in the state before the API server served it; it is folded just before its answer (the first
     * event from the API server it caused), or where it stands if the log holds no answer. And the log is folded in the
     * order its events took effect, by those times (in log order on a tie): a topic of several partitions, read back,
     * interleaves them as they were polled, so an event can come after a later one.
     */
    public static void walk(List<Event> log, List<Instant> moments, BiConsumer<Instant, Engine> visit) {
        Recording recording = Recording.of(log);
        Engine engine = new Engine(recording.kubelets(), recording.controllerManager(), Latencies.ZERO);
        List<Applied> applied = asApplied(log).stream()
                .sorted(Comparator.comparing(Applied::at))
                .toList();
        int next = 0;
        for (Instant at : moments.stream().sorted().toList()) {
            for (; next < applied.size() && !applied.get(next).at().isAfter(at); next++) {
                engine.fold(applied.get(next).event());
            }
            engine.foldUntil(at);
            visit.accept(at, engine);
        }
    }

    /** An event of a log and when it took effect: its time, or its answer's for a request to the API server. */
    record Applied(Event event, Instant at) {}

    /**
     * The log in the order its events took effect: each request the API server answered moved to just before its
     * answer.
     */
    static List<Applied> asApplied(List<Event> log) {
        Map<String, Integer> answerAt = new HashMap<>();
        for (int i = log.size() - 1; i >= 0; i--) {
            Event e = log.get(i);
            if (e.causationId() != null && Registry.SOURCE.equals(e.source())) {
                answerAt.put(e.causationId(), i);
            }
        }
        Map<Integer, List<Event>> postponed = new HashMap<>();
        List<Applied> applied = new ArrayList<>(log.size());
        for (int i = 0; i < log.size(); i++) {
            Event e = log.get(i);
            postponed.getOrDefault(i, List.of()).forEach(request -> applied.add(new Applied(request, e.time())));
            Integer answer = answerAt.get(e.id());
            if (answer != null && answer > i) {
                postponed.computeIfAbsent(answer, a -> new ArrayList<>()).add(e);
            } else {
                applied.add(new Applied(e, e.time()));
            }
        }
        return applied;
    }

    /** A readable summary, one line per object, pod worker and sandbox, and a note per event a core skipped. */
    public static String text(Engine engine) {
        StringBuilder out = new StringBuilder();
        RegistryState registry = engine.apiServer();
        out.append("API server: ")
                .append(registry.size())
                .append(" objects, resourceVersion ")
                .append(registry.resourceVersion())
                .append('\n');
        for (ResourceType type : ResourceType.values()) {
            for (HasMetadata o : registry.list(type, null)) {
                out.append("  ")
                        .append(Subjects.of(
                                o.getMetadata().getNamespace(),
                                type.plural(),
                                o.getMetadata().getName()))
                        .append(object(o))
                        .append('\n');
            }
        }
        for (Engine.Kubelet k : engine.kubelets()) {
            out.append("kubelet ")
                    .append(String.join(",", k.podWorkers().nodeNames()))
                    .append(Recording.describe(k.podWorkers().compat()))
                    .append(": ")
                    .append(k.state().workers().size())
                    .append(" pod workers");
            k.podWorkers().nodeNames().stream()
                    .filter(k.stopped()::isStopped)
                    .forEach(n -> out.append(", ").append(n).append(" stopped"));
            out.append('\n');
            k.state().workers().values().stream()
                    .sorted(Comparator.comparing(StateReport::subject))
                    .forEach(w -> out.append("  ")
                            .append(subject(w))
                            .append(worker(w))
                            .append('\n'));
        }
        Map<String, Collection<PodSandbox>> sandboxes =
                engine.runtime().of(RuntimeState.class).sandboxes();
        out.append("runtime: ")
                .append(sandboxes.values().stream().mapToInt(Collection::size).sum())
                .append(" sandboxes\n");
        sandboxes.forEach((node, onNode) -> onNode.forEach(s -> out.append("  ")
                .append(node)
                .append(' ')
                .append(s.subject())
                .append(" sandbox ")
                .append(s.state())
                .append(" ip=")
                .append(s.ip())
                .append(s.containers().stream().map(StateReport::container).collect(Collectors.joining("", "", "")))
                .append('\n')));
        engine.skipped().forEach(n -> out.append("note: ").append(n).append('\n'));
        return out.toString();
    }

    private static String object(HasMetadata o) {
        List<String> facts = new ArrayList<>();
        ObjectMeta m = o.getMetadata();
        if (o instanceof Pod pod) {
            facts.add(
                    "phase=" + (pod.getStatus() == null ? null : pod.getStatus().getPhase()));
            facts.add("node=" + pod.getSpec().getNodeName());
        } else if (o instanceof Namespace ns && ns.getStatus() != null) {
            facts.add("phase=" + ns.getStatus().getPhase());
        }
        facts.add("uid=" + m.getUid());
        facts.add("rv=" + m.getResourceVersion());
        if (m.getDeletionTimestamp() != null) {
            facts.add("deletionTimestamp=" + m.getDeletionTimestamp() + " grace=" + m.getDeletionGracePeriodSeconds()
                    + "s");
        }
        if (m.getFinalizers() != null && !m.getFinalizers().isEmpty()) {
            facts.add("finalizers=" + m.getFinalizers());
        }
        return " " + String.join(" ", facts);
    }

    private static String subject(PodWorker w) {
        ObjectMeta m = w.pod().getMetadata();
        return Subjects.of(m.getNamespace(), ResourceType.PODS.plural(), m.getName());
    }

    private static String worker(PodWorker w) {
        PodSyncStatus s = w.status();
        StringBuilder out = new StringBuilder(" uid=")
                .append(w.pod().getMetadata().getUid())
                .append(" node=")
                .append(w.node())
                .append(' ')
                .append(s.workType());
        if (s.isTerminationRequested()) {
            out.append(" grace=").append(s.gracePeriod()).append("s deadline=").append(s.deadline());
        }
        if (s.isFinished()) {
            out.append(" finished");
        }
        if (w.isOrphan()) {
            out.append(" orphan");
        }
        out.append(" sandbox=").append(w.sandbox());
        for (RuntimeContainer c : w.containers()) {
            out.append(' ').append(c.name()).append('=').append(c.state());
            if (c.exitCode() != null) {
                out.append('(').append(c.exitCode()).append(')');
            }
        }
        return out.toString();
    }

    private static String container(Container c) {
        StringBuilder out = new StringBuilder(" ").append(c.name()).append('=').append(c.state());
        if (c.exitCode() != null) {
            out.append('(').append(c.exitCode()).append(')');
        } else if (c.isStopSignalled()) {
            out.append(" signalled at ").append(c.stopSignalledAt());
        }
        return out.toString();
    }
}
