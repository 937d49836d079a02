package io.podfall.runtime.cri;

import static io.podfall.model.event.EventTypes.CONTAINER_EXITED;
import static io.podfall.model.event.EventTypes.CONTAINER_REMOVED;
import static io.podfall.model.event.EventTypes.CONTAINER_SIGNALLED;
import static io.podfall.model.event.EventTypes.CONTAINER_STARTED;
import static io.podfall.model.event.EventTypes.POD_IP_ALLOCATED;
import static io.podfall.model.event.EventTypes.POD_IP_RELEASED;
import static io.podfall.model.event.EventTypes.SANDBOX_REMOVED;
import static io.podfall.model.event.EventTypes.SANDBOX_STARTED;
import static io.podfall.model.event.EventTypes.SANDBOX_STOPPED;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.core.TimerKey;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Ids;
import io.podfall.model.event.Subjects;
import io.podfall.model.runtime.ContainerRef;
import io.podfall.model.runtime.ContainerSignal;
import io.podfall.model.runtime.ContainerState;
import io.podfall.model.runtime.RunPodSandbox;
import io.podfall.model.runtime.Sandbox;
import io.podfall.model.runtime.SandboxRef;
import io.podfall.model.runtime.StopContainer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ContainerRuntimeTest {
    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    private static final String NODE = "node-1";

    private final ContainerRuntime runtime = new ContainerRuntime();
    private final RuntimeState state = runtime.newState();
    private int requests;

    // --- the kubelet's side of the CRI, as events ---

    private Event request(String type, Object data, Instant at) {
        return Event.request(
                "req-" + ++requests, "/kubelet/" + NODE, type, "namespaces/default/pods/any", at, null, data);
    }

    private Effects handle(Event request) {
        return runtime.handle(state, request, request.time());
    }

    private Effects runPodSandbox(Pod pod, Instant at) {
        var containers = pod.getSpec().getContainers().stream()
                .map(c -> new RunPodSandbox.ContainerSpec(c.getName(), c.getImage()))
                .toList();
        var data = new RunPodSandbox(
                pod.getSpec().getNodeName(),
                pod.getMetadata().getUid(),
                pod.getMetadata().getNamespace(),
                pod.getMetadata().getName(),
                containers,
                pod.getMetadata().getAnnotations());
        return handle(request(EventTypes.RUN_POD_SANDBOX_REQUESTED, data, at));
    }

    private Effects startContainer(String podUid, String container, Instant at) {
        return startContainer(podUid, container, 0, at);
    }

    private Effects startContainer(String podUid, String container, int attempt, Instant at) {
        return handle(
                request(EventTypes.START_CONTAINER_REQUESTED, new ContainerRef(NODE, podUid, container, attempt), at));
    }

    private Effects stopContainer(String podUid, String container, long timeoutSeconds, Instant at) {
        return handle(request(
                EventTypes.STOP_CONTAINER_REQUESTED,
                new StopContainer(NODE, podUid, containerId(podUid, container), container, timeoutSeconds),
                at));
    }

    private Effects stopPodSandbox(String podUid, Instant at) {
        return handle(request(EventTypes.STOP_POD_SANDBOX_REQUESTED, new SandboxRef(NODE, podUid), at));
    }

    private Effects removePodSandbox(String podUid, Instant at) {
        return handle(request(EventTypes.REMOVE_POD_SANDBOX_REQUESTED, new SandboxRef(NODE, podUid), at));
    }

    /** A pod whose sandbox and containers run since T0. */
    private void running(Pod pod) {
        runPodSandbox(pod, T0);
        pod.getSpec()
                .getContainers()
                .forEach(c -> startContainer(pod.getMetadata().getUid(), c.getName(), T0));
    }

    private Effects fire(Timer timer) {
        return runtime.fire(state, timer, timer.at());
    }

    private static String containerId(String podUid, String container) {
        return Ids.derived("container", podUid, container);
    }

    private static List<String> types(Effects effects) {
        return effects.events().stream().map(Event::type).toList();
    }

    private static Timer timer(Effects effects, String kind) {
        return effects.timers().stream()
                .filter(t -> t.key().id().startsWith(kind + "/"))
                .findFirst()
                .orElseThrow();
    }

    private static ContainerState exited(Effects effects) {
        return effects.events().stream()
                .filter(e -> e.is(CONTAINER_EXITED))
                .findFirst()
                .orElseThrow()
                .data(ContainerState.class);
    }

    private static String signal(Event e) {
        return e.data(ContainerSignal.class).signal();
    }

    private Container container(String podUid, String name) {
        return state.sandbox(NODE, podUid).flatMap(s -> s.container(name)).orElseThrow();
    }

    // --- the whole life of a pod on a node ---

    @Test
    void fullLifecycleEmitsTheCriFactsInOrderWithThePodsSubjectAndTheNodesSource() {
        Pod pod = aPod("web-1")
                .withUid("u1")
                .onNode(NODE)
                .withContainer("sidecar")
                .build();
        String subject = Subjects.of("default", "pods", "web-1");

        Effects run = runPodSandbox(pod, T0);
        assertEquals(List.of(POD_IP_ALLOCATED, SANDBOX_STARTED), types(run));
        Sandbox sandbox = run.events().get(0).data(Sandbox.class);
        assertEquals(new Sandbox(NODE, "u1", Ids.derived("sandbox", "u1"), "10.244.1.2"), sandbox);

        Effects app = startContainer("u1", "app", T0.plusSeconds(1));
        Effects sidecar = startContainer("u1", "sidecar", T0.plusSeconds(1));
        assertEquals(List.of(CONTAINER_STARTED), types(app));
        assertEquals(
                new ContainerState(
                        NODE,
                        "u1",
                        containerId("u1", "app"),
                        "app",
                        "nginx:1.27",
                        ContainerState.State.RUNNING,
                        null,
                        null,
                        T0.plusSeconds(1),
                        null,
                        0),
                app.events().get(0).data(ContainerState.class));
        assertEquals(List.of(CONTAINER_STARTED), types(sidecar));

        Effects stopApp = stopContainer("u1", "app", 30, T0.plusSeconds(60));
        Effects stopSidecar = stopContainer("u1", "sidecar", 30, T0.plusSeconds(60));
        assertEquals(List.of(CONTAINER_SIGNALLED, CONTAINER_EXITED), types(stopApp));
        assertEquals(List.of(CONTAINER_SIGNALLED, CONTAINER_EXITED), types(stopSidecar));

        Effects stop = stopPodSandbox("u1", T0.plusSeconds(61));
        assertEquals(List.of(POD_IP_RELEASED, SANDBOX_STOPPED), types(stop));
        assertEquals(
                PodSandbox.State.NOTREADY,
                state.sandbox(NODE, "u1").orElseThrow().state());

        Effects remove = removePodSandbox("u1", T0.plusSeconds(62));
        assertEquals(List.of(CONTAINER_REMOVED, CONTAINER_REMOVED, SANDBOX_REMOVED), types(remove));
        assertEquals(
                List.of("app", "sidecar"),
                remove.events().subList(0, 2).stream()
                        .map(e -> e.data(ContainerState.class).containerName())
                        .toList());
        assertEquals(sandbox, remove.events().get(2).data(Sandbox.class));
        assertTrue(state.sandbox(NODE, "u1").isEmpty(), "the pod is forgotten");

        for (Effects effects : List.of(run, app, sidecar, stopApp, stopSidecar, stop, remove)) {
            for (Event e : effects.events()) {
                assertEquals("/runtime/node-1", e.source());
                assertEquals(subject, e.subject());
            }
        }
    }

    // --- StopContainer and the simulated process ---

    @Test
    void processExitsOnSigtermAtOnceWithDefault143() {
        running(aPod("web-1").withUid("u1").onNode(NODE).build());

        Effects stop = stopContainer("u1", "app", 30, T0.plusSeconds(10));

        assertEquals(List.of(CONTAINER_SIGNALLED, CONTAINER_EXITED), types(stop));
        assertEquals("SIGTERM", signal(stop.events().get(0)));
        ContainerState exited = exited(stop);
        assertEquals(143, exited.exitCode());
        assertEquals("Error", exited.reason());
        assertEquals(T0, exited.startedAt());
        assertEquals(T0.plusSeconds(10), exited.finishedAt());
        assertTrue(stop.timers().isEmpty(), "nothing is left to wait for");
    }

    @Test
    void anImageWhoseStopSignalIsSigquitGetsSigquitAndExitsWith131() {
        running(aPod("nginx")
                .withUid("u1")
                .onNode(NODE)
                .withAnnotation("podfall.io/stop-signal", "SIGQUIT")
                .build());

        Effects stop = stopContainer("u1", "app", 30, T0.plusSeconds(10));

        assertEquals(List.of(CONTAINER_SIGNALLED, CONTAINER_EXITED), types(stop));
        assertEquals("SIGQUIT", signal(stop.events().get(0)));
        assertEquals(131, exited(stop).exitCode());
    }

    @Test
    void trappedSigtermExitsWithItsCodeAfterTheDelayAndCancelsTheKill() {
        running(aPod("web-1")
                .withUid("u1")
                .onNode(NODE)
                .withAnnotation("podfall.io/exit-delay-seconds", "2.5")
                .withAnnotation("podfall.io/exit-code", "0")
                .build());
        Instant signalledAt = T0.plusSeconds(10);

        Effects stop = stopContainer("u1", "app", 30, signalledAt);

        assertEquals(List.of(CONTAINER_SIGNALLED), types(stop));
        Timer exit = timer(stop, "exit");
        Timer kill = timer(stop, "kill");
        assertEquals(signalledAt.plusMillis(2500), exit.at());
        assertEquals(signalledAt.plusSeconds(30), kill.at());

        Effects exited = fire(exit);
        assertEquals(List.of(CONTAINER_EXITED), types(exited));
        assertEquals(0, exited(exited).exitCode());
        assertEquals("Completed", exited(exited).reason());
        assertEquals(signalledAt.plusMillis(2500), exited(exited).finishedAt());
        assertEquals(List.of(kill.key()), exited.cancelledTimers());
        assertSame(Effects.NONE, fire(kill), "a kill after the exit finds nothing to kill");
    }

    @Test
    void ignoredSigtermIsKilledExactlyAtTheTimeoutWith137() {
        running(aPod("web-1")
                .withUid("u1")
                .onNode(NODE)
                .withAnnotation("podfall.io/on-sigterm", "ignore")
                .build());
        Instant signalledAt = T0.plusSeconds(10);

        Effects stop = stopContainer("u1", "app", 30, signalledAt);
        assertEquals(List.of(CONTAINER_SIGNALLED), types(stop));
        assertEquals(1, stop.timers().size(), "only the kill: the process never exits by itself");
        Timer kill = timer(stop, "kill");
        assertEquals(signalledAt.plusSeconds(30), kill.at());

        Effects killed = fire(kill);
        assertEquals(List.of(CONTAINER_SIGNALLED, CONTAINER_EXITED), types(killed));
        assertEquals("SIGKILL", signal(killed.events().get(0)));
        assertEquals(137, exited(killed).exitCode());
        assertEquals("Error", exited(killed).reason());
        assertEquals(signalledAt.plusSeconds(30), exited(killed).finishedAt());
    }

    @Test
    void theTimeoutRunsFromTheRequestsTimeSoARebuildSetsTheSameTimersAsLive() {
        Pod pod = aPod("web-1")
                .withUid("u1")
                .onNode(NODE)
                .withAnnotation("podfall.io/exit-delay-seconds", "45")
                .build();
        running(pod);
        Event stop = request(
                EventTypes.STOP_CONTAINER_REQUESTED,
                new StopContainer(NODE, "u1", containerId("u1", "app"), "app", 6),
                T0.plusSeconds(10));
        // Live the runtime reads the request a little after the kubelet wrote it; a rebuild reads it at its time.
        Effects live = runtime.handle(state, stop, stop.time().plusMillis(40));
        Timer liveKill = timer(live, "kill");
        Timer liveExit = timer(live, "exit");
        Effects liveKilled = runtime.fire(state, liveKill, liveKill.at().plusMillis(5));

        ContainerRuntime rebuilt = new ContainerRuntime();
        RuntimeState again = rebuilt.newState();
        runPodSandboxAndStart(rebuilt, again, pod);
        Effects replayed = rebuilt.handle(again, stop, stop.time());

        assertEquals(T0.plusSeconds(16), liveKill.at(), "the kill is due 6 s after the request");
        assertEquals(T0.plusSeconds(55), liveExit.at(), "the exit 45 s after it");
        assertEquals(liveKill, timer(replayed, "kill"));
        assertEquals(liveExit, timer(replayed, "exit"));
        assertEquals(
                ids(liveKilled),
                ids(rebuilt.fire(again, liveKill, liveKill.at())),
                "the kill fired again on the rebuild is the same kill: the log already holds it");
    }

    private void runPodSandboxAndStart(ContainerRuntime core, RuntimeState into, Pod pod) {
        var containers = pod.getSpec().getContainers().stream()
                .map(c -> new RunPodSandbox.ContainerSpec(c.getName(), c.getImage()))
                .toList();
        core.handle(
                into,
                request(
                        EventTypes.RUN_POD_SANDBOX_REQUESTED,
                        new RunPodSandbox(
                                NODE,
                                pod.getMetadata().getUid(),
                                "default",
                                pod.getMetadata().getName(),
                                containers,
                                pod.getMetadata().getAnnotations()),
                        T0),
                T0);
        pod.getSpec()
                .getContainers()
                .forEach(c -> core.handle(
                        into,
                        request(
                                EventTypes.START_CONTAINER_REQUESTED,
                                new ContainerRef(NODE, pod.getMetadata().getUid(), c.getName(), 0),
                                T0),
                        T0));
    }

    private static List<String> ids(Effects effects) {
        return effects.events().stream().map(Event::id).toList();
    }

    @Test
    void exitDelayLongerThanTheTimeoutLetsSigkillWinAndCancelsTheExitTimer() {
        running(aPod("web-1")
                .withUid("u1")
                .onNode(NODE)
                .withAnnotation("podfall.io/exit-delay-seconds", "45")
                .build());

        Effects stop = stopContainer("u1", "app", 30, T0);
        Timer exit = timer(stop, "exit");
        Timer kill = timer(stop, "kill");
        assertEquals(T0.plusSeconds(45), exit.at());

        Effects killed = fire(kill);
        assertEquals(List.of(CONTAINER_SIGNALLED, CONTAINER_EXITED), types(killed));
        assertEquals(137, exited(killed).exitCode());
        assertEquals(List.of(exit.key()), killed.cancelledTimers());
        assertSame(Effects.NONE, fire(exit), "the process is gone: it cannot exit again");
    }

    @Test
    void exitDueAtTheSameInstantAsTheKillLosesToIt() {
        running(aPod("web-1")
                .withUid("u1")
                .onNode(NODE)
                .withAnnotation("podfall.io/exit-delay-seconds", "30")
                .build());

        Effects stop = stopContainer("u1", "app", 30, T0);
        // Due together, the exit timer fires first (its key sorts first); the state decides, not the order.
        assertSame(Effects.NONE, fire(timer(stop, "exit")));
        Effects killed = fire(timer(stop, "kill"));
        assertEquals(137, exited(killed).exitCode());
    }

    @Test
    void shortenedTimeoutMovesTheKillEarlierWithoutSignallingAgain() {
        running(aPod("web-1")
                .withUid("u1")
                .onNode(NODE)
                .withAnnotation("podfall.io/on-sigterm", "ignore")
                .build());
        Timer first = timer(stopContainer("u1", "app", 30, T0), "kill");

        Effects shortened = stopContainer("u1", "app", 5, T0.plusSeconds(2));

        assertTrue(shortened.events().isEmpty(), "the stop signal is sent once");
        Timer moved = timer(shortened, "kill");
        assertEquals(first.key(), moved.key(), "same key: it replaces the kill in flight");
        assertEquals(T0.plusSeconds(7), moved.at());
        assertEquals(T0.plusSeconds(7), container("u1", "app").killDueAt());
        assertSame(Effects.NONE, fire(first), "the replaced kill is stale");
        Effects killed = fire(moved);
        assertEquals(T0.plusSeconds(7), exited(killed).finishedAt());
    }

    @Test
    void longerTimeoutLeavesTheKillWhereItWas() {
        running(aPod("web-1")
                .withUid("u1")
                .onNode(NODE)
                .withAnnotation("podfall.io/on-sigterm", "ignore")
                .build());
        stopContainer("u1", "app", 10, T0);

        assertSame(Effects.NONE, stopContainer("u1", "app", 30, T0.plusSeconds(1)));
        assertEquals(T0.plusSeconds(10), container("u1", "app").killDueAt());
    }

    @Test
    void zeroTimeoutKillsAtOnceWithoutTheStopSignal() {
        running(aPod("web-1")
                .withUid("u1")
                .onNode(NODE)
                .withAnnotation("podfall.io/on-sigterm", "ignore")
                .build());

        Effects stop = stopContainer("u1", "app", 0, T0.plusSeconds(3));

        assertEquals(List.of(CONTAINER_SIGNALLED, CONTAINER_EXITED), types(stop));
        assertEquals("SIGKILL", signal(stop.events().get(0)));
        assertEquals(137, exited(stop).exitCode());
    }

    @Test
    void stopPodSandboxKillsWhatStillRunsBeforeReleasingTheIp() {
        running(aPod("web-1")
                .withUid("u1")
                .onNode(NODE)
                .withContainer("sidecar")
                .withAnnotation("podfall.io/on-sigterm", "ignore")
                .build());
        TimerKey killKey = timer(stopContainer("u1", "app", 30, T0), "kill").key();

        Effects stop = stopPodSandbox("u1", T0.plusSeconds(1));

        assertEquals(
                List.of(
                        CONTAINER_SIGNALLED,
                        CONTAINER_EXITED,
                        CONTAINER_SIGNALLED,
                        CONTAINER_EXITED,
                        POD_IP_RELEASED,
                        SANDBOX_STOPPED),
                types(stop));
        assertEquals("SIGKILL", signal(stop.events().get(0)));
        assertEquals(List.of(killKey), stop.cancelledTimers());
        assertFalse(state.ipPool(NODE).isAllocated("10.244.1.2"));
    }

    @Test
    void removingAReadySandboxStopsItFirst() {
        running(aPod("web-1").withUid("u1").onNode(NODE).build());

        Effects remove = removePodSandbox("u1", T0.plusSeconds(1));

        assertEquals(
                List.of(
                        CONTAINER_SIGNALLED,
                        CONTAINER_EXITED,
                        POD_IP_RELEASED,
                        SANDBOX_STOPPED,
                        CONTAINER_REMOVED,
                        SANDBOX_REMOVED),
                types(remove));
        assertEquals(
                ContainerState.State.EXITED,
                remove.events().get(4).data(ContainerState.class).state());
        assertTrue(state.sandbox(NODE, "u1").isEmpty());
    }

    @Test
    void sandboxesAndIpsAreCountedUntilTheSandboxIsStoppedAndRemoved() {
        running(aPod("web-1").withUid("u1").onNode(NODE).build());
        runPodSandbox(aPod("web-2").withUid("u2").onNode("node-2").build(), T0);
        assertEquals(2, state.sandboxCount());
        assertEquals(2, state.ipsInUse());

        stopPodSandbox("u1", T0.plusSeconds(1));
        assertEquals(2, state.sandboxCount(), "a stopped sandbox is held until it is removed");
        assertEquals(1, state.ipsInUse(), "its IP is released when it stops");

        removePodSandbox("u1", T0.plusSeconds(2));
        handle(request(EventTypes.REMOVE_POD_SANDBOX_REQUESTED, new SandboxRef("node-2", "u2"), T0.plusSeconds(2)));
        assertEquals(0, state.sandboxCount(), "on every node");
        assertEquals(0, state.ipsInUse(), "on every node");
    }

    // --- idempotence ---

    @Test
    void duplicateRequestsChangeNothing() {
        Pod pod = aPod("web-1").withUid("u1").onNode(NODE).build();
        Event run = request(
                EventTypes.RUN_POD_SANDBOX_REQUESTED,
                new RunPodSandbox(
                        NODE,
                        "u1",
                        "default",
                        "web-1",
                        List.of(new RunPodSandbox.ContainerSpec("app", "nginx:1.27")),
                        Map.of()),
                T0);
        assertEquals(2, handle(run).events().size());
        assertSame(Effects.NONE, handle(run), "redelivered RunPodSandbox");
        assertSame(Effects.NONE, runPodSandbox(pod, T0.plusSeconds(1)), "a second RunPodSandbox for the pod");
        assertEquals(1, state.ipPool(NODE).inUse(), "one IP for one pod");

        Event start = request(EventTypes.START_CONTAINER_REQUESTED, new ContainerRef(NODE, "u1", "app", 0), T0);
        assertEquals(1, handle(start).events().size());
        assertSame(Effects.NONE, handle(start), "redelivered StartContainer");

        Event stop = request(
                EventTypes.STOP_CONTAINER_REQUESTED,
                new StopContainer(NODE, "u1", containerId("u1", "app"), "app", 30),
                T0.plusSeconds(5));
        assertEquals(2, handle(stop).events().size());
        assertSame(Effects.NONE, handle(stop), "redelivered StopContainer");
        assertSame(
                Effects.NONE, stopContainer("u1", "app", 0, T0.plusSeconds(6)), "StopContainer on an exited container");
        assertEquals(143, container("u1", "app").exitCode());

        Event stopSandbox =
                request(EventTypes.STOP_POD_SANDBOX_REQUESTED, new SandboxRef(NODE, "u1"), T0.plusSeconds(7));
        assertEquals(2, handle(stopSandbox).events().size());
        assertSame(Effects.NONE, handle(stopSandbox), "redelivered StopPodSandbox: the IP is released once");
        assertSame(Effects.NONE, startContainer("u1", "app", T0.plusSeconds(8)), "no start in a stopped sandbox");

        Event remove = request(EventTypes.REMOVE_POD_SANDBOX_REQUESTED, new SandboxRef(NODE, "u1"), T0.plusSeconds(9));
        assertEquals(2, handle(remove).events().size());
        assertSame(Effects.NONE, handle(remove), "redelivered RemovePodSandbox");
    }

    @Test
    void requestsTheRuntimeCannotServeAreIgnored() {
        assertSame(Effects.NONE, startContainer("nobody", "app", T0), "unknown sandbox");
        assertSame(Effects.NONE, stopContainer("nobody", "app", 30, T0), "unknown sandbox");
        assertSame(Effects.NONE, stopPodSandbox("nobody", T0));
        assertSame(Effects.NONE, removePodSandbox("nobody", T0));
        running(aPod("web-1").withUid("u1").onNode(NODE).build());
        assertSame(Effects.NONE, startContainer("u1", "not-in-the-spec", T0), "a container RunPodSandbox did not name");
        assertSame(Effects.NONE, handle(request(EventTypes.STOP_CONTAINER_REQUESTED, "not a StopContainer", T0)));
        assertSame(
                Effects.NONE,
                handle(request(
                        EventTypes.RUN_POD_SANDBOX_REQUESTED,
                        new RunPodSandbox(null, "u2", "default", "web-2", List.of(), Map.of()),
                        T0)),
                "no node");
        assertSame(
                Effects.NONE,
                handle(request(EventTypes.POD_IP_ALLOCATED, new Sandbox(NODE, "u1", "s", "10.244.1.2"), T0)),
                "its own facts are not requests");
        assertSame(
                Effects.NONE,
                runtime.fire(
                        state,
                        new Timer(
                                () -> "garbage", T0, request("x", Map.of(), T0).asCause()),
                        T0));
    }

    // --- pod IPs ---

    @Test
    void podsOfANodeGetDistinctIpsAndAReleasedIpIsTheNextOneGiven() {
        running(aPod("a").withUid("ua").onNode(NODE).build());
        running(aPod("b").withUid("ub").onNode(NODE).build());
        assertEquals("10.244.1.2", state.sandbox(NODE, "ua").orElseThrow().ip());
        assertEquals("10.244.1.3", state.sandbox(NODE, "ub").orElseThrow().ip());

        stopPodSandbox("ua", T0.plusSeconds(1));
        Effects c = runPodSandbox(aPod("c").withUid("uc").onNode(NODE).build(), T0.plusSeconds(2));

        assertEquals("10.244.1.2", c.events().get(0).data(Sandbox.class).ip());
    }

    @Test
    void eachNodeHasItsOwnPool() {
        runPodSandbox(aPod("a").withUid("ua").onNode("node-1").build(), T0);
        Effects other = runPodSandbox(aPod("b").withUid("ub").onNode("node-2").build(), T0);

        Sandbox sandbox = other.events().get(0).data(Sandbox.class);
        assertEquals("node-2", sandbox.node());
        assertEquals("10.244.2.2", sandbox.ip());
        assertEquals("/runtime/node-2", other.events().get(0).source());
    }

    @Test
    void theSandboxesOfPodsAlikeShareOneCopyOfTheirContainersAndBehaviour() {
        running(aPod("a")
                .withUid("ua")
                .onNode(NODE)
                .withAnnotation(ProcessBehaviour.EXIT_CODE, "7")
                .build());
        running(aPod("b")
                .withUid("ub")
                .onNode(NODE)
                .withAnnotation(ProcessBehaviour.EXIT_CODE, "7")
                .build());
        running(aPod("c")
                .withUid("uc")
                .onNode(NODE)
                .withAnnotation(ProcessBehaviour.EXIT_CODE, "8")
                .build());
        PodSandbox a = state.sandbox(NODE, "ua").orElseThrow();
        PodSandbox b = state.sandbox(NODE, "ub").orElseThrow();
        PodSandbox c = state.sandbox(NODE, "uc").orElseThrow();

        assertSame(a.spec("app").orElseThrow(), b.spec("app").orElseThrow());
        assertSame(a.behaviour(), b.behaviour());
        assertEquals(7, a.behaviour().exitCode());
        assertEquals(8, c.behaviour().exitCode());
        assertEquals(a.spec("app"), c.spec("app"));
    }

    // --- annotations ---

    @Test
    void badAnnotationsFallBackToExitingAtOnceWith143() {
        running(aPod("web-1")
                .withUid("u1")
                .onNode(NODE)
                .withAnnotation("podfall.io/on-sigterm", "sometimes")
                .withAnnotation("podfall.io/exit-delay-seconds", "soon")
                .withAnnotation("podfall.io/exit-code", "300")
                .build());

        Effects stop = stopContainer("u1", "app", 30, T0);

        assertEquals(List.of(CONTAINER_SIGNALLED, CONTAINER_EXITED), types(stop));
        assertEquals(143, exited(stop).exitCode());
        assertNull(container("u1", "app").killDueAt());
    }

    @Test
    void timeoutsBeyondTheLongestWaitAreCut() {
        running(aPod("web-1")
                .withUid("u1")
                .onNode(NODE)
                .withAnnotation("podfall.io/on-sigterm", "ignore")
                .build());

        Effects stop = stopContainer("u1", "app", Long.MAX_VALUE, T0);

        assertEquals(T0.plus(Duration.ofDays(3650)), timer(stop, "kill").at());
    }

    // --- a process that ends by itself, and a container started again ---

    private static Pod job(String runSeconds, String exitCode) {
        var b = aPod("job").withUid("u1").onNode(NODE).withAnnotation("podfall.io/run-seconds", runSeconds);
        return (exitCode == null ? b : b.withAnnotation("podfall.io/run-exit-code", exitCode)).build();
    }

    @Test
    void aProcessThatRunsForAWhileExitsByItselfWithItsCodeAndNoSignal() {
        runPodSandbox(job("2.5", "1"), T0);

        Effects started = startContainer("u1", "app", T0.plusSeconds(1));
        Timer run = timer(started, "run");
        assertEquals(T0.plusSeconds(1).plusMillis(2500), run.at(), "counted from the container's start");

        Effects ended = fire(run);
        assertEquals(List.of(CONTAINER_EXITED), types(ended), "no signal: nobody stopped it");
        ContainerState exited = exited(ended);
        assertEquals(1, exited.exitCode());
        assertEquals("Error", exited.reason());
        assertEquals(run.at(), exited.finishedAt());
        assertEquals(
                Effects.NONE,
                stopContainer("u1", "app", 30, run.at().plusSeconds(1)),
                "a StopContainer after the exit finds nothing to stop");
    }

    /** A sandbox with a regular init container {@code init}, a sidecar {@code proxy} and the main {@code app}. */
    private Effects runPodSandboxWithInit(Map<String, String> annotations) {
        var data = new RunPodSandbox(
                NODE,
                "u1",
                "default",
                "web",
                List.of(
                        new RunPodSandbox.ContainerSpec("init", "busybox", true),
                        new RunPodSandbox.ContainerSpec("proxy", "envoy"),
                        new RunPodSandbox.ContainerSpec("app", "nginx")),
                annotations);
        return handle(request(EventTypes.RUN_POD_SANDBOX_REQUESTED, data, T0));
    }

    @Test
    void aRegularInitContainerRunsItsInitSecondsAndExitsWithItsInitCode() {
        runPodSandboxWithInit(Map.of(
                "podfall.io/init-run-seconds", "4",
                "podfall.io/init-exit-code", "1",
                "podfall.io/run-seconds", "100",
                "podfall.io/run-exit-code", "7"));

        Timer run = timer(startContainer("u1", "init", T0.plusSeconds(1)), "run");
        assertEquals(T0.plusSeconds(5), run.at(), "init-run-seconds, not run-seconds");
        ContainerState exited = exited(fire(run));
        assertEquals(1, exited.exitCode(), "init-exit-code, not run-exit-code");
        assertEquals("Error", exited.reason());

        Timer proxy = timer(startContainer("u1", "proxy", T0.plusSeconds(6)), "run");
        assertEquals(T0.plusSeconds(106), proxy.at(), "a sidecar follows the pod's process behaviour");
        assertEquals(7, exited(fire(proxy)).exitCode());
    }

    @Test
    void aRegularInitContainerCompletesAsItStartsByDefaultWhileTheOthersRunUntilStopped() {
        runPodSandboxWithInit(Map.of());

        Effects init = startContainer("u1", "init", T0);
        assertEquals(List.of(CONTAINER_STARTED, CONTAINER_EXITED), types(init));
        assertEquals(0, exited(init).exitCode());
        assertEquals("Completed", exited(init).reason());

        Effects proxy = startContainer("u1", "proxy", T0);
        assertEquals(List.of(CONTAINER_STARTED), types(proxy));
        assertTrue(proxy.timers().isEmpty(), "a sidecar runs until it is stopped");
        assertTrue(container("u1", "proxy").isRunning());
    }

    @Test
    void aProcessThatEndsByItselfExitsWithZeroUnlessToldOtherwise() {
        runPodSandbox(job("3", null), T0);
        Effects ended = fire(timer(startContainer("u1", "app", T0), "run"));
        assertEquals(0, exited(ended).exitCode());
        assertEquals("Completed", exited(ended).reason());
    }

    @Test
    void aProcessThatRunsForNoTimeExitsAsItStarts() {
        runPodSandbox(job("0", "2"), T0);
        Effects started = startContainer("u1", "app", T0);
        assertEquals(List.of(CONTAINER_STARTED, CONTAINER_EXITED), types(started));
        assertEquals(2, exited(started).exitCode());
        assertTrue(started.timers().isEmpty());
    }

    @Test
    void stoppedBeforeItsEndTheProcessExitsOnTheSignalAndItsOwnEndIsCancelled() {
        runPodSandbox(job("60", "1"), T0);
        Timer run = timer(startContainer("u1", "app", T0), "run");

        Effects stop = stopContainer("u1", "app", 30, T0.plusSeconds(10));

        assertEquals(143, exited(stop).exitCode());
        assertEquals(List.of(run.key()), stop.cancelledTimers());
        assertSame(Effects.NONE, fire(run));
    }

    @Test
    void itsOwnEndBeforeTheKillWinsAndAtTheKillsInstantTheKillWins() {
        Pod ignoring = aPod("job")
                .withUid("u1")
                .onNode(NODE)
                .withAnnotation("podfall.io/run-seconds", "20")
                .withAnnotation("podfall.io/on-sigterm", "ignore")
                .build();
        runPodSandbox(ignoring, T0);
        Timer run = timer(startContainer("u1", "app", T0), "run");
        Timer kill = timer(stopContainer("u1", "app", 30, T0.plusSeconds(5)), "kill");
        Effects ended = fire(run);
        assertEquals(List.of(CONTAINER_EXITED), types(ended), "it ended at 20 s, before the kill at 35 s");
        assertEquals(0, exited(ended).exitCode());
        assertEquals(List.of(kill.key()), ended.cancelledTimers());

        runPodSandbox(
                aPod("job2")
                        .withUid("u2")
                        .onNode(NODE)
                        .withAnnotation("podfall.io/run-seconds", "35")
                        .withAnnotation("podfall.io/on-sigterm", "ignore")
                        .build(),
                T0);
        Timer run2 = timer(startContainer("u2", "app", T0), "run");
        Timer kill2 = timer(stopContainer("u2", "app", 30, T0.plusSeconds(5)), "kill");
        assertEquals(run2.at(), kill2.at());
        assertSame(Effects.NONE, fire(run2), "due together, the kill wins");
        assertEquals(137, exited(fire(kill2)).exitCode());
    }

    @Test
    void aContainerStartedAgainIsANewContainerWithTheNextAttemptAndItsOwnId() {
        runPodSandbox(job("2", "1"), T0);
        Effects first = startContainer("u1", "app", T0);
        fire(timer(first, "run"));

        Effects again = startContainer("u1", "app", 1, T0.plusSeconds(2));

        assertEquals(List.of(CONTAINER_STARTED), types(again));
        ContainerState restarted = again.events().get(0).data(ContainerState.class);
        assertEquals(1, restarted.attempt());
        assertEquals(Ids.derived("container", "u1", "app", "1"), restarted.containerId());
        assertEquals(T0.plusSeconds(2), restarted.startedAt());
        assertEquals(T0.plusSeconds(4), timer(again, "run").at(), "it runs its 2 s again");
        ContainerState ended = exited(fire(timer(again, "run")));
        assertEquals(restarted.containerId(), ended.containerId());
        assertEquals(1, ended.attempt());

        stopPodSandbox("u1", T0.plusSeconds(9));
        Effects removed = removePodSandbox("u1", T0.plusSeconds(10));
        assertEquals(
                List.of(CONTAINER_REMOVED, CONTAINER_REMOVED, SANDBOX_REMOVED),
                types(removed),
                "both containers of the name are removed with the sandbox");
    }

    @Test
    void aStartForAnAttemptNotNewerThanTheLatestOrWhileItRunsStartsNothing() {
        runPodSandbox(job("2", "1"), T0);
        Effects first = startContainer("u1", "app", T0);

        assertSame(Effects.NONE, startContainer("u1", "app", 1, T0.plusSeconds(1)), "the first one still runs");
        fire(timer(first, "run"));
        assertSame(Effects.NONE, startContainer("u1", "app", 0, T0.plusSeconds(3)), "a repeated first start");
        assertEquals(List.of(CONTAINER_STARTED), types(startContainer("u1", "app", 1, T0.plusSeconds(3))));
        assertEquals(1, container("u1", "app").attempt());
    }

    @Test
    void aTimerLeftFromAnEarlierAttemptDoesNotEndTheNextOne() {
        runPodSandbox(job("5", "1"), T0);
        Timer stale = timer(startContainer("u1", "app", T0), "run");
        stopContainer("u1", "app", 30, T0.plusSeconds(1));
        startContainer("u1", "app", 1, T0.plusSeconds(2));

        assertSame(Effects.NONE, fire(stale));
        assertTrue(container("u1", "app").isRunning());
    }
}
