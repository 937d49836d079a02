package io.podfall.kubelet.podworkers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.StatusUpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.csi.NodePublishVolume;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Ids;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import io.podfall.model.runtime.ContainerSignal;
import io.podfall.model.runtime.ContainerState;
import io.podfall.model.runtime.Sandbox;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Test driver: a {@link PodWorkers} core with its state, fed the API server's and the runtime's facts the way the log
 * would carry them. Every fact handled is kept, so a test can deliver it again.
 */
final class KubeletDriver {
    static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    static final String NODE = "node-1";

    final PodWorkers core;
    final PodWorkersState state;
    final List<Event> delivered = new ArrayList<>();
    Instant now = T0;

    KubeletDriver(String... nodes) {
        this(Compat.NONE, nodes);
    }

    KubeletDriver(Compat compat, String... nodes) {
        this(new PodWorkers(List.of(nodes.length == 0 ? new String[] {NODE} : nodes), compat));
    }

    KubeletDriver(PodWorkers core) {
        this.core = core;
        state = core.newState();
    }

    KubeletDriver at(Instant t) {
        now = t;
        return this;
    }

    KubeletDriver after(long seconds) {
        now = now.plusSeconds(seconds);
        return this;
    }

    Effects apiserver(String type, HasMetadata object) {
        ResourceType resource = object instanceof Pod ? ResourceType.PODS : ResourceType.NODES;
        String ns = object.getMetadata().getNamespace();
        return deliver(
                "/apiserver",
                type,
                Subjects.of(ns, resource.plural(), object.getMetadata().getName()),
                ObjectChange.of(resource, object));
    }

    Effects sandboxStarted(Pod pod) {
        return runtime(pod, EventTypes.SANDBOX_STARTED, sandbox(pod));
    }

    Effects sandboxStopped(Pod pod) {
        return runtime(pod, EventTypes.SANDBOX_STOPPED, sandbox(pod));
    }

    Effects containerStarted(Pod pod, String container) {
        return containerStarted(pod, container, 0);
    }

    /** The runtime reports the given attempt of the container running, started now. */
    Effects containerStarted(Pod pod, String container, int attempt) {
        return runtime(
                pod,
                EventTypes.CONTAINER_STARTED,
                new ContainerState(
                        node(pod),
                        uid(pod),
                        containerId(pod, container, attempt),
                        container,
                        "nginx:1.27",
                        ContainerState.State.RUNNING,
                        null,
                        null,
                        attempt == 0 ? T0 : now,
                        null,
                        attempt));
    }

    Effects containerExited(Pod pod, String container, int exitCode) {
        return containerExited(pod, container, exitCode, 0);
    }

    /** The runtime reports the given attempt of the container exited now with the code. */
    Effects containerExited(Pod pod, String container, int exitCode, int attempt) {
        return runtime(
                pod,
                EventTypes.CONTAINER_EXITED,
                new ContainerState(
                        node(pod),
                        uid(pod),
                        containerId(pod, container, attempt),
                        container,
                        "nginx:1.27",
                        ContainerState.State.EXITED,
                        exitCode,
                        exitCode == 0 ? "Completed" : "Error",
                        T0,
                        now,
                        attempt));
    }

    /** The runtime reports it sent the given attempt of the container a signal now. */
    Effects containerSignalled(Pod pod, String container, String signal, int attempt) {
        return runtime(
                pod,
                EventTypes.CONTAINER_SIGNALLED,
                new ContainerSignal(node(pod), uid(pod), containerId(pod, container, attempt), container, signal));
    }

    /**
     * The node's CSI plugin answers a request of the volume manager, as it does when nothing goes wrong: with the fact
     * the request asked for, caused by it.
     */
    Effects csiAnswer(Event request) {
        String fact = switch (request.type()) {
            case EventTypes.NODE_STAGE_VOLUME_REQUESTED -> EventTypes.VOLUME_STAGED;
            case EventTypes.NODE_PUBLISH_VOLUME_REQUESTED -> EventTypes.VOLUME_PUBLISHED;
            case EventTypes.NODE_UNPUBLISH_VOLUME_REQUESTED -> EventTypes.VOLUME_UNPUBLISHED;
            case EventTypes.NODE_UNSTAGE_VOLUME_REQUESTED -> EventTypes.VOLUME_UNSTAGED;
            default -> throw new IllegalArgumentException("not a CSI request: " + request.type());
        };
        Object data = request.is(EventTypes.NODE_PUBLISH_VOLUME_REQUESTED)
                ? request.data(NodePublishVolume.class).publication()
                : request.data();
        Event e = Event.causedBy(
                request.asCause(),
                request.id(),
                0,
                "/csi/" + request.data().path("node").asText(),
                fact,
                request.subject(),
                now,
                data);
        delivered.add(e);
        return core.handle(state, e, now);
    }

