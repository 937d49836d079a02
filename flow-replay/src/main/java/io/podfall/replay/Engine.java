package io.podfall.replay;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.apiserver.ApiServerConfiguration;
import io.podfall.apiserver.registry.Registry;
import io.podfall.apiserver.registry.RegistryState;
import io.podfall.apiserver.registry.SystemNamespaces;
import io.podfall.controller.ControllerManagerConfiguration;
import io.podfall.kubelet.KubeletConfiguration;
import io.podfall.kubelet.StoppedNodes;
import io.podfall.kubelet.nodestatus.NodeCapacity;
import io.podfall.kubelet.podworkers.Compat;
import io.podfall.kubelet.podworkers.KubeletTiming;
import io.podfall.kubelet.podworkers.PodWorkers;
import io.podfall.kubelet.podworkers.PodWorkersState;
import io.podfall.kubelet.proxy.ProxyTiming;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.core.CompositeState;
import io.podfall.model.core.Core;
import io.podfall.model.core.CoreHost;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.UnreadableEventException;
import io.podfall.runtime.RuntimeConfiguration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.function.Predicate;

/**
 * The four services' cores in one process, over an in-memory log, on a virtual clock: the same classes the services
 * run, built by the factories their CDI producers call ({@link KubeletConfiguration} and the like), each in the
 * {@link CoreHost} the services' LogProcessor runs it in, with nothing between them but the log.
 *
 * <p><b>A discrete-event simulation of the services over one log.</b> Each service reads the log in its order, as a
 * Kafka consumer does, at times of its own: an event reaches the log some time after it was decided, and each service
 * reads it some time after that ({@link Latencies}: as recorded, from a model, or at once). Before a service handles an
 * event its timers due by then fire, as the LogProcessor fires them. What a service decides goes to the log at its
 * delay; time moves to whatever happens next: an event reaching the log, a service reading one, an input, a timer. At
 * one instant, services read first (the earliest position on the log first, then in service order: API server,
 * controller manager, the kubelets in the order given, the runtime), then what was decided reaches the log, in the
 * recording's order (an event decided at that very instant may come before one that was waiting), then an input
 * arrives, then a timer that fell due with nothing to read rings (live, a timer due at the very instant a request
 * arrives fires a moment after it). At recorded latencies an input arrives before what reaches the log at its instant:
 * a service that starts then has caught up with what reached the log before it, and what it asks for at its start goes
 * to the log in the recording's order with the rest. With no latency the clock stands still while anything is
 * undelivered, and every race resolves in that fixed order.
 *
 * <p><b>Starts.</b> A service whose start is among the inputs (the API server, a kubelet) is down until then: it reads
 * nothing. At its start it reads all of the log so far, as a service catches up with the log (what it emits is appended
 * as usual), then does what it does once caught up. Live, a kubelet that starts first registers its nodes before the
 * API server reads them; a Lease it asks for once its Node is stored then finds {@code kube-node-lease} created. The
 * controller manager and the runtime ask for nothing of their own when they start, so a log does not say when they did:
 * they run from the beginning.
 *
 * <p><b>Stops.</b> A kubelet that stops ({@link Input.KubeletStop}) is down from then on: it reads nothing and its
 * timers do not ring; what it decided before still reaches the log.
 *
 * <p><b>Inputs</b> arrive each at its time. At recorded latencies they reach the log in the recording's order as the
 * rest does, so they are taken in the order of their times (a kubelet that registered its nodes before the API server
 * asked for its namespaces, and whose requests reached the log after them, registers them at its own time). Otherwise
 * they are taken in the order given, each at its time but never before the one before it, so that they reach the log in
 * the order they did.
 *
 * <p><b>Unreadable data.</b> An event a core fails on (its data does not read as its type, or reads with a part
 * missing) is skipped by that core and named ({@link #skipped}), as a service sends it to the dead-letter topic and
 * goes on (flow-adapter LogProcessor).
 *
 * <p>Same inputs and latencies, same log: the cores are deterministic, ids are derived from causes and the latencies
 * from the recording, so two engines given the same append the same events, byte for byte.
 *
 * <p>{@link #fold} is the other use of the cores: it rebuilds their state from a recorded log without deciding anything
 * anew, as a restarted service does, to say what each component held at a moment of the recording, or to replay a
 * recording from that moment on ({@link #goLive}).
 */
