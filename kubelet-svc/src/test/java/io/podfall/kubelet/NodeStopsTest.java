package io.podfall.kubelet;

import static io.podfall.kubelet.testing.ApiFacts.T0;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.podfall.kubelet.nodestatus.InitialNode;
import io.podfall.kubelet.podworkers.PodWorkers;
import io.podfall.kubelet.testing.ApiFacts;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.core.CompositeState;
import io.podfall.model.core.CoreHost;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Ids;
import io.podfall.model.event.Subjects;
import io.podfall.model.host.NodeMachine;
import io.podfall.model.k8s.ResourceType;
import io.podfall.model.kubelet.OrphanedPod;
import io.podfall.model.kubelet.PodTerminationStart;
import io.podfall.model.runtime.ContainerState;
import io.podfall.model.runtime.Sandbox;
import io.podfall.model.runtime.StopContainer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node whose machine stops and starts again, in a kubelet of two nodes: node-2 stops, node-1 goes on.
 *
 * <p>Given both nodes registered with their Leases and pods running on each, when node-2 stops, then nothing comes from
 * {@code /kubelet/node-2} until it starts; at its start it terminates a pod marked for deletion while it was away with
 * the grace period the pod has now, kills the containers of a pod force-deleted meanwhile as an orphan's, adopts a
 * running pod as it is, and posts its status and renews its Lease at once.
 */
class NodeStopsTest {
    private static final String NODE_2 = "/kubelet/node-2";

    private final ApiFacts api = new ApiFacts();
    /** Every input handed to the kubelet, in order, to rebuild another one from. */
    private final List<Event> inputs = new ArrayList<>();

    private CoreHost<CompositeState> kubelet;
    private List<Event> emitted;
    private Instant now = T0;

    private final Pod web =
            aPod("web").withUid("uid-web").onNode("node-2").withGrace(30).build();
    private final Pod forced =
            aPod("forced").withUid("uid-forced").onNode("node-2").build();
    private final Pod kept = aPod("kept").withUid("uid-kept").onNode("node-2").build();
    private final Pod other =
            aPod("other").withUid("uid-other").onNode("node-1").build();

    @BeforeEach
    void twoNodesWithRunningPods() {
        kubelet = newKubelet(true);
        for (String node : List.of("node-1", "node-2")) {
            List<Event> out =
                    deliver(api.fact(EventTypes.OBJECT_CREATED, ResourceType.NODES, InitialNode.of(node, T0)));
            Event leaseRequest = out.stream()
                    .filter(e -> e.is(EventTypes.CREATION_REQUESTED))
                    .findFirst()
                    .orElseThrow();
            Lease lease = Json.convert(leaseRequest.data(CreationRequest.class).object(), Lease.class);
            deliver(api.answer(leaseRequest, EventTypes.OBJECT_CREATED, ResourceType.LEASES, lease));
        }
        for (Pod pod : List.of(web, forced, kept, other)) {
            deliver(api.fact(EventTypes.POD_BOUND, ResourceType.PODS, pod));
            deliver(runtime(pod, EventTypes.SANDBOX_STARTED, sandbox(pod)));
            deliver(runtime(pod, EventTypes.CONTAINER_STARTED, container(pod, ContainerState.State.RUNNING)));
        }
    }

    @Test
    void aStoppedNodeEmitsNothingAndHoldsItsTimersWhileTheOtherNodeGoesOn() {
        stopNode2At(5);

        List<Event> whileStopped = new ArrayList<>();
        whileStopped.addAll(advanceTo(30)); // two of node-1's renewals come due, and node-2's
        whileStopped.addAll(deliver(api.at(at(31))
                .fact(EventTypes.OBJECT_MARKED_TERMINATING, ResourceType.PODS, terminating(web, 31, 30))));
        whileStopped.addAll(deliver(api.at(at(32))
                .fact(EventTypes.OBJECT_MARKED_TERMINATING, ResourceType.PODS, terminating(other, 32, 30))));
        whileStopped.addAll(advanceTo(300));

        assertTrue(
                whileStopped.stream().noneMatch(e -> e.source().equals(NODE_2)), "node-2 is silent: " + whileStopped);
        assertTrue(
                whileStopped.stream()
                        .anyMatch(e -> e.is(EventTypes.UPDATE_REQUESTED)
                                && e.subject().equals(Subjects.of("kube-node-lease", "leases", "node-1"))),
                "node-1 renews its Lease");
        assertTrue(
                whileStopped.stream()
                        .anyMatch(e -> e.is(EventTypes.STOP_CONTAINER_REQUESTED)
                                && e.data(StopContainer.class).podUid().equals("uid-other")),
                "node-1 kills its pod");
        assertTrue(kubelet.state().of(StoppedNodes.class).isStopped("node-2"));
    }

