package io.podfall.replay;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.apiserver.registry.Registry;
import io.podfall.apiserver.registry.RegistryState;
import io.podfall.apiserver.registry.SystemNamespaces;
import io.podfall.controller.ControllerManagerState;
import io.podfall.controller.nodelifecycle.NodeLifecycleController;
import io.podfall.kubelet.KubeletState;
import io.podfall.kubelet.nodelease.NodeLeaseController;
import io.podfall.kubelet.podworkers.Compat;
import io.podfall.kubelet.podworkers.PodWorkers;
import io.podfall.kubelet.podworkers.PodWorkersState;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.core.Core;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.core.TimerQueue;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.UnreadableEventException;
import io.podfall.runtime.NodeServices;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Queue;

/**
 * The four services' cores in one process, over an in-memory log, on a virtual clock: the same classes the services
 * run, built as their CoreProducers build them, with nothing between them but the log.
 *
 * <p><b>Order.</b> Every event on the log is delivered to every core, in log order, to the cores in a fixed order
 * (API server, controller manager, the kubelets in the order given, the runtime); what a core emits is appended to
 * the tail of the log, so it is delivered after everything appended before it. Before a core handles an event, its
 * timers that are due fire, as the services' LogProcessor does.
 *
 * <p><b>Starts.</b> A service whose start is among the inputs (the API server, a kubelet) is down until then: what
 * is appended before it is not delivered to it. At its start it handles all of that in log order, as a service
 * catches up with the log (what it emits is appended as usual), then does what it does once caught up. Live, a
 * kubelet that starts first registers its nodes before the API server reads them; a Lease it asks for once its Node
 * is stored then finds {@code kube-node-lease} created. The controller manager and the runtime ask for nothing of
 * their own when they start, so a log does not say when they did: they run from the beginning.
 *
 * <p><b>Time.</b> The clock stands still while the log has undelivered events: a reaction takes no simulated time.
 * When the log is drained the clock jumps to the next input or the next timer of any core, whichever is earlier
 * (an input first on a tie: live, a timer due at the very instant a request arrives fires a moment after it); timers
 * due at one instant fire in core order, then in the due order of {@link TimerQueue}. Nothing sleeps.
 *
 * <p><b>Inputs</b> are taken in the order given, each at its time but never before the one before it, so a
 * recording's inputs reach the log in the order they did.
 *
 * <p><b>Unreadable data.</b> An event a core fails on (its data does not read as its type, or reads with a part
 * missing) is skipped by that core and named ({@link #skipped}), as a service sends it to the dead-letter topic and
 * goes on (flow-adapter LogProcessor).
 *
 * <p>Same inputs, same log: the cores are deterministic and ids are derived from causes, so two engines given the
 * same inputs append the same events, byte for byte.
 *
 * <p>{@link #fold} is the other use of the cores: it rebuilds their state from a recorded log without deciding
 * anything anew, as a restarted service does, to say what each component held at a moment of the recording, or to
 * replay a recording from that moment on ({@link #goLive}).
 */
public final class Engine {
    /**
     * A kubelet process: the nodes it simulates and its settings (kubelet-svc CoreProducer): its compatibility
     * switches, and {@code podfall.kubelet.eviction-max-pod-grace-period} (empty: the kubelet's default).
     */
    public record KubeletSettings(List<String> nodes, Compat compat, OptionalLong evictionMaxPodGracePeriod) {
        public KubeletSettings {
            nodes = List.copyOf(nodes);
        }

        /** A kubelet with the default eviction grace period: a log does not show the setting. */
        public KubeletSettings(List<String> nodes, Compat compat) {
            this(nodes, compat, OptionalLong.empty());
        }

        PodWorkers podWorkers() {
            return evictionMaxPodGracePeriod.isPresent()
                    ? new PodWorkers(nodes, compat, evictionMaxPodGracePeriod.getAsLong()) : new PodWorkers(nodes, compat);
        }
    }

    /** One kubelet's core and its state. */
    public record Kubelet(PodWorkers podWorkers, PodWorkersState state) {
    }

    private final Runner<RegistryState> apiServer;
    private final Runner<ControllerManagerState> controllerManager;
    private final List<Runner<KubeletState>> kubelets = new ArrayList<>();
    private final Runner<NodeServices.State> runtime;
    /** The cores in delivery order. */
    private final List<Runner<?>> runners = new ArrayList<>();

    private final List<Event> log = new ArrayList<>();
    private int delivered;
    private final Queue<Input> inputs = new ArrayDeque<>();
    /** What the cores decided while folding a recording that the recording did not hold (yet), by id, in order. */
    private final Map<String, Event> heldBack = new LinkedHashMap<>();
    /** The events a core could not read, as {@code <core> skipped <type> <subject> <id>: <reason>}. */
    private final List<String> skipped = new ArrayList<>();
    private Instant clock = Instant.EPOCH;