    /**
     * The API server's answer to the (last) status update among the effects: the pod with that status, as the API
     * server stores and announces it, caused by the request.
     */
    Effects statusWritten(Pod pod, Effects effects) {
        List<Event> requests = effects.events().stream()
                .filter(e -> e.is(EventTypes.STATUS_UPDATE_REQUESTED))
                .toList();
        Event request = requests.get(requests.size() - 1);
        Pod stored = new PodBuilder(worker(pod).pod())
                .withStatus(request.data(StatusUpdateRequest.class).status())
                .build();
        Event e = Event.causedBy(
                request.asCause(),
                request.id(),
                0,
                "/apiserver",
                EventTypes.POD_STATUS_UPDATED,
                request.subject(),
                now,
                ObjectChange.of(ResourceType.PODS, stored));
        delivered.add(e);
        return core.handle(state, e, now);
    }

    /** Moves the clock to the timer and fires it, as the adapter does when it falls due. */
    Effects fire(Timer timer) {
        now = timer.at();
        return core.fire(state, timer, now);
    }

    /** Delivers an event again, as a redelivery or a duplicate on the log would. */
    Effects redeliver(Event event) {
        return core.handle(state, event, now);
    }

    /** Binds the pod and runs it until every container runs; returns the pod as the API server holds it. */
    Pod running(Pod pod) {
        apiserver(EventTypes.POD_BOUND, pod);
        sandboxStarted(pod);
        pod.getSpec().getContainers().forEach(c -> containerStarted(pod, c.getName()));
        return pod;
    }

    /** The pod as the API server stores it after a DELETE with the given grace period. */
    Pod markedTerminating(Pod pod, long grace) {
        return new PodBuilder(pod)
                .editMetadata()
                .withDeletionTimestamp(now.plusSeconds(grace).toString())
                .withDeletionGracePeriodSeconds(grace)
                .endMetadata()
                .build();
    }

    static List<String> types(Effects effects) {
        return effects.events().stream().map(Event::type).toList();
    }

    /** The data of the one event of the type among the effects; fails if there is none or more than one. */
    static <T> T only(Effects effects, String type, Class<T> payload) {
        List<T> all = effects.events().stream()
                .filter(e -> e.is(type))
                .map(e -> e.data(payload))
                .toList();
        assertEquals(1, all.size(), () -> "one " + type + " in " + types(effects));
        return all.get(0);
    }

    PodWorker worker(Pod pod) {
        return state.workers.get(uid(pod));
    }

    static String containerId(Pod pod, String container) {
        return containerId(pod, container, 0);
    }

    /** The id the runtime gives the attempt of the container. */
    static String containerId(Pod pod, String container, int attempt) {
        return attempt == 0
                ? Ids.derived("container", uid(pod), container)
                : Ids.derived("container", uid(pod), container, Integer.toString(attempt));
    }

    private Effects runtime(Pod pod, String type, Object data) {
        return deliver(
                "/runtime/" + node(pod),
                type,
                Subjects.of(
                        pod.getMetadata().getNamespace(),
                        "pods",
                        pod.getMetadata().getName()),
                data);
    }

    private Effects deliver(String source, String type, String subject, Object data) {
        Event e = Event.request("fact-" + delivered.size(), source, type, subject, now, null, data);
        delivered.add(e);
        return core.handle(state, e, now);
    }

    private static Sandbox sandbox(Pod pod) {
        return new Sandbox(node(pod), uid(pod), Ids.derived("sandbox", uid(pod)), "10.244.1.2");
    }

    private static String uid(Pod pod) {
        return pod.getMetadata().getUid();
    }

    private static String node(Pod pod) {
        return pod.getSpec().getNodeName();
    }
}