    @Test
    void atItsStartTheNodeFinishesWhatItFinds() {
        stopNode2At(5);
        advanceTo(20);
        deliver(api.at(at(21)).fact(EventTypes.OBJECT_MARKED_TERMINATING, ResourceType.PODS, terminating(web, 21, 30)));
        Pod forcedGone = terminating(forced, 22, 0);
        deliver(api.at(at(22)).fact(EventTypes.OBJECT_MARKED_TERMINATING, ResourceType.PODS, forcedGone));
        deliver(api.at(at(22)).fact(EventTypes.OBJECT_REMOVED, ResourceType.PODS, forcedGone));
        advanceTo(100);

        Event started = host(EventTypes.NODE_STARTED, 100);
        List<Event> out = deliver(started);

        PodTerminationStart webTermination = out.stream()
                .filter(e -> e.is(EventTypes.POD_TERMINATION_STARTED))
                .map(e -> e.data(PodTerminationStart.class))
                .filter(t -> t.podUid().equals("uid-web"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("web terminates: " + types(out)));
        assertEquals(30, webTermination.gracePeriodSeconds(), "the grace period the pod has now");
        assertEquals(at(130), webTermination.deadline(), "counted from the start, not from the deletion");
        assertEquals(30, stopOf(out, "uid-web").timeoutSeconds());

        OrphanedPod orphan = out.stream()
                .filter(e -> e.is(EventTypes.ORPHANED_POD_FOUND))
                .map(e -> e.data(OrphanedPod.class))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the force-deleted pod is an orphan: " + types(out)));
        assertEquals("uid-forced", orphan.podUid());
        assertEquals(1, orphan.gracePeriodSeconds());
        assertEquals(2, stopOf(out, "uid-forced").timeoutSeconds(), "killContainer's minimum");

        assertTrue(
                out.stream()
                        .noneMatch(e -> e.subject().endsWith("/kept")
                                && (e.is(EventTypes.RUN_POD_SANDBOX_REQUESTED)
                                        || e.is(EventTypes.START_CONTAINER_REQUESTED)
                                        || e.is(EventTypes.STOP_CONTAINER_REQUESTED))),
                "the running pod is adopted, not restarted: " + types(out));
        assertTrue(
                out.stream()
                        .anyMatch(e -> e.is(EventTypes.PATCH_REQUESTED)
                                && e.subject().equals("nodes/node-2")
                                && readyStatus(e).equals("True")),
                "the node posts Ready at once: " + types(out));
        assertTrue(
                out.stream()
                        .anyMatch(e -> e.is(EventTypes.UPDATE_REQUESTED)
                                && e.subject().equals(Subjects.of("kube-node-lease", "leases", "node-2"))),
                "the node renews its Lease at once: " + types(out));
        assertTrue(out.stream()
                .filter(e -> e.is(EventTypes.POD_TERMINATION_STARTED) || e.is(EventTypes.ORPHANED_POD_FOUND))
                .allMatch(e -> started.id().equals(e.causationId())));
        assertFalse(kubelet.state().of(StoppedNodes.class).isStopped("node-2"));
    }

    @Test
    void aContainerThatExitedWhileTheNodeWasAwayIsSeenAtTheStartOnly() {
        stopNode2At(5);
        Event exited = runtime(kept, EventTypes.CONTAINER_EXITED, container(kept, ContainerState.State.EXITED));
        assertEquals(List.of(), deliver(exited), "no decision while stopped");

        List<Event> out = deliver(host(EventTypes.NODE_STARTED, 60));

        assertTrue(
                out.stream()
                        .anyMatch(e -> e.is(EventTypes.START_CONTAINER_REQUESTED)
                                && e.subject().endsWith("/kept")),
                "restartPolicy Always starts it again once the kubelet sees it exited: " + types(out));
    }

    @Test
    void aTimerThatCameDueWhileTheNodeWasStoppedFiresOnceAtItsStart() {
        deliver(runtime(kept, EventTypes.CONTAINER_EXITED, container(kept, ContainerState.State.EXITED, 0)));
        deliver(runtime(kept, EventTypes.CONTAINER_STARTED, container(kept, ContainerState.State.RUNNING, 1)));
        List<Event> crashed =
                deliver(runtime(kept, EventTypes.CONTAINER_EXITED, container(kept, ContainerState.State.EXITED, 1)));
        assertTrue(
                crashed.stream().noneMatch(e -> e.is(EventTypes.START_CONTAINER_REQUESTED)),
                "the second exit waits out the crash-loop back-off: " + types(crashed));
        stopNode2At(5);

        assertTrue(
                advanceTo(120).stream().noneMatch(e -> e.source().equals(NODE_2)),
                "the back-off ends while the node is stopped: nothing starts");

        Event started = host(EventTypes.NODE_STARTED, 120);
        List<Event> restarts = deliver(started).stream()
                .filter(e -> e.is(EventTypes.START_CONTAINER_REQUESTED))
                .toList();
        assertEquals(1, restarts.size(), "the held back-off timer fires once: " + restarts);
        assertEquals(2, restarts.get(0).data().path("attempt").asInt());
        assertEquals(started.id(), restarts.get(0).causationId());
    }

    @Test
    void aKubeletRebuiltFromTheLogWhileTheNodeIsStoppedKeepsItStoppedAndStartsItAlike() {
        stopNode2At(5);
        deliver(api.at(at(21)).fact(EventTypes.OBJECT_MARKED_TERMINATING, ResourceType.PODS, terminating(web, 21, 30)));
        advanceTo(100);
        Event started = host(EventTypes.NODE_STARTED, 100);

        CoreHost<CompositeState> rebuilt = newKubelet(false);
        inputs.forEach(e -> rebuilt.handle(e, e.time(), (input, effects, heldBack) -> {}));
        rebuilt.goLive();
        assertTrue(rebuilt.state().of(StoppedNodes.class).isStopped("node-2"));

        List<Event> live = deliver(started);
        List<Event> again = new ArrayList<>();
        rebuilt.handle(started, started.time(), (input, effects, heldBack) -> again.addAll(effects.events()));
        assertEquals(ids(live), ids(again));
        assertFalse(live.isEmpty());
    }

    private CoreHost<CompositeState> newKubelet(boolean live) {
        return new CoreHost<>(new Kubelet(new PodWorkers(List.of("node-1", "node-2")), 40), live);
    }

    private void stopNode2At(long seconds) {
        assertEquals(List.of(), deliver(host(EventTypes.NODE_STOPPED, seconds)));
    }

    private List<Event> deliver(Event e) {
        inputs.add(e);
        now = e.time().isAfter(now) ? e.time() : now;
        emitted = new ArrayList<>();
        kubelet.handle(e, now, (input, effects, heldBack) -> emitted.addAll(effects.events()));
        return emitted;
    }

    private List<Event> advanceTo(long seconds) {
        now = at(seconds);
        emitted = new ArrayList<>();
        kubelet.advanceTo(now, (input, effects, heldBack) -> emitted.addAll(effects.events()));
        return emitted;
    }

    private static Instant at(long seconds) {
        return T0.plusSeconds(seconds);
    }

    private Event host(String type, long seconds) {
        return Event.request(
                Ids.derived("host", type, Long.toString(seconds)),
                "/host/node-2",
                type,
                "nodes/node-2",
                at(seconds),
                null,
                new NodeMachine("node-2", null));
    }

    private Event runtime(Pod pod, String type, Object data) {
        return Event.request(
                Ids.derived("runtime", type, pod.getMetadata().getUid(), now.toString()),
                "/runtime/" + pod.getSpec().getNodeName(),
                type,
                Subjects.of("default", "pods", pod.getMetadata().getName()),
                now,
                null,
                data);
    }

    private static Sandbox sandbox(Pod pod) {
        return new Sandbox(
                pod.getSpec().getNodeName(),
                pod.getMetadata().getUid(),
                "sandbox-" + pod.getMetadata().getName(),
                "10.0.0.1");
    }

    private ContainerState container(Pod pod, ContainerState.State state) {
        return container(pod, state, 0);
    }

    private ContainerState container(Pod pod, ContainerState.State state, int attempt) {
        boolean exited = state == ContainerState.State.EXITED;
        return new ContainerState(
                pod.getSpec().getNodeName(),
                pod.getMetadata().getUid(),
                "app-" + pod.getMetadata().getName() + "-" + attempt,
                "app",
                "nginx:1.27",
                state,
                exited ? 1 : null,
                exited ? "Error" : null,
                T0,
                exited ? now : null,
                attempt);
    }

    private static Pod terminating(Pod pod, long seconds, long grace) {
        return new io.fabric8.kubernetes.api.model.PodBuilder(pod)
                .editMetadata()
                .withDeletionTimestamp(at(seconds + grace).toString())
                .withDeletionGracePeriodSeconds(grace)
                .endMetadata()
                .build();
    }

    private static StopContainer stopOf(List<Event> out, String uid) {
        return out.stream()
                .filter(e -> e.is(EventTypes.STOP_CONTAINER_REQUESTED))
                .map(e -> e.data(StopContainer.class))
                .filter(s -> s.podUid().equals(uid))
                .findFirst()
                .orElseThrow(() -> new AssertionError("a StopContainer for " + uid + ": " + types(out)));
    }

    /** The status of the Ready condition a node status patch posts. */
    private static String readyStatus(Event patch) {
        for (var condition : patch.data().path("patch").path("status").path("conditions")) {
            if (condition.path("type").asText().equals("Ready")) {
                return condition.path("status").asText();
            }
        }
        return "";
    }

    private static List<String> types(List<Event> events) {
        return events.stream().map(e -> e.type() + " " + e.subject()).toList();
    }

    private static List<String> ids(List<Event> events) {
        return events.stream().map(Event::id).toList();
    }
}
