package io.podfall.replay;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.podfall.apiserver.registry.RegistryState;
import io.podfall.kubelet.podworkers.PodSyncStatus;
import io.podfall.kubelet.podworkers.PodWorker;
import io.podfall.kubelet.podworkers.RuntimeContainer;
import io.podfall.model.event.Event;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import io.podfall.runtime.cri.Container;
import io.podfall.runtime.cri.PodSandbox;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What each component held at one moment of a recorded log: the API server's objects, each kubelet's pod workers,
 * the runtime's sandboxes and containers. The state is rebuilt by folding the recording into the cores up to that
 * moment ({@link Engine#fold}), as a service restarted then would rebuild it, so it is what the services held, not
 * what a replay would decide.
 */
public final class StateReport {
    private StateReport() {
    }

    /** The cores' state after every event of {@code log} up to {@code at} (the log up to its first later event). */
    public static Engine rebuild(List<Event> log, Instant at) {
        Engine engine = new Engine(Recording.of(log).kubelets());
        for (Event e : log) {
            if (e.time().isAfter(at)) {
                break;
            }
            engine.fold(e);
        }
        engine.foldUntil(at);
        return engine;
    }

    /** A readable summary, one line per object, pod worker and sandbox. */
    public static String text(Engine engine) {
        StringBuilder out = new StringBuilder();
        RegistryState registry = engine.apiServer();
        out.append("API server: ").append(registry.size()).append(" objects, resourceVersion ")
                .append(registry.resourceVersion()).append('\n');
        for (ResourceType type : ResourceType.values()) {
            for (HasMetadata o : registry.list(type, null)) {
                out.append("  ").append(Subjects.of(o.getMetadata().getNamespace(), type.plural(), o.getMetadata().getName()))
                        .append(object(o)).append('\n');
            }
        }
        for (Engine.Kubelet k : engine.kubelets()) {
            out.append("kubelet ").append(String.join(",", k.podWorkers().nodeNames())).append(Recording.describe(k.podWorkers().compat()))
                    .append(": ").append(k.state().workers().size()).append(" pod workers\n");
            k.state().workers().values().stream().sorted(Comparator.comparing(StateReport::subject))
                    .forEach(w -> out.append("  ").append(subject(w)).append(worker(w)).append('\n'));
        }
        Map<String, Collection<PodSandbox>> sandboxes = engine.runtime().runtime().sandboxes();
        out.append("runtime: ").append(sandboxes.values().stream().mapToInt(Collection::size).sum()).append(" sandboxes\n");
        sandboxes.forEach((node, onNode) -> onNode.forEach(s -> out.append("  ").append(node).append(' ')
                .append(s.subject()).append(" sandbox ").append(s.state()).append(" ip=").append(s.ip())
                .append(s.containers().stream().map(StateReport::container).collect(Collectors.joining("", "", "")))
                .append('\n')));
        return out.toString();
    }

    private static String object(HasMetadata o) {
        List<String> facts = new ArrayList<>();
        ObjectMeta m = o.getMetadata();
        if (o instanceof Pod pod) {
            facts.add("phase=" + (pod.getStatus() == null ? null : pod.getStatus().getPhase()));
            facts.add("node=" + pod.getSpec().getNodeName());
        } else if (o instanceof Namespace ns && ns.getStatus() != null) {
            facts.add("phase=" + ns.getStatus().getPhase());
        }
        facts.add("uid=" + m.getUid());
        facts.add("rv=" + m.getResourceVersion());
        if (m.getDeletionTimestamp() != null) {
            facts.add("deletionTimestamp=" + m.getDeletionTimestamp() + " grace=" + m.getDeletionGracePeriodSeconds() + "s");
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
        StringBuilder out = new StringBuilder(" uid=").append(w.pod().getMetadata().getUid())
                .append(" node=").append(w.node()).append(' ').append(s.workType());
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
