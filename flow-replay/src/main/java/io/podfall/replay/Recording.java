package io.podfall.replay;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Quantity;
import io.podfall.apiserver.registry.Registry;
import io.podfall.controller.ControllerManagerConfiguration;
import io.podfall.controller.nodelifecycle.NodeLifecycleController;
import io.podfall.kubelet.nodelease.NodeLeaseController;
import io.podfall.kubelet.nodestatus.NodeCapacity;
import io.podfall.kubelet.podworkers.Compat;
import io.podfall.kubelet.podworkers.KubeletTiming;
import io.podfall.kubelet.proxy.ProxyTiming;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCatalogue;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a recorded log says about how to replay it: which kubelets ran, with which settings, and the inputs (what
 * reached the log from outside the cores), in log order.
 *
 * <ul>
 *   <li><b>Client requests.</b> A request from the API server's front door that nothing on the log caused (no
 *       causationId) is an input, re-injected as recorded, except for the requests the API server makes of its own
 *       accord once caught up, which the engine makes again (below). Uncaused requests of the other services (a kubelet
 *       renewing its node's Lease, posting its node's status) come from their timers: the engine makes them again too.
 *       The API server's REST front door gives a request a random id (RequestTracker: a version 4 UUID); the API
 *       server's own requests have ids derived from its state ({@code Ids.derived}: a name-based, version 3 UUID).
 *   <li><b>A node's machine stopping and starting</b> ({@code host.NodeStopped}, {@code host.NodeStarted}, appended by
 *       {@code podfall node stop|start}): nothing on the log causes them, so they are inputs, re-injected as recorded
 *       at their time; the kubelet of the node reads them as it did live.
 *   <li><b>The API server's start</b>: its own requests (the system namespaces), at the time they were made.
 *   <li><b>The kubelets and their start</b>: a kubelet registers the nodes it runs, uncaused CreationRequested for
 *       {@code nodes/<node>} from {@code /kubelet/<node>}, all with one time (PodWorkers.registerNodes): nodes first
 *       registered at one instant are one kubelet. Nodes seen only as a source, never registered (a log that begins
 *       later), make one more kubelet. A slice of a log lists its Nodes instead ({@code apiserver.ObjectListed},
 *       {@link Snapshot}): each names the nodes of its kubelet, which runs from the start, as one that registered
 *       before the slice did.
 *   <li><b>The kubelets' stops</b>: a kubelet renews its nodes' Leases every quarter of their duration, so one silent
 *       for a whole lease duration while the log goes on stopped right after the last thing it did
 *       ({@link Input.KubeletStop}, noted).
 *   <li><b>The controller manager's settings</b>: its node-monitor grace period, from the time between a node's last
 *       Lease renewal and its Ready Unknown; the others at their defaults.
 *   <li><b>Settings</b>: a kubelet runs with a compatibility switch on when an event of one of its nodes names it in
 *       its {@code compat} field (a switch is named whenever it changed a decision, and a switch that changed nothing
 *       changes nothing in a replay either), or a listed Node names it for its kubelet. Settings the log does not show
 *       take their defaults. A log recorded before a released kubelet's defect became the default (its
 *       {@code kubelet.GracePeriodShortened} without {@code killDeadline}) replays with the fix's switch on where its
 *       kubelet honoured a shortened grace period. A kubelet's waits ({@link KubeletTiming}) are on the Nodes it
 *       registered, as an annotation; a kubelet whose Nodes have none waited for nothing. So is the timing of its
 *       nodes' kube-proxies ({@link ProxyTiming}); a kubelet whose Nodes have none ran no proxy.
 * </ul>
 *
 * @param notes what the reading could not use, for the report
 */
