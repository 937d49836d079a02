package io.podfall.runtime.cri;

import static io.podfall.runtime.Requests.read;
import static io.podfall.runtime.SimulatedDurations.LONGEST_WAIT;

import io.podfall.model.core.Effects;
import io.podfall.model.core.Part;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCatalogue;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Ids;
import io.podfall.model.runtime.ContainerRef;
import io.podfall.model.runtime.ContainerSignal;
import io.podfall.model.runtime.RunPodSandbox;
import io.podfall.model.runtime.SandboxRef;
import io.podfall.model.runtime.StopContainer;
import io.podfall.runtime.cni.IpPool;
import io.podfall.runtime.cri.ContainerTimer.Kind;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The container runtime (CRI, with CNI for pod IPs) of every node, as containerd serves the kubelet's calls from
 * {@code pkg/kubelet/kuberuntime} ({@code killContainer} in {@code kuberuntime_container.go} calls StopContainer with
 * the pod's grace period). It answers the {@code runtime.*Requested} events for whatever node they name; every fact it
 * emits has source {@code /runtime/<node>} and the pod's subject.
 *
 * <p>State ({@link RuntimeState}): per node an {@link IpPool} and its {@link PodSandbox}es by pod UID; per sandbox its
 * IP, the pod's process behaviour and its {@link Container}s; per container when its exit and its kill are due.
 *
 * <p><b>Sandbox.</b> RunPodSandbox takes an IP from the node's pool (CNI ADD: PodIPAllocated) and starts the sandbox
 * (SandboxStarted): READY. StopPodSandbox kills what still runs in it, gives the IP back (CNI DEL: PodIPReleased) and
 * stops it (SandboxStopped): NOTREADY. RemovePodSandbox removes its containers (ContainerRemoved each) and the sandbox
 * (SandboxRemoved), stopping it first if it is still READY, and forgets the pod. A sandbox is made once per pod UID: a
 * second RunPodSandbox changes nothing.
 *
 * <p><b>Container.</b> StartContainer creates and starts a container of a READY sandbox in one step: RUNNING
 * (ContainerStarted). StopContainer with a timeout works as containerd's {@code internal/cri/server/container_stop.go}:
 * the stop signal (ContainerSignalled SIGTERM, or the image's STOPSIGNAL, {@code podfall.io/stop-signal}) is sent once,
 * then the runtime waits up to the timeout and sends SIGKILL (ContainerSignalled SIGKILL, ContainerExited 137).
 * Meanwhile the simulated process does what the pod's annotations say ({@link ProcessBehaviour}): exit at once, exit
 * after a delay, or ignore the signal. Exiting on the signal and being killed are two timers; the first to fire wins
 * and cancels the other, and at the same instant the kill wins (the timeout has passed and the process has not exited).
 * A timeout of 0 skips the stop signal and kills at once, as containerd does. Then EXITED with containerd's reason,
 * Completed for 0 and Error otherwise.
 *
 * <p><b>A process that ends by itself</b> ({@code podfall.io/run-seconds}, {@code podfall.io/run-exit-code}): a third
 * timer, set when the container starts, ends it with its own code (ContainerExited, as for an exit on the signal, with
 * no signal before it); whichever of the three comes first wins, and at the same instant the kill still wins. The
 * kubelet may then start the container again (StartContainer with the next attempt): a new container of the same name
 * in the same sandbox, with an id of its own; the exited one stays until RemovePodSandbox removes it with the rest. A
 * regular init container (RunPodSandbox marks it {@code init}) is such a process always: it runs
 * {@code podfall.io/init-run-seconds} [0] and exits with {@code podfall.io/init-exit-code} [0]. A sidecar is no init
 * container to the runtime: it runs as the main containers do.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Every state only moves forward: sandbox READY → NOTREADY → removed, container RUNNING → EXITED → removed.
 *   <li>The stop signal reaches a process at most once; a later StopContainer only waits, and its kill is due at the
 *       earlier of the two deadlines (so a shortened grace period reaches the runtime that way); one with a later
 *       deadline, a duplicate, or one for an exited container emits nothing.
 *   <li>A container exits exactly once (one ContainerExited); no timer of an exited container stays set.
 *   <li>An IP is released exactly once, when its sandbox leaves READY; ids are derived from the pod UID (and the
 *       container name and attempt), so a replay mints the same ones.
 *   <li>A request the runtime cannot serve (unknown sandbox, unknown container, unreadable data, a node whose pool is
 *       exhausted) changes nothing and emits nothing: the core never throws on its input.
 * </ul>
 */
public final class ContainerRuntime implements Part<RuntimeState> {
    /** 128 + 9: the exit code of a process ended by SIGKILL. */
    static final int KILLED_EXIT_CODE = 137;

    @Override
    public RuntimeState newState() {
        return new RuntimeState();
    }

    @Override
    public void handle(RuntimeState state, Event event, Effects.Builder effects) {
        switch (event.type()) {
            case EventTypes.RUN_POD_SANDBOX_REQUESTED ->
                read(event, RunPodSandbox.class).ifPresent(r -> runPodSandbox(state, r, effects));
            case EventTypes.START_CONTAINER_REQUESTED ->
                read(event, ContainerRef.class).ifPresent(r -> startContainer(state, r, effects));
            case EventTypes.STOP_CONTAINER_REQUESTED ->
                read(event, StopContainer.class).ifPresent(r -> stopContainer(state, r, event.time(), effects));
            case EventTypes.STOP_POD_SANDBOX_REQUESTED ->
                read(event, SandboxRef.class).ifPresent(r -> stopPodSandbox(state, r, effects));
            case EventTypes.REMOVE_POD_SANDBOX_REQUESTED ->
                read(event, SandboxRef.class).ifPresent(r -> removePodSandbox(state, r, effects));
            default -> {}
        }
    }

    /** The CRI calls made to it; its own facts are its effects, and nothing else reaches it. */
    @Override
    public boolean reads(String type) {
        return EventCatalogue.isRequest(type) && "runtime".equals(EventCatalogue.owner(type));
    }

    @Override
    public void fire(RuntimeState state, Timer timer, Effects.Builder effects) {
        if (!(timer.key() instanceof ContainerTimer key)) {
            return;
        }
        Kind kind = key.kind();
        String node = key.node();
        Optional<PodSandbox> sandbox = state.sandbox(node, key.podUid());
        Optional<Container> container = sandbox.flatMap(s -> s.container(key.container()));
        if (container.isEmpty() || !container.get().isRunning()) {
            return;
        }
        Container c = container.get();
        // The due instants in the state decide, not the order in which the timers fire: a timer that was moved
        // or lost to the other one is stale, and at the same instant the kill wins.
        if (kind == Kind.EXIT
                && timer.at().equals(c.exitDueAt())
                && c.exitDueAt().isBefore(c.killDueAt())) {
            cancelTimers(node, sandbox.get(), c, Kind.EXIT, effects);
            exit(node, sandbox.get(), c, sandbox.get().behaviour().exitCode(), c.exitDueAt(), effects);
        } else if (kind == Kind.KILL && timer.at().equals(c.killDueAt())) {
            cancelTimers(node, sandbox.get(), c, Kind.KILL, effects);
            kill(node, sandbox.get(), c, c.killDueAt(), effects);
        } else if (kind == Kind.RUN
                && timer.at().equals(c.runEndsAt())
                && (c.killDueAt() == null || c.runEndsAt().isBefore(c.killDueAt()))) {
            cancelTimers(node, sandbox.get(), c, Kind.RUN, effects);
            exit(node, sandbox.get(), c, runExitCode(sandbox.get(), c), c.runEndsAt(), effects);
        }
    }

    /** CRI RunPodSandbox: CNI ADD, then the sandbox runs. */
    private void runPodSandbox(RuntimeState state, RunPodSandbox r, Effects.Builder effects) {
        if (r.node() == null
                || r.podUid() == null
                || r.namespace() == null
                || r.name() == null
                || state.sandbox(r.node(), r.podUid()).isPresent()) {
            return;
        }
        IpPool pool = state.ipPool(r.node());
        Optional<String> ip = pool.allocate();
        if (ip.isEmpty()) {
            return;
        }
        List<RunPodSandbox.ContainerSpec> specs = r.containers() == null
                ? List.of()
                : r.containers().stream()
                        .filter(s -> s != null && s.name() != null)
                        .toList();
        PodSandbox sandbox = new PodSandbox(
                r.node(),
                r.podUid(),
                Ids.derived("sandbox", r.podUid()),
                r.namespace(),
                r.name(),
                ip.get(),
                specs,
                ProcessBehaviour.fromAnnotations(r.annotations()));
        state.add(r.node(), sandbox);
        effects.emit(source(r.node()), EventTypes.POD_IP_ALLOCATED, sandbox.subject(), sandbox.sandbox());
        effects.emit(source(r.node()), EventTypes.SANDBOX_STARTED, sandbox.subject(), sandbox.sandbox());
    }

    /**
     * CRI CreateContainer + StartContainer, for a container the RunPodSandbox request named: its first attempt, or a
     * later one once the previous container of that name has exited (the kubelet restarting it). A request for an
     * attempt that is not newer than the latest container of the name is a repeat and starts nothing. A process that
     * ends by itself ({@code podfall.io/run-seconds}) gets its timer, counted from its start. A regular init container
     * always ends by itself, after {@code podfall.io/init-run-seconds} (0: in the same step as its start).
     */
    private void startContainer(RuntimeState state, ContainerRef r, Effects.Builder effects) {
        if (r.node() == null || r.containerName() == null) {
            return;
        }
        Optional<PodSandbox> found = state.sandbox(r.node(), r.podUid()).filter(PodSandbox::isReady);
        Optional<RunPodSandbox.ContainerSpec> spec = found.flatMap(s -> s.spec(r.containerName()));
        Optional<Container> latest = found.flatMap(s -> s.container(r.containerName()));
        if (spec.isEmpty()
                || latest.filter(c -> c.isRunning() || c.attempt() >= r.attempt())
                        .isPresent()) {
            return;
        }
        PodSandbox sandbox = found.get();
        Instant startedAt = effects.causeTime();
        Duration runFor = spec.get().runsToCompletion()
                ? sandbox.behaviour().initRunFor()
                : sandbox.behaviour().runFor();
        Container c = new Container(
                containerId(r),
                r.containerName(),
                spec.get().image(),
                startedAt,
                r.attempt(),
                runFor == null ? null : after(startedAt, runFor));
        sandbox.add(c);
        effects.emit(source(r.node()), EventTypes.CONTAINER_STARTED, sandbox.subject(), c.status(r.node(), r.podUid()));
        if (c.runEndsAt() == null) {
            return;
        }
        if (c.runEndsAt().isAfter(startedAt)) {
            effects.timer(ContainerTimer.of(Kind.RUN, r.node(), sandbox, c), c.runEndsAt());
        } else {
            exit(r.node(), sandbox, c, runExitCode(sandbox, c), startedAt, effects);
        }
    }

    /**
     * The code a process exits with when it ends by itself: a regular init container's
     * {@code podfall.io/init-exit-code}, any other's {@code podfall.io/run-exit-code}.
     */
    private static int runExitCode(PodSandbox sandbox, Container c) {
        boolean init = sandbox.spec(c.name())
                .map(RunPodSandbox.ContainerSpec::runsToCompletion)
                .orElse(false);
        return init ? sandbox.behaviour().initExitCode() : sandbox.behaviour().runExitCode();
    }

    /** The first attempt keeps the id it always had; every restart gets one of its own. */
    private static String containerId(ContainerRef r) {
        return r.attempt() == 0
                ? Ids.derived("container", r.podUid(), r.containerName())
                : Ids.derived("container", r.podUid(), r.containerName(), Integer.toString(r.attempt()));
    }

    /**
     * CRI StopContainer, as containerd's {@code stopContainer}: the stop signal once, SIGKILL when the timeout has
     * passed. A repeated call does not signal again but waits its own timeout, so the kill comes at the earlier of the
     * two deadlines.
     *
     * <p>The timeout runs from {@code requestedAt}, the request's time on the log, not from when the runtime reads it:
     * so the runtime rebuilding its state from the log after a restart sets its exit and kill timers at the very
     * instants it set them live. A timer is recognised by its instant, so a kill that had fired before the restart is
     * the same kill again and not appended twice, and one still pending fires when it was due.
     */
    private void stopContainer(RuntimeState state, StopContainer r, Instant requestedAt, Effects.Builder effects) {
        if (r.node() == null) {
            return;
        }
        Optional<PodSandbox> found = state.sandbox(r.node(), r.podUid());
        Optional<Container> container = found.flatMap(s -> r.containerId() == null
                ? s.container(r.containerName())
                : s.containers().stream()
                        .filter(c -> r.containerId().equals(c.id()))
                        .findFirst());
        if (container.isEmpty() || !container.get().isRunning()) {
            return;
        }
        PodSandbox sandbox = found.get();
        Container c = container.get();
        if (r.timeoutSeconds() <= 0) {
            cancelTimers(r.node(), sandbox, c, null, effects);
            kill(r.node(), sandbox, c, effects.now(), effects);
            return;
        }
        Instant killDue = after(requestedAt, Duration.ofSeconds(r.timeoutSeconds()));
        if (!c.isStopSignalled()) {
            signalStop(r.node(), sandbox, c, requestedAt, killDue, effects);
        } else if (killDue.isBefore(c.killDueAt())) {
            c.killDue(killDue);
            effects.timer(ContainerTimer.of(Kind.KILL, r.node(), sandbox, c), killDue);
        }
    }

    /**
     * The stop signal (SIGTERM unless the image says otherwise), then the process's answer: exit now, an exit timer, or
     * nothing; and the kill timer in any case. The exit delay counts from the request, as the timeout does.
     */
    private void signalStop(
            String node,
            PodSandbox sandbox,
            Container c,
            Instant requestedAt,
            Instant killDue,
            Effects.Builder effects) {
        Instant now = effects.now();
        ProcessBehaviour process = sandbox.behaviour();
        emitSignal(node, sandbox, c, process.stopSignal(), effects);
        if (process.exitsOnSigterm() && process.exitDelay().isZero()) {
            cancelTimers(node, sandbox, c, null, effects);
            c.stopSignalled(now, null, null);
            exit(node, sandbox, c, process.exitCode(), now, effects);
            return;
        }
        Instant exitDue = process.exitsOnSigterm() ? after(requestedAt, process.exitDelay()) : null;
        c.stopSignalled(now, exitDue, killDue);
        if (exitDue != null) {
            effects.timer(ContainerTimer.of(Kind.EXIT, node, sandbox, c), exitDue);
        }
        effects.timer(ContainerTimer.of(Kind.KILL, node, sandbox, c), killDue);
    }

    /**
     * CRI StopPodSandbox, as containerd's {@code internal/cri/server/sandbox_stop.go}: whatever still runs is killed
     * with timeout 0 (the kubelet stops containers first, so normally nothing is left), then the sandbox and its
     * network go. containerd tears the network down last, inside the same call; SandboxStopped is the fact that the
     * call completed, so it follows PodIPReleased.
     */
    private void stopPodSandbox(RuntimeState state, SandboxRef r, Effects.Builder effects) {
        if (r.node() == null) {
            return;
        }
        Optional<PodSandbox> found = state.sandbox(r.node(), r.podUid()).filter(PodSandbox::isReady);
        if (found.isEmpty()) {
            return;
        }
        stopSandbox(state, r.node(), found.get(), effects);
    }

    /**
     * CRI RemovePodSandbox, as containerd's {@code internal/cri/server/sandbox_remove.go}: a sandbox still READY is
     * forcibly stopped first; then its containers, then the sandbox, are removed.
     */
    private void removePodSandbox(RuntimeState state, SandboxRef r, Effects.Builder effects) {
        if (r.node() == null) {
            return;
        }
        Optional<PodSandbox> found = state.sandbox(r.node(), r.podUid());
        if (found.isEmpty()) {
            return;
        }
        PodSandbox sandbox = found.get();
        if (sandbox.isReady()) {
            stopSandbox(state, r.node(), sandbox, effects);
        }
        for (Container c : sandbox.containers()) {
            effects.emit(
                    source(r.node()), EventTypes.CONTAINER_REMOVED, sandbox.subject(), c.status(r.node(), r.podUid()));
        }
        effects.emit(source(r.node()), EventTypes.SANDBOX_REMOVED, sandbox.subject(), sandbox.sandbox());
        state.remove(r.node(), r.podUid());
    }

    private void stopSandbox(RuntimeState state, String node, PodSandbox sandbox, Effects.Builder effects) {
        for (Container c : sandbox.containers()) {
            if (c.isRunning()) {
                cancelTimers(node, sandbox, c, null, effects);
                kill(node, sandbox, c, effects.now(), effects);
            }
        }
        state.ipPool(node).release(sandbox.ip());
        sandbox.stopped();
        effects.emit(source(node), EventTypes.POD_IP_RELEASED, sandbox.subject(), sandbox.sandbox());
        effects.emit(source(node), EventTypes.SANDBOX_STOPPED, sandbox.subject(), sandbox.sandbox());
    }

    /** SIGKILL: the process ends at {@code at} with 137, whatever it was doing. */
    private void kill(String node, PodSandbox sandbox, Container c, Instant at, Effects.Builder effects) {
        emitSignal(node, sandbox, c, "SIGKILL", effects);
        exit(node, sandbox, c, KILLED_EXIT_CODE, at, effects);
    }

    private void exit(String node, PodSandbox sandbox, Container c, int exitCode, Instant at, Effects.Builder effects) {
        c.exited(exitCode, at);
        effects.emit(source(node), EventTypes.CONTAINER_EXITED, sandbox.subject(), c.status(node, sandbox.podUid()));
    }

    /** Cancels the container's pending timers but {@code firing}, the one being fired (null when a request acts). */
    private void cancelTimers(String node, PodSandbox sandbox, Container c, Kind firing, Effects.Builder effects) {
        if (c.exitDueAt() != null && firing != Kind.EXIT) {
            effects.cancelTimer(ContainerTimer.of(Kind.EXIT, node, sandbox, c));
        }
        if (c.killDueAt() != null && firing != Kind.KILL) {
            effects.cancelTimer(ContainerTimer.of(Kind.KILL, node, sandbox, c));
        }
        if (c.runEndsAt() != null && firing != Kind.RUN) {
            effects.cancelTimer(ContainerTimer.of(Kind.RUN, node, sandbox, c));
        }
    }

    private void emitSignal(String node, PodSandbox sandbox, Container c, String signal, Effects.Builder effects) {
        effects.emit(
                source(node),
                EventTypes.CONTAINER_SIGNALLED,
                sandbox.subject(),
                new ContainerSignal(node, sandbox.podUid(), c.id(), c.name(), signal));
    }

    private static Instant after(Instant from, Duration wait) {
        // Longer timeouts are cut to the longest wait, as exit delays are.
        return from.plus(wait.compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT : wait);
    }

    private static String source(String node) {
        return "/runtime/" + node;
    }
}