public final class Engine {
    /**
     * A kubelet process: the nodes it simulates and its settings (kubelet-svc KubeletProducer): its compatibility
     * switches, {@code podfall.kubelet.eviction-max-pod-grace-period} (empty: the kubelet's default), its waits and
     * what its nodes register with ({@code podfall.kubelet.node-capacity}), and its nodes' kube-proxies (empty: none).
     */
    public record KubeletSettings(
            List<String> nodes,
            Compat compat,
            OptionalLong evictionMaxPodGracePeriod,
            KubeletTiming timing,
            NodeCapacity capacity,
            Optional<ProxyTiming> proxy) {
        public KubeletSettings {
            nodes = List.copyOf(nodes);
        }

        /** A kubelet whose nodes run no kube-proxy: a log shows one only on the Nodes a kubelet with one registers. */
        public KubeletSettings(
                List<String> nodes,
                Compat compat,
                OptionalLong evictionMaxPodGracePeriod,
                KubeletTiming timing,
                NodeCapacity capacity) {
            this(nodes, compat, evictionMaxPodGracePeriod, timing, capacity, Optional.empty());
        }

        /**
         * A kubelet with the default eviction grace period, a log does not show it, and no waits: a log shows those
         * only on the Nodes a kubelet with waits registers.
         */
        public KubeletSettings(List<String> nodes, Compat compat) {
            this(nodes, compat, OptionalLong.empty(), KubeletTiming.FAST);
        }

        /** A kubelet whose nodes have the default capacity. */
        public KubeletSettings(
                List<String> nodes, Compat compat, OptionalLong evictionMaxPodGracePeriod, KubeletTiming timing) {
            this(nodes, compat, evictionMaxPodGracePeriod, timing, NodeCapacity.DEFAULT);
        }

        /** The kubelet-svc configuration these settings are: the rest as the service's defaults. */
        public KubeletConfiguration configuration() {
            KubeletConfiguration defaults = KubeletConfiguration.defaults(nodes);
            return new KubeletConfiguration(
                    nodes,
                    compat,
                    evictionMaxPodGracePeriod.orElse(defaults.evictionMaxPodGracePeriodSeconds()),
                    defaults.nodeLeaseDurationSeconds(),
                    timing,
                    capacity,
                    proxy);
        }
    }

    /** One kubelet's core and its state: its pod workers', and which of its nodes are stopped. */
    public record Kubelet(PodWorkers podWorkers, PodWorkersState state, StoppedNodes stopped) {}

    /** What happens at one instant, in this order: see the class comment. */
    private static final int READ = 0;

    private static final int APPEND = 1;
    private static final int INPUT = 2;
    private static final int TIMER = 3;

    private final Service<RegistryState> apiServer;
    private final Service<CompositeState> controllerManager;
    private final List<Service<CompositeState>> kubelets = new ArrayList<>();
    private final Service<CompositeState> runtime;
    /** The services in the order they read an event at one instant. */
    private final List<Service<?>> services = new ArrayList<>();

    private final Latencies latencies;

    private final List<Event> log = new ArrayList<>();
    /** When each event of {@link #log} reached it. */
    private final List<Instant> appendedAt = new ArrayList<>();
    /** Decided, not yet on the log: by when it gets there, then the recording's order, then decision order. */
    private final PriorityQueue<Pending> pending = new PriorityQueue<>(Comparator.comparing(Pending::at)
            .thenComparingInt(Pending::position)
            .thenComparingLong(Pending::seq));