public record Recording(
        List<Engine.KubeletSettings> kubelets,
        ControllerManagerConfiguration controllerManager,
        List<Input> inputs,
        List<String> notes) {
    private static final String KUBELET_SOURCE = "/kubelet/";
    private static final String HOST = "host";
    private static final String HOST_SOURCE = "/" + HOST + "/";
    private static final String NODES = ResourceType.NODES.plural() + "/";
    private static final String LEASES = "namespaces/" + NodeLifecycleController.LEASE_NAMESPACE + "/leases/";
    /** A version 3 UUID's version digit: {@code Ids.derived}. */
    private static final int DERIVED_ID_VERSION = 3;

    public static Recording of(List<Event> log) {
        return of(log, 0);
    }

    /**
     * The kubelets and settings of the whole log, and the inputs from position {@code from} on (the part before it is
     * folded into the cores' state, not replayed).
     */
    public static Recording of(List<Event> log, int from) {
        List<Set<String>> groups = new ArrayList<>();
        Map<String, Integer> kubeletOfNode = new LinkedHashMap<>();
        Set<String> sourceNodes = new LinkedHashSet<>();
        Map<String, Set<String>> compatByNode = new LinkedHashMap<>();
        Map<String, KubeletTiming> timingByNode = new LinkedHashMap<>();
        Map<String, ProxyTiming> proxyByNode = new LinkedHashMap<>();
        Map<String, Map<String, Quantity>> capacityByNode = new LinkedHashMap<>();
        List<Input> inputs = new ArrayList<>();
        List<Activity> activity = new ArrayList<>();
        Instant groupTime = null;
        for (int i = 0; i < log.size(); i++) {
            Event e = log.get(i);
            if (e.is(EventTypes.OBJECT_LISTED)) {
                if (e.subject() != null && e.subject().startsWith(NODES)) {
                    String node = e.subject().substring(NODES.length());
                    if (!kubeletOfNode.containsKey(node)) {
                        Set<String> kubelet = new LinkedHashSet<>(Snapshot.kubeletNodes(e));
                        kubelet.add(node);
                        kubelet.removeAll(kubeletOfNode.keySet());
                        groups.add(kubelet);
                        kubelet.forEach(n -> kubeletOfNode.put(n, groups.size() - 1));
                        groupTime = null;
                    }
                    compatByNode.computeIfAbsent(node, n -> new TreeSet<>()).addAll(Snapshot.kubeletCompat(e));
                    timing(e.data().path("object")).ifPresent(t -> timingByNode.put(node, t));
                    proxy(e.data().path("object")).ifPresent(t -> proxyByNode.put(node, t));
                    capacity(e.data().path("object")).ifPresent(c -> capacityByNode.put(node, c));
                }
                continue; // never an input: the state the slice starts from
            }
            boolean replayed = i >= from;
            String node = e.source().startsWith(KUBELET_SOURCE) ? e.source().substring(KUBELET_SOURCE.length()) : null;
            if (node != null) {
                sourceNodes.add(node);
                activity.add(new Activity(node, e.time(), isRenewal(e, node), false));
                String compat = e.data().path("compat").asText("");
                if (compat.isEmpty() && killedAgainBeforeTheDefault(e)) {
                    compat = Compat.SHORTENED_GRACE_KILLS_AGAIN;
                }
                if (!compat.isEmpty()) {
                    compatByNode.computeIfAbsent(node, n -> new TreeSet<>()).add(compat);
                }
            }
            if (isHostFact(e) && e.is(EventTypes.NODE_STOPPED)) {
                activity.add(new Activity(e.source().substring(HOST_SOURCE.length()), e.time(), false, true));
            }
            if (e.causationId() != null) {
                continue;
            }
            if (node != null && isRegistration(e, node)) {
                timing(e.data().path("object")).ifPresent(t -> timingByNode.put(node, t));
                proxy(e.data().path("object")).ifPresent(t -> proxyByNode.put(node, t));
                capacity(e.data().path("object")).ifPresent(c -> capacityByNode.put(node, c));
                Integer kubelet = kubeletOfNode.get(node);
                if (kubelet == null) {
                    if (!e.time().equals(groupTime)) {
                        groups.add(new LinkedHashSet<>());
                        groupTime = e.time();
                    }
                    kubelet = groups.size() - 1;
                    groups.get(kubelet).add(node);
                    kubeletOfNode.put(node, kubelet);
                }
                Input start = new Input.KubeletStart(kubelet, e.time());
                if (replayed && !inputs.contains(start)) {
                    inputs.add(start);
                }
            } else if (e.source().equals(Registry.SOURCE) && isDerivedId(e.id())) {
                Input start = new Input.ApiServerStart(e.time());
                if (replayed && !inputs.contains(start)) {
                    inputs.add(start);
                }
            } else if (replayed && (e.source().equals(Registry.SOURCE) || isHostFact(e))) {
                inputs.add(new Input.Request(e));
            }
        }
        List<String> notes = new ArrayList<>();
        Set<String> unregistered = new LinkedHashSet<>(sourceNodes);
        unregistered.removeAll(kubeletOfNode.keySet());
        if (!unregistered.isEmpty()) {
            groups.add(unregistered);
            unregistered.forEach(n -> kubeletOfNode.put(n, groups.size() - 1));
            notes.add("nodes " + unregistered
                    + " act on the log but their registration is not on it: one kubelet runs them from the start");
        }
        List<Engine.KubeletSettings> kubelets = new ArrayList<>();
        for (Set<String> nodes : groups) {
            Set<String> switches = new TreeSet<>();
            nodes.forEach(n -> switches.addAll(compatByNode.getOrDefault(n, Set.of())));
            Set<String> unknown = new TreeSet<>(switches);
            unknown.removeAll(Set.of(
                    Compat.SHORTENED_GRACE_KILLS_AGAIN,
                    Compat.SHORTENED_GRACE_IGNORED,
                    Compat.FORCE_DELETE_USES_SPEC_GRACE));
            if (!unknown.isEmpty()) {
                notes.add("kubelet " + nodes + ": unknown compatibility switches " + unknown + " left off");
            }
            KubeletTiming timing = nodes.stream()
                    .map(timingByNode::get)
                    .filter(Objects::nonNull)
                    .findFirst()
                    .orElse(KubeletTiming.FAST);
            NodeCapacity capacity = NodeCapacity.DEFAULT;
            for (String n : nodes) {
                if (capacityByNode.containsKey(n)) {
                    capacity = capacity.with(n, capacityByNode.get(n));
                }
            }
            kubelets.add(new Engine.KubeletSettings(
                    List.copyOf(nodes),
                    new Compat(
                            switches.contains(Compat.SHORTENED_GRACE_KILLS_AGAIN),
                            switches.contains(Compat.FORCE_DELETE_USES_SPEC_GRACE)),
                    OptionalLong.empty(),
                    timing,
                    capacity,
                    nodes.stream()
                            .map(proxyByNode::get)
                            .filter(Objects::nonNull)
                            .findFirst()));
        }
        stops(activity, kubeletOfNode, log, from, kubelets, inputs, notes);
        ControllerManagerConfiguration controllerManager = controllerManager(log);
        if (!controllerManager.equals(ControllerManagerConfiguration.DEFAULTS)) {
            notes.add("controller manager: node-monitor grace period "
                    + controllerManager.nodeMonitorGracePeriod().toSeconds() + " s, as its Ready Unknown shows");
        }
        return new Recording(List.copyOf(kubelets), controllerManager, List.copyOf(inputs), List.copyOf(notes));
    }

    /**
     * The controller manager's settings the log shows: the node-monitor grace period is the time from a node's last
     * heartbeat to the node lifecycle controller's write of its Ready Unknown, which that heartbeat's timer made (its
     * cause) when the heartbeat is a Lease renewal (the probe time is that fact's time), in whole seconds. The rest
     * take their defaults.
     */
    private static ControllerManagerConfiguration controllerManager(List<Event> log) {
        ControllerManagerConfiguration defaults = ControllerManagerConfiguration.DEFAULTS;
        Map<String, Event> leaseFacts = new HashMap<>();
        for (Event e : log) {
            if (e.subject() != null
                    && e.subject().startsWith(LEASES)
                    && (e.is(EventTypes.OBJECT_CREATED) || e.is(EventTypes.OBJECT_UPDATED))) {
                leaseFacts.put(e.id(), e);
            } else if (e.source().equals(NodeLifecycleController.SOURCE)
                    && e.is(EventTypes.PATCH_REQUESTED)
                    && e.data().path("subresource").asText("").equals("status")
                    && e.data().toString().contains("\"NodeStatusUnknown\"")
                    && leaseFacts.containsKey(e.causationId())) {
                Duration grace = Duration.ofSeconds(
                        Duration.between(leaseFacts.get(e.causationId()).time(), e.time())
                                .toSeconds());
                return new ControllerManagerConfiguration(grace, defaults.terminatedPodGcThreshold());
            }
        }
        return defaults;
    }

    /**
     * An event a kubelet's node is the source of, at that time, and whether it renews the node's Lease; or the stop of
     * the node's machine ({@code host.NodeStopped}), which silences the kubelet for that node without stopping it.
     */
    private record Activity(String node, Instant at, boolean renewal, boolean hostStop) {}

    /**
     * The kubelets that stopped: a kubelet renews its nodes' Leases every quarter of their duration, so one whose
     * renewals are on the log and cease for a whole lease duration
     * ({@value NodeLeaseController#DEFAULT_LEASE_DURATION_SECONDS} s) while the log goes on (to a renewal of its own
     * again, its restart say, or to the log's end) stopped right after the last thing it did. A log without its
     * renewals (a slice of one namespace) says nothing of that, and a silence that began with a stop of one of its
     * nodes' machines ({@code podfall node stop}, an input of its own) is that stop. A stop in the replayed part is an
     * input, in time order among the others.
     */
    private static void stops(
            List<Activity> activity,
            Map<String, Integer> kubeletOfNode,
            List<Event> log,
            int from,
            List<Engine.KubeletSettings> kubelets,
            List<Input> inputs,
            List<String> notes) {
        Duration silence = Duration.ofSeconds(NodeLeaseController.DEFAULT_LEASE_DURATION_SECONDS);
        Map<Integer, Instant> lastRenewal = new LinkedHashMap<>();
        Map<Integer, Activity> last = new LinkedHashMap<>();
        Map<Integer, Instant> hostStopped = new HashMap<>();
        List<Input.KubeletStop> stops = new ArrayList<>();
        for (Activity a : activity) {
            Integer kubelet = kubeletOfNode.get(a.node());
            if (kubelet == null) {
                continue; // a machine no kubelet of the log runs
            }
            if (a.hostStop()) {
                hostStopped.put(kubelet, a.at());
                continue;
            }
            if (a.renewal()) {
                Instant before = lastRenewal.put(kubelet, a.at());
                if (before != null
                        && Duration.between(before, a.at()).compareTo(silence) > 0
                        && !stoppedSince(hostStopped.get(kubelet), before)) {
                    stops.add(stop(kubelet, last.get(kubelet)));
                }
            }
            last.put(kubelet, a);
        }
        if (!log.isEmpty()) {
            Instant end = log.get(log.size() - 1).time();
            lastRenewal.forEach((kubelet, renewed) -> {
                if (Duration.between(renewed, end).compareTo(silence) > 0
                        && !stoppedSince(hostStopped.get(kubelet), renewed)) {
                    stops.add(stop(kubelet, last.get(kubelet)));
                }
            });
        }
        stops.sort(Comparator.comparing(Input.KubeletStop::at));
        for (Input.KubeletStop stop : stops) {
            if (!stop.at().isBefore(log.get(Math.min(from, log.size() - 1)).time())) {
                int at = 0;
                while (at < inputs.size() && !inputs.get(at).at().isAfter(stop.at())) {
                    at++;
                }
                inputs.add(at, stop);
                notes.add("kubelet " + kubelets.get(stop.kubelet()).nodes() + " silent from " + stop.at()
                        + " on: it stopped");
            }
        }
    }

    /** Whether a machine of the kubelet stopped at {@code hostStop}, at or after {@code renewed}. */
    private static boolean stoppedSince(Instant hostStop, Instant renewed) {
        return hostStop != null && !hostStop.isBefore(renewed);
    }

    /** A kubelet's renewal of its node's Lease (NodeLeaseController: an update of {@code kube-node-lease/<node>}). */
    private static boolean isRenewal(Event e, String node) {
        return (e.is(EventTypes.UPDATE_REQUESTED) || e.is(EventTypes.CREATION_REQUESTED))
                && (LEASES + node).equals(e.subject());
    }

    /** The kubelet stopped a millisecond after its last event: after deciding it, before anything else. */
    private static Input.KubeletStop stop(int kubelet, Activity lastEvent) {
        return new Input.KubeletStop(kubelet, lastEvent.at().plusMillis(1));
    }

    /**
     * This recording with {@code settings} set for every kubelet, whatever the log implies, and the recorded clients'
     * requests rewritten as its {@link PodRewrite} says (a what-if), with a note for each that says so.
     */
    public Recording with(Settings settings) {
        if (settings.isEmpty()) {
            return this;
        }
        List<String> more = new ArrayList<>(notes);
        Settings kubelet = settings.withPods(PodRewrite.NONE);
        if (!kubelet.isEmpty()) {
            more.add("what-if: " + kubelet + " for every kubelet");
        }
        List<Input> replayed = inputs;
        if (!settings.pods().isEmpty()) {
            PodRewrite.Rewritten rewritten = settings.pods().rewrite(inputs);
            replayed = rewritten.inputs();
            more.add("what-if: inputs rewritten: " + settings.pods() + " in " + rewritten.changed() + " of the "
                    + rewritten.requests() + " client requests (the pods they create or change)");
        }
        return new Recording(
                kubelets.stream().map(settings::applied).toList(), controllerManager, replayed, List.copyOf(more));
    }

    /** This recording with more notes: what the replay of it could not use ({@link Engine#skipped}). */
    Recording noting(List<String> more) {
        if (more.isEmpty()) {
            return this;
        }
        List<String> all = new ArrayList<>(notes);
        all.addAll(more);
        return new Recording(kubelets, controllerManager, inputs, List.copyOf(all));
    }

    /** The switches that are on, as a suffix for a kubelet's name in a report: {@code " (compat <names>)"} or "". */
    static String describe(Compat compat) {
        List<String> on = switches(compat);
        return on.isEmpty() ? "" : " (compat " + String.join(",", on) + ")";
    }

    /** The names of the switches that are on, as events name them in their {@code compat} field. */
    static List<String> switches(Compat compat) {
        List<String> on = new ArrayList<>();
        if (compat.shortenedGraceKillsAgain()) {
            on.add(Compat.SHORTENED_GRACE_KILLS_AGAIN);
        }
        if (compat.forceDeleteUsesSpecGrace()) {
            on.add(Compat.FORCE_DELETE_USES_SPEC_GRACE);
        }
        return on;
    }

    /**
     * A shortened grace period logged by a kubelet from before the release's defect became podfall's default: no
     * {@code killDeadline}, no {@code compat}. That kubelet moved the kill to the shorter deadline; the nearest
     * behaviour now is the fix's, so its kubelet replays with that switch on. ({@code compat}
     * {@code shortened-grace-ignored} in such a log is today's default and needs no switch.)
     */
    private static boolean killedAgainBeforeTheDefault(Event e) {
        return e.is(EventTypes.GRACE_PERIOD_SHORTENED)
                && !e.data().hasNonNull("killDeadline")
                && !e.data().hasNonNull("compat");
    }

    /**
     * What a Node was registered with, its {@code status.capacity} (the kubelet registers it as it is configured, and a
     * replay must register it alike, or its status sync would post another); none for a Node without one.
     */
    private static Optional<Map<String, Quantity>> capacity(JsonNode node) {
        JsonNode capacity = node.path("status").path("capacity");
        if (!capacity.isObject() || capacity.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Quantity> resources = new TreeMap<>();
        capacity.fields()
                .forEachRemaining(r ->
                        resources.put(r.getKey(), Quantity.parse(r.getValue().asText())));
        return Optional.of(Map.copyOf(resources));
    }

    /**
     * The waits of the kubelet that registered a Node, from the annotation it registered the Node with; none for a Node
     * without it (a kubelet that waited for nothing) or whose annotation cannot be read.
     */
    /** The kube-proxy timing a Node was registered with ({@link ProxyTiming#ANNOTATION}), if any. */
    private static Optional<ProxyTiming> proxy(JsonNode node) {
        String value = node.path("metadata")
                .path("annotations")
                .path(ProxyTiming.ANNOTATION)
                .asText("");
        try {
            return value.isEmpty() ? Optional.empty() : Optional.of(ProxyTiming.ofAnnotation(value));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static Optional<KubeletTiming> timing(JsonNode node) {
        String value = node.path("metadata")
                .path("annotations")
                .path(KubeletTiming.ANNOTATION)
                .asText("");
        if (value.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(KubeletTiming.ofAnnotation(value));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * What happened to a node's machine: appended by an operator ({@code podfall node stop|start}), caused by nothing.
     */
    private static boolean isHostFact(Event e) {
        return e.source().startsWith(HOST_SOURCE) && HOST.equals(EventCatalogue.owner(e.type()));
    }

    private static boolean isRegistration(Event e, String node) {
        return e.is(EventTypes.CREATION_REQUESTED)
                && Subjects.of("", ResourceType.NODES.plural(), node).equals(e.subject());
    }

    private static boolean isDerivedId(String id) {
        try {
            return java.util.UUID.fromString(id).version() == DERIVED_ID_VERSION;
        } catch (IllegalArgumentException notAUuid) {
            return false;
        }
    }
}