    public Engine(List<KubeletSettings> kubeletSettings) {
        apiServer = add("apiserver", new Registry());
        controllerManager = add("controller manager", io.podfall.controller.CoreProducer.controllerManager(
                Duration.ofSeconds(NodeLifecycleController.DEFAULT_GRACE_PERIOD_SECONDS)));
        for (KubeletSettings k : kubeletSettings) {
            kubelets.add(add("kubelet " + String.join(",", k.nodes()),
                    new io.podfall.kubelet.Kubelet(k.podWorkers(), NodeLeaseController.DEFAULT_LEASE_DURATION_SECONDS)));
        }
        runtime = add("runtime", io.podfall.runtime.CoreProducer.nodeServices());
    }

    private <S> Runner<S> add(String name, Core<S> core) {
        Runner<S> r = new Runner<>(name, core, skipped);
        runners.add(r);
        return r;
    }

    /** Adds inputs after those given before; they reach the log when {@link #runUntil} gets to their time. */
    public void schedule(List<? extends Input> more) {
        for (Input input : more) {
            Runner<?> starting = starting(input);
            if (starting != null && !starting.handledAny) {
                starting.down = true;
            }
        }
        inputs.addAll(more);
    }

    /** The core an input starts, or null for a request. */
    private Runner<?> starting(Input input) {
        if (input instanceof Input.KubeletStart k) {
            return kubelets.get(k.kubelet());
        }
        return input instanceof Input.ApiServerStart ? apiServer : null;
    }

    /**
     * Runs until nothing is left to do at or before {@code until}: every input due by then appended, every event
     * delivered, every timer due by then fired.
     */
    public void runUntil(Instant until) {
        while (true) {
            if (delivered < log.size()) {
                deliver(log.get(delivered++));
                continue;
            }
            Input input = inputs.peek();
            Runner<?> timerOf = earliestTimer();
            Instant inputAt = input == null ? null : later(input.at(), clock);
            if (input != null && (timerOf == null || !timerOf.timers.next().orElseThrow().at().isBefore(inputAt))) {
                if (inputAt.isAfter(until)) {
                    return;
                }
                clock = inputAt;
                log.addAll(appended(inputs.remove()));
            } else if (timerOf != null) {
                Instant at = later(timerOf.timers.next().orElseThrow().at(), clock);
                if (at.isAfter(until)) {
                    return;
                }
                clock = at;
                fireDue(timerOf);
            } else {
                return;
            }
        }
    }

    /** What an input appends: itself, or what the starting service asks for, decided on the state it has now. */
    private List<Event> appended(Input input) {
        if (input instanceof Input.Request r) {
            return List.of(r.event());
        }
        catchUp(starting(input));
        if (input instanceof Input.KubeletStart k) {
            Runner<KubeletState> kubelet = kubelets.get(k.kubelet());
            return ((io.podfall.kubelet.Kubelet) kubelet.core).podWorkers().registerNodes(kubelet.state.podWorkers(), clock);
        }
        return SystemNamespaces.missing(apiServer.state, clock);
    }

    /** A core that was down handles, now, what was delivered without it: all of the log so far. */
    private void catchUp(Runner<?> r) {
        if (!r.down) {
            return;
        }
        r.down = false;
        for (int i = 0; i < delivered; i++) {
            fireDue(r);
            log.addAll(r.handle(log.get(i), clock));
        }
    }

    private void deliver(Event event) {
        for (Runner<?> r : runners) {
            if (!r.down) {
                fireDue(r);
                log.addAll(r.handle(event, clock));
            }
        }
    }

    /** Fires the runner's timers due by now, at now, appending what they emit. */
    private void fireDue(Runner<?> r) {
        for (var due = r.timers.pollDue(clock); due.isPresent(); due = r.timers.pollDue(clock)) {
            log.addAll(r.fire(due.get(), clock));
        }
    }

    /** The runner whose next timer is the earliest (the first in core order on a tie), or null. */
    private Runner<?> earliestTimer() {
        Runner<?> earliest = null;
        for (Runner<?> r : runners) {
            var next = r.timers.next();
            if (next.isPresent() && (earliest == null
                    || next.get().at().isBefore(earliest.timers.next().orElseThrow().at()))) {
                earliest = r;
            }
        }
        return earliest;
    }