    private long decisions;
    private long scheduled;
    /** In the order they arrive: by time where the latencies keep the recorded log order, else as given. */
    private final Queue<Scheduled> inputs;
    /** The events a core could not read, as {@code <core> skipped <type> <subject> <id>: <reason>}. */
    private final List<String> skipped = new ArrayList<>();

    private Instant clock = Instant.EPOCH;
    /** Whether it has run: before, it can fold a recording ({@link #fold}); {@link #goLive} ends that. */
    private boolean live;

    /** An engine in which nothing takes time ({@link Latency#ZERO}). */
    public Engine(List<KubeletSettings> kubeletSettings) {
        this(kubeletSettings, Latencies.ZERO);
    }

    /** An engine whose controller manager runs with upstream's defaults. */
    public Engine(List<KubeletSettings> kubeletSettings, Latencies latencies) {
        this(kubeletSettings, ControllerManagerConfiguration.DEFAULTS, latencies);
    }

    /** @param settings the controller manager's settings (controller-svc ControllerManagerProducer) */
    public Engine(List<KubeletSettings> kubeletSettings, ControllerManagerConfiguration settings, Latencies latencies) {
        this.latencies = latencies;
        this.inputs = latencies.keepsRecordedOrder()
                ? new PriorityQueue<>(
                        Comparator.comparing((Scheduled s) -> s.input().at()).thenComparingLong(Scheduled::seq))
                : new ArrayDeque<>();
        apiServer = add("apiserver", "apiserver", new ApiServerConfiguration().newRegistry(), source -> true);
        controllerManager = add("controller manager", "controller", settings.newControllerManager(), source -> true);
        for (KubeletSettings k : kubeletSettings) {
            kubelets.add(add(
                    "kubelet " + String.join(",", k.nodes()),
                    "kubelet",
                    k.configuration().newKubelet(),
                    source -> k.nodes().contains(source.substring(source.lastIndexOf('/') + 1))));
        }
        runtime = add("runtime", "runtime", new RuntimeConfiguration().newNodeServices(), source -> true);
    }

    /** A service of a {@code kind} ({@link Latencies#kind}) whose sources of that kind are those {@code ofIts}. */
    private <S> Service<S> add(String name, String kind, Core<S> core, Predicate<String> ofIts) {
        Service<S> s = new Service<>(
                name,
                new CoreHost<>(core, false),
                latencies.reader(kind, source -> Latencies.kind(source).equals(kind) && ofIts.test(source)));
        services.add(s);
        return s;
    }

    /** Adds inputs after those given before; they reach the log when {@link #runUntil} gets to their time. */
    public void schedule(List<? extends Input> more) {
        for (Input input : more) {
            Service<?> starting = starting(input);
            if (starting != null && !starting.handledAny) {
                starting.down = true;
            }
        }
        for (Input input : more) {
            inputs.add(new Scheduled(input, scheduled++));
        }
    }

    /** The service an input starts, or null for a request. */
    private Service<?> starting(Input input) {
        if (input instanceof Input.KubeletStart k) {
            return kubelets.get(k.kubelet());
        }
        return input instanceof Input.ApiServerStart ? apiServer : null;
    }

    /**
     * Runs until nothing is left to do at or before {@code until}: every input due by then appended, every event that
     * reaches the log by then appended and read by every service that reads it by then, every timer due by then fired.
     */
    public void runUntil(Instant until) {
        goLive();
        while (true) {
            Instant at = null;
            int what = -1;
            Service<?> who = null;
            for (Service<?> s : services) {
                Instant read = s.nextRead();
                if (read != null && (who == null || read.isBefore(at) || read.equals(at) && s.cursor < who.cursor)) {
                    at = read;
                    what = READ;
                    who = s;
                }
            }
            Input input = inputs.isEmpty() ? null : inputs.peek().input();
            Instant inputAt = input == null ? null : later(input.at(), clock);
            boolean inputFirst = latencies.keepsRecordedOrder();
            if (inputFirst && input != null && (at == null || inputAt.isBefore(at))) {
                at = inputAt;
                what = INPUT;
            }
            if (!pending.isEmpty() && (at == null || pending.peek().at().isBefore(at))) {
                at = pending.peek().at();
                what = APPEND;
            }
            if (!inputFirst && input != null && (at == null || inputAt.isBefore(at))) {
                at = inputAt;
                what = INPUT;
            }
            for (Service<?> s : services) {
                Instant due = s.host.nextTimer().orElse(null);
                if (due != null && !s.down && (at == null || due.isBefore(at))) {
                    at = due;
                    what = TIMER;
                    who = s;
                }
            }
            if (at == null || at.isAfter(until)) {
                return;
            }
            clock = later(at, clock);
            switch (what) {
                case APPEND -> {
                    Pending p = pending.remove();
                    log.add(p.event());
                    appendedAt.add(clock);
                }
                case READ -> who.read(clock);
                case INPUT -> append(appended(inputs.remove().input()), false);
                default -> who.host.advanceTo(clock, who::decided);
            }
        }
    }

    /** Sends what was decided at the clock's time ({@code byTimer}: by a timer) towards the log, each at its delay. */
    private void append(List<Event> decided, boolean byTimer) {
        for (Event e : decided) {
            Latencies.Appended a = latencies.decided(e, byTimer);
            pending.add(new Pending(a.event(), later(a.at(), clock), latencies.position(e), decisions++));
        }
    }

    /** What an input appends: itself, or what the starting service asks for, decided on the state it has now. */
    private List<Event> appended(Input input) {
        if (input instanceof Input.Request r) {
            return List.of(r.event());
        }
        if (input instanceof Input.KubeletStop k) {
            kubelets.get(k.kubelet()).down = true;
            return List.of();
        }
        catchUp(starting(input));
        if (input instanceof Input.KubeletStart k) {
            Kubelet kubelet = kubelet(kubelets.get(k.kubelet()));
            return kubelet.podWorkers().registerNodes(kubelet.state(), clock);
        }
        return SystemNamespaces.missing(apiServer.host.state(), clock);
    }

    /**
     * A service that was down starts. At recorded latencies it reads the log from now on, each event when it did in the
     * recording: a service's start is when it had caught up with the log as it stood then, which may have held nothing
     * of what it read later (an API server that started while a kubelet's registrations were on their way, and created
     * the Node 1.2 s later). Otherwise it reads, now, all that reached the log without it.
     */
    private void catchUp(Service<?> s) {
        if (!s.down) {
            return;
        }
        s.down = false;
        if (latencies.keepsRecordedOrder()) {
            s.lastRead = clock;
            return;
        }
        while (s.cursor < log.size()) {
            s.handle(log.get(s.cursor++), clock);
        }
    }

    /**
     * Rebuilds every core's state with one more event of a recorded log, as a service does while it catches up with the
     * log (flow-adapter LogProcessor): time is the event's, the timers due by then fire at their due time first, and
     * what the cores decide is held back, since a recording holds it already.
     */
    public void fold(Event recorded) {
        requireFolding();
        clock = later(recorded.time(), clock);
        for (Service<?> s : services) {
            s.handle(recorded, clock);
        }
        observeRevision(recorded);
    }

    /**
     * A fact of the API server on the recording took its resourceVersion: etcd's revision is at least that, though the
     * folded log may not hold every write that led there (flows cut out of a shared topic). The other cores saw that
     * resourceVersion; the API server's next write must come after it, as live.
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
                apiServer.host.state().observeRevision(Long.parseLong(rv));
            }
        }
    }

    /** Fires, at their due times, the timers due by {@code at}, holding back what they emit. */
    public void foldUntil(Instant at) {
        requireFolding();
        clock = later(at, clock);
        for (Service<?> s : services) {
            s.host.advanceTo(clock, s::decided);
        }
    }