    /**
     * Rebuilds every core's state with one more event of a recorded log, as a service does while it catches up
     * with the log (flow-adapter LogProcessor): time is the event's, the timers due by then fire at their due time
     * first, and what the cores decide is dropped, since a recording holds it already.
     */
    public void fold(Event recorded) {
        foldUntil(recorded.time());
        clock = later(recorded.time(), clock);
        heldBack.remove(recorded.id());
        for (Runner<?> r : runners) {
            holdBack(r.handle(recorded, clock));
        }
        observeRevision(recorded);
    }

    /**
     * A fact of the API server on the recording took its resourceVersion: etcd's revision is at least that, though
     * the folded log may not hold every write that led there (flows cut out of a shared topic). The other cores saw
     * that resourceVersion; the API server's next write must come after it, as live.
     */
    private void observeRevision(Event recorded) {
        if (Registry.SOURCE.equals(recorded.source()) && EventTypes.OBJECT_CHANGES.contains(recorded.type())) {
            JsonNode object;
            try {
                object = ObjectChange.of(recorded).object(); // read already by the watchers that folded it just now
            } catch (UnreadableEventException notAChange) {
                object = recorded.data().path("object"); // the cores skip it, but its revision was taken
            }
            String rv = object.path("metadata").path("resourceVersion").asText("");
            if (!rv.isEmpty() && rv.chars().allMatch(Character::isDigit)) {
                apiServer.state.observeRevision(Long.parseLong(rv));
            }
        }
    }

    /** Fires, in due order and at their due times, the timers due by {@code at}, dropping what they emit. */
    public void foldUntil(Instant at) {
        for (Runner<?> r = earliestTimer(); r != null && !r.timers.next().orElseThrow().at().isAfter(at); r = earliestTimer()) {
            Timer timer = r.timers.pollDue(at).orElseThrow();
            clock = later(timer.at(), clock);
            holdBack(r.fire(timer, clock));
        }
        clock = later(at, clock);
    }

    /** Dropped if the recording holds it further on (it was appended live before the folding stops), else kept. */
    private void holdBack(List<Event> decided) {
        decided.forEach(e -> heldBack.put(e.id(), e));
    }

    /**
     * Ends folding: what the cores decided while folding and the folded part of the recording does not hold is
     * appended now (its causes came before the moment folding stopped, its answers after), as a service that has
     * caught up with the log appends what it decided while rebuilding and never saw on the log (flow-adapter
     * LogProcessor). From here on {@link #runUntil} goes on from the state the recording led to.
     */
    public void goLive() {
        log.addAll(heldBack.values());
        heldBack.clear();
    }

    /** What the cores could not read and skipped, in the order they met it (none for a sound log). */
    public List<String> skipped() {
        return Collections.unmodifiableList(skipped);
    }

    /** Everything appended so far, in log order. */
    public List<Event> log() {
        return Collections.unmodifiableList(log);
    }

    /** The virtual clock: the time of the last thing that happened. */
    public Instant now() {
        return clock;
    }

    public RegistryState apiServer() {
        return apiServer.state;
    }

    public ControllerManagerState controllerManager() {
        return controllerManager.state;
    }

    public List<Kubelet> kubelets() {
        return kubelets.stream().map(k -> new Kubelet(((io.podfall.kubelet.Kubelet) k.core).podWorkers(),
                k.state.podWorkers())).toList();
    }

    public NodeServices.State runtime() {
        return runtime.state;
    }

    private static Instant later(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    /** One core with its state and timers, as a service's LogProcessor holds them. */
    private static final class Runner<S> {
        final String name;
        final Core<S> core;
        final S state;
        final TimerQueue timers = new TimerQueue();
        final List<String> skipped;
        /** Whether it was handed an event yet: only a core that was not can be down until its start. */
        boolean handledAny;
        /** Not started yet: events are not delivered to it until its start input ({@link #catchUp}). */
        boolean down;

        Runner(String name, Core<S> core, List<String> skipped) {
            this.name = name;
            this.core = core;
            this.state = core.newState();
            this.skipped = skipped;
        }

        List<Event> handle(Event event, Instant now) {
            handledAny = true;
            if (!core.reads(event.type())) {
                return List.of(); // as the service's adapter: neither decoded nor handed to the core
            }
            try {
                return applied(core.handle(state, event, now));
            } catch (RuntimeException e) {
                String reason = e instanceof UnreadableEventException ? e.getMessage() : "the core failed: " + e;
                skipped.add(name + " skipped " + event.type() + " " + event.subject() + " " + event.id() + ": " + reason);
                return List.of();
            }
        }

        List<Event> fire(Timer timer, Instant now) {
            return applied(core.fire(state, timer, now));
        }

        private List<Event> applied(Effects effects) {
            timers.apply(effects);
            return effects.events();
        }
    }
}