    /**
     * Ends folding: what the cores decided while folding and the folded part of the recording does not hold is appended
     * now (its causes came before the moment folding stopped, its answers after), as a service that has caught up with
     * the log appends what it decided while rebuilding and never saw on the log (flow-adapter LogProcessor), in the
     * order of the times it was decided. From here on {@link #runUntil} goes on from the state the recording led to.
     * The first {@link #runUntil} does it if not done.
     */
    public void goLive() {
        if (live) {
            return;
        }
        live = true;
        List<Event> unseen = new ArrayList<>();
        for (Service<?> s : services) {
            unseen.addAll(s.host.goLive());
        }
        unseen.sort(Comparator.comparing(Event::time)); // stable: services in their order at one instant
        append(unseen, false);
    }

    private void requireFolding() {
        if (live) {
            throw new IllegalStateException("the engine has run: it folds a recording only before");
        }
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
        return apiServer.host.state();
    }

    public CompositeState controllerManager() {
        return controllerManager.host.state();
    }

    public List<Kubelet> kubelets() {
        return kubelets.stream().map(Engine::kubelet).toList();
    }

    private static Kubelet kubelet(Service<CompositeState> k) {
        return new Kubelet(
                ((io.podfall.kubelet.Kubelet) k.host.core()).podWorkers(),
                k.host.state().of(PodWorkersState.class),
                k.host.state().of(StoppedNodes.class));
    }

    public CompositeState runtime() {
        return runtime.host.state();
    }

    private static Instant later(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    /** An input, and when it was given among the others. */
    private record Scheduled(Input input, long seq) {}

    /** An event decided, on its way to the log. */
    private record Pending(Event event, Instant at, int position, long seq) {}

    /** One service: its core in its host, and where it is in the log, as its Kafka consumer would be. */
    private final class Service<S> {
        final String name;
        final CoreHost<S> host;
        /** When it reads each event after it reached the log. */
        final Latencies.Reader reader;
        /** The position on the log of the next event it reads. */
        int cursor;
        /** When it read the event before: it reads in log order, so never earlier than that. */
        Instant lastRead = Instant.EPOCH;
        /** When it reads the event at {@link #cursor}, once that event is on the log. */
        Instant nextRead;
        /** Whether it was handed an event yet: only a service that was not can be down until its start. */
        boolean handledAny;
        /** Not started yet, or stopped: it reads nothing until its start input ({@link #catchUp}). */
        boolean down;

        Service(String name, CoreHost<S> host, Latencies.Reader reader) {
            this.name = name;
            this.host = host;
            this.reader = reader;
        }

        /** When it reads the next event on the log, or null if it is down or has read all there is. */
        Instant nextRead() {
            if (down || cursor >= log.size()) {
                return null;
            }
            if (nextRead == null) {
                Event e = log.get(cursor);
                nextRead = later(
                        host.reads(e.type()) ? appendedAt.get(cursor).plus(reader.read(e)) : appendedAt.get(cursor),
                        lastRead);
            }
            return nextRead;
        }

        /** Reads the event at {@link #cursor} at {@code now}. */
        void read(Instant now) {
            lastRead = now;
            nextRead = null;
            handle(log.get(cursor++), now);
        }

        void handle(Event event, Instant now) {
            handledAny = true;
            try {
                host.handle(event, now, this::decided);
            } catch (RuntimeException e) {
                String reason = e instanceof UnreadableEventException ? e.getMessage() : "the core failed: " + e;
                skipped.add(
                        name + " skipped " + event.type() + " " + event.subject() + " " + event.id() + ": " + reason);
            }
        }

        void decided(Event input, Effects effects, boolean heldBack) {
            if (!heldBack) {
                append(effects.events(), input == null);
            }
        }
    }
}
