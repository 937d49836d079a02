package io.podfall.cli.analysis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.stream.Stream;

/**
 * The invariants of pod deletion, checked over a whole log. Each finding names the events that prove it, so it
 * can be looked up on the topic ({@code kcat}) or in an export.
 */
public final class Check {
    /** How long after a flow's last step (or its deadline) a log must go on before a stalled flow is an error. */
    static final Duration STALL = Duration.ofSeconds(30);
    /** How long finalizers may keep an object after its final delete before {@code finalizer-blocking} warns. */
    public static final Duration FINALIZER_THRESHOLD = Duration.ofSeconds(30);

    public enum Level { ERROR, WARNING }

    public record Finding(Level level, String rule, String subject, String message, List<String> eventIds) {
        public String render() {
            return level + " " + rule + " " + subject + ": " + message + " [events " + String.join(", ", eventIds) + "]";
        }
    }

    private Check() {
    }

    public static List<Finding> of(List<Event> log) {
        return of(log, FINALIZER_THRESHOLD);
    }

    /** Every rule over the log; {@code finalizerThreshold} is how long finalizers may hold an object. */
    public static List<Finding> of(List<Event> log, Duration finalizerThreshold) {
        List<Finding> findings = new ArrayList<>();
        findings.addAll(removedWhileRunning(log));
        findings.addAll(killedBeforeGrace(log));
        findings.addAll(killedThoughExiting(log));
        findings.addAll(inEndpointsAfterSigterm(log));
        findings.addAll(incomplete(log));
        findings.addAll(finalizerBlocking(log, finalizerThreshold));
        findings.addAll(leakedIps(log));
        findings.addAll(leakedVolumes(log));
        findings.addAll(duplicates(log));
        return findings;
    }

    public static boolean hasErrors(List<Finding> findings) {
        return findings.stream().anyMatch(f -> f.level() == Level.ERROR);
    }

    /**
     * A pod left the store while a container of it still ran. Expected only after a force deletion (grace 0
     * from the client): the API server then deletes at once and the node catches up, as upstream documents.
     */
    static List<Finding> removedWhileRunning(List<Event> log) {
        Map<String, Map<String, Event>> running = new HashMap<>();
        Map<String, DeletionFlow> flows = new HashMap<>();
        DeletionFlow.all(log).forEach(f -> flows.put(f.key(), f));
        List<Finding> out = new ArrayList<>();
        for (int i = 0; i < log.size(); i++) {
            Event e = log.get(i);
            JsonNode d = e.data();
            if (e.is(EventTypes.CONTAINER_STARTED)) {
                running.computeIfAbsent(d.path("podUid").asText(), k -> new LinkedHashMap<>()).put(container(d), e);
            } else if (e.is(EventTypes.CONTAINER_EXITED)) {
                running.getOrDefault(d.path("podUid").asText(), Map.of()).remove(container(d));
            } else if (e.is(EventTypes.OBJECT_REMOVED) && DeletionFlow.isPod(e.subject())) {
                Map<String, Event> still = running.getOrDefault(uidOf(e), Map.of());
                if (still.isEmpty()) {
                    continue;
                }
                List<String> ids = new ArrayList<>(List.of(e.id()));
                List<String> names = new ArrayList<>();
                for (Map.Entry<String, Event> c : still.entrySet()) {
                    names.add(c.getValue().data().path("containerName").asText());
                    ids.add(c.getValue().id());
                    exitAfter(log, i, c.getValue()).ifPresent(x -> ids.add(x.id()));
                }
                DeletionFlow flow = flows.get(DeletionFlow.key(e));
                boolean forced = flow != null && flow.forced();
                out.add(new Finding(forced ? Level.WARNING : Level.ERROR, "removed-while-running", e.subject(),
                        "removed from the store while container(s) " + String.join(", ", names) + " still ran"
                                + (forced ? " (force deletion: the API server does not wait for the node)" : ""),
                        ids));
            }
        }
        return out;
    }

    /**
     * A container got SIGKILL before the pod's grace period ran out: before the kubelet's deadline (from
     * PodTerminationStarted, or the latest GracePeriodShortened), else before its StopContainer timeout. The
     * kubelet rounds the seconds left up, so a correct kill is never early.
     */
    static List<Finding> killedBeforeGrace(List<Event> log) {
        Map<String, Event> deadlines = new HashMap<>();
        Map<String, Event> stops = new HashMap<>();
        List<Finding> out = new ArrayList<>();
        for (Event e : log) {
            JsonNode d = e.data();
            if (e.is(EventTypes.POD_TERMINATION_STARTED) || e.is(EventTypes.GRACE_PERIOD_SHORTENED)) {
                deadlines.put(d.path("podUid").asText(), e);
            } else if (e.is(EventTypes.STOP_CONTAINER_REQUESTED)) {
                stops.put(d.path("podUid").asText() + "/" + container(d), e);
            } else if (e.is(EventTypes.CONTAINER_SIGNALLED) && "SIGKILL".equals(d.path("signal").asText())) {
                Event limit = deadlines.get(d.path("podUid").asText());
                Instant due;
                if (limit != null) {
                    due = Instant.parse(limit.data().path("deadline").asText());
                } else {
                    limit = stops.get(d.path("podUid").asText() + "/" + container(d));
                    if (limit == null) {
                        continue;
                    }
                    due = limit.time().plusSeconds(limit.data().path("timeoutSeconds").asLong());
                }
                if (e.time().isBefore(due)) {
                    out.add(new Finding(Level.ERROR, "killed-before-grace", e.subject(),
                            "container " + d.path("containerName").asText() + " got SIGKILL at " + e.time() + ", "
                                    + Duration.between(e.time(), due).toMillis() + " ms before the grace period ran out ("
                                    + due + ", from " + limit.type() + ")",
                            List.of(e.id(), limit.id())));
                }
            }
        }
        return out;
    }

    /**
     * A container got SIGKILL although its process would have exited on the stop signal within the grace period it
     * was owed: the kill cut a graceful exit short. The process is read from the annotations the runtime got at
     * RunPodSandbox, else from the pod object on the log ({@link SimulatedProcess}). Owed is the grace period the
     * deletion requested (the API server's first deletionGracePeriodSeconds: the delete's, else the spec's), or the
     * pod's spec.terminationGracePeriodSeconds when that was 0 (a force deletion) or no delete asked (the kubelet's
     * eviction), counted from the start of termination as the kubelet counts it. A warning when the kubelet
     * honoured a shorter grace period, which the log explains (a force deletion, a second delete with less, an
     * eviction's override); an error when it honoured all that was owed and the process was killed anyway.
     */
    static List<Finding> killedThoughExiting(List<Event> log) {
        Map<String, PodRecord> pods = new HashMap<>();
        List<Finding> out = new ArrayList<>();
        for (Event e : log) {
            JsonNode d = e.data();
            if (DeletionFlow.isPod(e.subject()) && EventTypes.OBJECT_CHANGES.contains(e.type())) {
                pods.computeIfAbsent(uidOf(e), k -> new PodRecord()).object(e);
                continue;
            }
            PodRecord p = d.path("podUid").isTextual() ? pods.computeIfAbsent(d.path("podUid").asText(), k -> new PodRecord()) : null;
            if (p == null) {
                continue;
            }
            if (e.is(EventTypes.RUN_POD_SANDBOX_REQUESTED)) {
                p.behaviour = e;
                p.annotations = d.path("annotations");
            } else if (e.is(EventTypes.POD_TERMINATION_STARTED)) {
                p.started = p.started == null ? e : p.started;
                p.honoured = e;
            } else if (e.is(EventTypes.GRACE_PERIOD_SHORTENED) && !d.path("compat").isTextual()) {
                p.honoured = e;
            } else if (e.is(EventTypes.STOP_CONTAINER_REQUESTED)) {
                p.stops.putIfAbsent(container(d), e);
            } else if (DeletionFlow.isStopSignal(e)) {
                p.signals.putIfAbsent(container(d), e);
            } else if (e.is(EventTypes.CONTAINER_SIGNALLED) && "SIGKILL".equals(d.path("signal").asText())) {
                p.killedThoughExiting(e).ifPresent(out::add);
            }
        }
        return out;
    }

    /** What the log told so far of one pod (by uid) that decides whether a kill cut its graceful exit short. */
    private static final class PodRecord {
        /** The event whose annotations describe the pod's processes: RunPodSandboxRequested, else a whole pod object. */
        Event behaviour;
        JsonNode annotations;
        /** The latest whole pod object: its spec.terminationGracePeriodSeconds. */
        Event spec;
        /** The first ObjectMarkedTerminating: the grace period the deletion requested. */
        Event marked;
        /** The kubelet's PodTerminationStarted: where the grace period counts from. */
        Event started;
        /** The kubelet's latest grace period that reached the kill: PodTerminationStarted or GracePeriodShortened. */
        Event honoured;
        /** Each container's first StopContainerRequested and first stop signal. */
        final Map<String, Event> stops = new HashMap<>();
        final Map<String, Event> signals = new HashMap<>();

        /** A stored state of the pod: a whole object (one with its containers) tells its spec and annotations. */
        void object(Event e) {
            JsonNode pod = e.data().path("object");
            if (pod.path("spec").path("containers").isArray()) {
                spec = e;
                if (behaviour == null || !behaviour.is(EventTypes.RUN_POD_SANDBOX_REQUESTED)) {
                    behaviour = e;
                    annotations = pod.path("metadata").path("annotations");
                }
            }
            if (marked == null && e.is(EventTypes.OBJECT_MARKED_TERMINATING)) {
                marked = e;
            }
        }

        Optional<Finding> killedThoughExiting(Event kill) {
            String c = container(kill.data());
            Event signal = signals.get(c);
            Event stop = stops.get(c);
            // the runtime counts the exit delay, as the kill's timeout, from StopContainer (ContainerRuntime)
            Event asked = stop != null ? stop : signal;
            if (behaviour == null || asked == null) {
                return Optional.empty();
            }
            SimulatedProcess process = SimulatedProcess.of(annotations);
            Instant exit = asked.time().plus(process.exitDelay());
            Owed owed = owed();
            if (!process.exits() || !kill.time().isBefore(exit) || owed == null) {
                return Optional.empty();
            }
            Instant from = started != null ? started.time() : marked != null ? marked.time() : asked.time();
            if (exit.isAfter(from.plusSeconds(owed.seconds()))) {
                return Optional.empty();
            }
            Event honouredBy = honoured != null ? honoured : stop;
            long given = honouredBy == null ? -1 : graceOf(honouredBy);
            boolean shortened = given >= 0 && given < owed.seconds();
            Event signalled = signal != null ? signal : stop;
            List<String> ids = Stream.of(kill, signal, stop, behaviour, owed.by(), honouredBy)
                    .filter(java.util.Objects::nonNull).map(Event::id).distinct().toList();
            return Optional.of(new Finding(shortened ? Level.WARNING : Level.ERROR, "killed-though-exiting",
                    kill.subject(), "container " + kill.data().path("containerName").asText() + " got SIGKILL "
                    + Duration.between(signalled.time(), kill.time()).toMillis() + " ms after "
                    + (signal != null ? signal.data().path("signal").asText() : "StopContainer")
                    + ", though its process (" + SimulatedProcess.describe(annotations) + ") would have exited "
                    + process.exitDelay().toMillis() + " ms after "
                    + (stop != null ? "StopContainer" : "it") + ", within the " + owed.seconds()
                    + " s grace period it was owed (" + owed.why() + "); the kubelet honoured "
                    + (honouredBy == null ? "no grace period on the log" : given + " s (" + honouredBy.type()
                    + honouredWhy(honouredBy) + ")"), ids));
        }

        /** The grace period a pod was owed, the event that says so, and why that one. */
        private record Owed(long seconds, Event by, String why) {
        }

        /** What the deletion requested, unless 0 or nothing: then the pod's spec; null when the log tells neither. */
        private Owed owed() {
            JsonNode requested = marked == null ? null
                    : marked.data().path("object").path("metadata").path("deletionGracePeriodSeconds");
            if (requested != null && requested.asLong() > 0) {
                return new Owed(requested.asLong(), marked, "requested: deletionGracePeriodSeconds " + requested.asLong());
            }
            if (spec == null) {
                return null;
            }
            return new Owed(spec.data().path("object").path("spec").path("terminationGracePeriodSeconds").asLong(30), spec,
                    "spec.terminationGracePeriodSeconds; " + (marked == null ? "no delete requested one"
                    : "the delete requested 0 s: a force deletion"));
        }

        private static String honouredWhy(Event e) {
            JsonNode d = e.data();
            String why = e.is(EventTypes.GRACE_PERIOD_SHORTENED)
                    ? " from " + d.path("previousGracePeriodSeconds").asText() + " s" : "";
            return why + (d.path("compat").isTextual() ? ", compat " + d.path("compat").asText() : "");
        }

        /** The kubelet's grace period (PodTerminationStarted, GracePeriodShortened), or a StopContainer's timeout. */
        private static long graceOf(Event e) {
            return e.data().path(e.is(EventTypes.STOP_CONTAINER_REQUESTED) ? "timeoutSeconds" : "gracePeriodSeconds").asLong();
        }
    }

    /**
     * A pod that got SIGTERM while a Service's Endpoints still listed it: the endpoints controller and the kubelet
     * both act on the pod being marked for deletion, and here the kubelet won, so traffic may still have reached a
     * process already shutting down (the classic reason for a preStop sleep). The chain is followed by causation:
     * the pod's ObjectMarkedTerminating, the endpoints controller's PatchRequested it caused, the API server's
     * ObjectUpdated of that patch.
     */
    static List<Finding> inEndpointsAfterSigterm(List<Event> log) {
        EndpointsChain endpoints = new EndpointsChain();
        Map<String, Event> stopSignal = new HashMap<>();
        List<Finding> out = new ArrayList<>();
        for (Event e : log) {
            if (DeletionFlow.isStopSignal(e)) {
                stopSignal.putIfAbsent(e.subject(), e);
            }
            endpoints.accept(e).ifPresent(pod -> {
                Event signal = stopSignal.get(pod.subject());
                if (signal != null && signal.time().isAfter(pod.time()) && e.time().isAfter(signal.time())) {
                    out.add(new Finding(Level.WARNING, "in-endpoints-after-sigterm", pod.subject(),
                            signal.data().path("signal").asText() + " at " + signal.time() + ", but " + e.subject()
                                    + " still listed the pod until " + e.time() + " (+"
                                    + Duration.between(signal.time(), e.time()).toMillis()
                                    + " ms): traffic may have reached a process already shutting down",
                            List.of(pod.id(), signal.id(), e.id())));
                }
            });
        }
        return out;
    }

    /**
     * A deletion that never removed its pod, and no later removal of the same pod by another flow either. It
     * is a warning while the log may simply not have reached the end yet: less than {@link #STALL} after the
     * flow's last step or its deletion deadline.
     */
    static List<Finding> incomplete(List<Event> log) {
        if (log.isEmpty()) {
            return List.of();
        }
        Instant end = end(log);
        List<Finding> out = new ArrayList<>();
        for (DeletionFlow f : DeletionFlow.all(log)) {
            if (f.rejected() || f.removed().isPresent() || removedLater(log, f)) {
                continue;
            }
            Event last = f.events().get(f.events().size() - 1);
            Instant settled = Stream.concat(Stream.of(last.time()), f.first(EventTypes.OBJECT_MARKED_TERMINATING)
                            .map(m -> m.data().path("object").path("metadata").path("deletionTimestamp"))
                            .filter(JsonNode::isTextual).map(t -> Instant.parse(t.asText())).stream())
                    .max(Instant::compareTo).orElseThrow();
            boolean maybeRunning = end.isBefore(settled.plus(STALL));
            int next = Math.min(f.progress() + 1, DeletionFlow.GRACEFUL_ORDER.indexOf(EventTypes.OBJECT_REMOVED));
            String detail = Timeline.detail(last);
            out.add(new Finding(maybeRunning ? Level.WARNING : Level.ERROR, "deletion-incomplete", f.subject(),
                    "no ObjectRemoved; last step " + last.type() + " from " + last.source() + " at +"
                            + DeletionFlow.between(f.request(), last).toMillis() + " ms"
                            + (detail.isEmpty() ? "" : " (" + detail + ")")
                            + ", waits for " + DeletionFlow.GRACEFUL_ORDER.get(next)
                            + stuckBecause(f).map(why -> "; " + why).orElse("")
                            + (maybeRunning ? "; the log ends within " + STALL.toSeconds() + " s of it, so it may still be running" : ""),
                    List.of(f.request().id(), last.id())));
        }
        return out;
    }

    /**
     * Why a pod stays Terminating, as far as its flow tells: finalizers hold it after the kubelet's final delete;
     * no kubelet acted on it at all (its node is down, or its kubelet is); a CSI unmount has not come back.
     */
    static Optional<String> stuckBecause(DeletionFlow f) {
        JsonNode meta = f.events().stream().map(e -> e.data().path("object"))
                .filter(o -> o.path("metadata").isObject()).reduce((a, b) -> b)
                .map(o -> o.path("metadata")).orElse(Json.MAPPER.createObjectNode());
        JsonNode finalizers = meta.path("finalizers");
        if (meta.path("deletionGracePeriodSeconds").asLong(-1) == 0 && finalizers.isArray() && !finalizers.isEmpty()) {
            List<String> names = new ArrayList<>();
            finalizers.forEach(n -> names.add(n.asText()));
            return Optional.of("held by its finalizers " + names + " after the kubelet's final delete");
        }
        boolean nodeActed = f.events().stream().anyMatch(e -> e.source().startsWith("/kubelet/")
                || e.source().startsWith("/runtime/"));
        String node = f.events().stream().map(e -> e.data().path("object").path("spec").path("nodeName"))
                .filter(JsonNode::isTextual).map(JsonNode::asText).reduce((a, b) -> b).orElse(null);
        if (!nodeActed && node != null) {
            return Optional.of("no kubelet acted on it: is node " + node + " (or its kubelet) down?");
        }
        Event last = f.events().get(f.events().size() - 1);
        if (last.is(EventTypes.NODE_UNPUBLISH_VOLUME_REQUESTED)) {
            return Optional.of("its volume " + last.data().path("volumeId").asText() + " is still being unmounted");
        }
        return Optional.empty();
    }

    private static boolean removedLater(List<Event> log, DeletionFlow f) {
        int from = log.indexOf(f.request());
        return log.subList(from, log.size()).stream()
                .anyMatch(e -> e.is(EventTypes.OBJECT_REMOVED) && f.subject().equals(e.subject()));
    }

    /** CNI gave a pod an IP, the pod was removed, and CNI DEL never came for that sandbox. */
    static List<Finding> leakedIps(List<Event> log) {
        Map<String, Event> removed = new HashMap<>();
        Map<String, Event> released = new HashMap<>();
        for (Event e : log) {
            if (e.is(EventTypes.OBJECT_REMOVED) && DeletionFlow.isPod(e.subject())) {
                removed.putIfAbsent(uidOf(e), e);
            } else if (e.is(EventTypes.POD_IP_RELEASED)) {
                released.putIfAbsent(e.data().path("sandboxId").asText(), e);
            }
        }
        List<Finding> out = new ArrayList<>();
        for (Event e : log) {
            Event gone = removed.get(e.data().path("podUid").asText());
            if (e.is(EventTypes.POD_IP_ALLOCATED) && gone != null && !released.containsKey(e.data().path("sandboxId").asText())) {
                out.add(new Finding(Level.ERROR, "ip-leaked", e.subject(),
                        "IP " + e.data().path("ip").asText() + " of sandbox " + e.data().path("sandboxId").asText()
                                + " on " + e.data().path("node").asText() + " never released, though the pod was removed",
                        List.of(e.id(), gone.id())));
            }
        }
        return out;
    }

    /**
     * A CSI volume a removed pod left mounted: published into the pod and never unpublished, or staged on the node
     * and never unstaged although every pod of the node that published it since was removed. The kubelet's volume
     * manager unpublishes before the pod's final status, and unstages once no pod of the node uses the volume
     * (pkg/kubelet/volumemanager/reconciler/reconciler.go: unmountVolumes, unmountDetachDevices), so only a force
     * deletion, whose pod leaves the store at once, sees these steps after the removal: the finding is a warning
     * while the log ends less than {@link #STALL} after the pod's last event.
     */
    static List<Finding> leakedVolumes(List<Event> log) {
        Map<String, Event> removed = new HashMap<>();
        Map<String, Instant> lastOf = new HashMap<>();
        Map<String, Event> published = new LinkedHashMap<>();
        Map<String, Event> staged = new LinkedHashMap<>();
        Map<String, Map<String, Event>> usedBy = new HashMap<>();
        Map<String, Event> asked = new HashMap<>();
        for (Event e : log) {
            JsonNode d = e.data();
            lastOf.put(e.subject(), e.time());
            String mount = d.path("podUid").asText() + "/" + d.path("volumeName").asText();
            String device = d.path("node").asText() + "/" + d.path("volumeId").asText();
            switch (e.type()) {
                case EventTypes.OBJECT_REMOVED -> {
                    if (DeletionFlow.isPod(e.subject())) {
                        removed.putIfAbsent(uidOf(e), e);
                    }
                }
                case EventTypes.VOLUME_PUBLISHED -> {
                    published.put(mount, e);
                    if (staged.containsKey(device)) {
                        usedBy.get(device).put(d.path("podUid").asText(), e);
                    }
                }
                case EventTypes.NODE_UNPUBLISH_VOLUME_REQUESTED -> asked.put(mount, e);
                case EventTypes.VOLUME_UNPUBLISHED -> published.remove(mount);
                case EventTypes.VOLUME_STAGED -> {
                    staged.put(device, e);
                    usedBy.put(device, new LinkedHashMap<>());
                }
                case EventTypes.NODE_UNSTAGE_VOLUME_REQUESTED -> asked.put(device, e);
                case EventTypes.VOLUME_UNSTAGED -> staged.remove(device);
                default -> {
                }
            }
        }
        Instant end = end(log);
        List<Finding> out = new ArrayList<>();
        published.forEach((mount, e) -> {
            Event gone = removed.get(e.data().path("podUid").asText());
            if (gone != null) {
                out.add(volumeLeak(e, gone, asked.get(mount), lastOf, end, "volume " + e.data().path("volumeName").asText()
                        + " (" + e.data().path("volumeId").asText() + ") published into the pod on "
                        + e.data().path("node").asText() + " never unpublished"));
            }
        });
        staged.forEach((device, e) -> {
            List<Event> gone = usedBy.get(device).keySet().stream().map(removed::get).toList();
            if (!gone.isEmpty() && !gone.contains(null)) {
                Event last = gone.stream().max(java.util.Comparator.comparing(Event::time)).orElseThrow();
                out.add(volumeLeak(e, last, asked.get(device), lastOf, end, "volume " + e.data().path("volumeId").asText()
                        + " staged on " + e.data().path("node").asText() + " never unstaged, though no pod of the node uses it"
                        + (gone.size() > 1 ? " (" + gone.size() + " pods published it)" : "")));
            }
        });
        return out;
    }

    /** A volume left mounted for a removed pod: an error once the log went on for {@link #STALL} after the pod's last event. */
    private static Finding volumeLeak(Event mounted, Event gone, Event asked, Map<String, Instant> lastOf, Instant end,
                                      String what) {
        Instant settled = Stream.of(gone.time(), lastOf.get(gone.subject())).max(Instant::compareTo).orElseThrow();
        boolean maybeRunning = end.isBefore(settled.plus(STALL));
        List<String> ids = new ArrayList<>(List.of(mounted.id(), gone.id()));
        if (asked != null) {
            ids.add(asked.id());
        }
        return new Finding(maybeRunning ? Level.WARNING : Level.ERROR, "volume-leaked", gone.subject(), what
                + ", though the pod was removed at " + gone.time()
                + (asked == null ? "" : "; " + asked.type() + " at " + asked.time() + " got no answer")
                + (maybeRunning ? "; the log ends within " + STALL.toSeconds() + " s of the pod's last event, so it may still come" : ""),
                ids);
    }

    /**
     * An object its finalizers kept in the store longer than {@code threshold} after its final delete: the delete
     * found grace 0 (a pod's comes from its kubelet, once its containers stopped) with finalizers left, so the API
     * server only marked it (store.go markAsDeleting: deletionGracePeriodSeconds 0) and removes it with the update
     * that takes the last one away. Meanwhile a pod's name cannot be reused and a foreground owner waits. A warning
     * naming the finalizers, with the delete, the marking, each update that took finalizers away and the removal.
     */
    static List<Finding> finalizerBlocking(List<Event> log, Duration threshold) {
        Map<String, Event> deletes = new HashMap<>();
        Map<String, List<Event>> held = new LinkedHashMap<>();
        List<Finding> out = new ArrayList<>();
        for (Event e : log) {
            if (e.is(EventTypes.DELETION_REQUESTED) || e.is(EventTypes.COLLECTION_DELETION_REQUESTED)) {
                deletes.put(e.id(), e);
                continue;
            }
            if (!EventTypes.OBJECT_CHANGES.contains(e.type())) {
                continue;
            }
            JsonNode meta = e.data().path("object").path("metadata");
            String uid = meta.path("uid").asText();
            List<Event> hold = held.get(uid);
            if (hold == null && !e.is(EventTypes.OBJECT_REMOVED) && meta.path("deletionTimestamp").isTextual()
                    && meta.path("deletionGracePeriodSeconds").asLong(-1) == 0 && !finalizers(e).isEmpty()) {
                hold = new ArrayList<>();
                Optional.ofNullable(deletes.get(e.causationId())).ifPresent(hold::add);
                hold.add(e);
                held.put(uid, hold);
            } else if (hold != null && (e.is(EventTypes.OBJECT_REMOVED)
                    || !finalizers(e).equals(finalizers(hold.get(hold.size() - 1))))) {
                hold.add(e);
                if (e.is(EventTypes.OBJECT_REMOVED)) {
                    held.remove(uid);
                    blocking(hold, e.time(), threshold).ifPresent(out::add);
                }
            }
        }
        Instant end = end(log);
        held.values().forEach(hold -> blocking(hold, end, threshold).ifPresent(out::add));
        return out;
    }

    /**
     * The finding of one hold, if it lasted longer than {@code threshold} until {@code until}: its events are the
     * delete (if on the log), the marking, then each change of the finalizers, the last being the removal if any.
     */
    private static Optional<Finding> blocking(List<Event> hold, Instant until, Duration threshold) {
        Event delete = hold.get(0).is(EventTypes.DELETION_REQUESTED) || hold.get(0).is(EventTypes.COLLECTION_DELETION_REQUESTED)
                ? hold.get(0) : null;
        List<Event> states = hold.subList(delete == null ? 0 : 1, hold.size());
        Event since = states.get(0);
        Duration held = Duration.between(since.time(), until);
        if (held.compareTo(threshold) <= 0) {
            return Optional.empty();
        }
        StringJoiner changes = new StringJoiner(", ");
        for (int i = 1; i < states.size(); i++) {
            Event s = states.get(i);
            List<String> gone = new ArrayList<>(finalizers(states.get(i - 1)));
            gone.removeAll(finalizers(s));
            changes.add((gone.isEmpty() ? "finalizers changed" : String.join(", ", gone) + " taken away") + " at +"
                    + Duration.between(since.time(), s.time()).toMillis() + " ms"
                    + (s.is(EventTypes.OBJECT_REMOVED) ? " (removed)" : ""));
        }
        Event last = states.get(states.size() - 1);
        boolean removed = last.is(EventTypes.OBJECT_REMOVED);
        return Optional.of(new Finding(Level.WARNING, "finalizer-blocking", since.subject(),
                "kept by its finalizers " + finalizers(since) + " " + held.toMillis() + " ms after its final delete"
                        + (delete == null ? "" : " by " + delete.source()) + " (longer than " + threshold.toMillis() + " ms)"
                        + (changes.length() == 0 ? "" : ": " + changes)
                        + (removed ? "" : "; still held by " + finalizers(last) + " when the log ends"),
                hold.stream().map(Event::id).toList()));
    }

    /** The finalizers of the object an ObjectChange carries. */
    private static List<String> finalizers(Event change) {
        List<String> names = new ArrayList<>();
        change.data().path("object").path("metadata").path("finalizers").forEach(n -> names.add(n.asText()));
        return names;
    }

    /**
     * A side effect that must happen once: the stop signal to a container (the runtime sends it once), CNI DEL of a
     * sandbox.
     */
    static List<Finding> duplicates(List<Event> log) {
        Map<String, List<Event>> sigterms = new LinkedHashMap<>();
        Map<String, List<Event>> releases = new LinkedHashMap<>();
        for (Event e : log) {
            JsonNode d = e.data();
            if (DeletionFlow.isStopSignal(e)) {
                sigterms.computeIfAbsent(d.path("podUid").asText() + "/" + container(d), k -> new ArrayList<>()).add(e);
            } else if (e.is(EventTypes.POD_IP_RELEASED)) {
                releases.computeIfAbsent(d.path("sandboxId").asText(), k -> new ArrayList<>()).add(e);
            }
        }
        List<Finding> out = new ArrayList<>();
        sigterms.values().stream().filter(l -> l.size() > 1).forEach(l -> out.add(new Finding(Level.ERROR,
                "duplicate-side-effect", l.get(0).subject(), l.size() + " stop signals ("
                + l.get(0).data().path("signal").asText() + ") to container "
                + l.get(0).data().path("containerName").asText(), l.stream().map(Event::id).toList())));
        releases.values().stream().filter(l -> l.size() > 1).forEach(l -> out.add(new Finding(Level.ERROR,
                "duplicate-side-effect", l.get(0).subject(), l.size() + " PodIPReleased (CNI DEL) for sandbox "
                + l.get(0).data().path("sandboxId").asText(), l.stream().map(Event::id).toList())));
        return out;
    }

    public static ArrayNode json(List<Finding> findings) {
        ArrayNode a = Json.MAPPER.createArrayNode();
        findings.forEach(f -> a.add(Json.tree(f)));
        return a;
    }

    /** The time the log reaches: its latest event's. */
    private static Instant end(List<Event> log) {
        return log.stream().map(Event::time).max(Instant::compareTo).orElse(Instant.EPOCH);
    }

    /** A container's identity: its id, or its name where an event lacks the id. */
    private static String container(JsonNode d) {
        return d.path("containerId").isTextual() ? d.path("containerId").asText() : d.path("containerName").asText();
    }

    private static String uidOf(Event removed) {
        return removed.data().path("object").path("metadata").path("uid").asText();
    }

    private static Optional<Event> exitAfter(List<Event> log, int from, Event started) {
        String uid = started.data().path("podUid").asText();
        String c = container(started.data());
        return log.subList(from, log.size()).stream().filter(e -> e.is(EventTypes.CONTAINER_EXITED)
                && uid.equals(e.data().path("podUid").asText()) && c.equals(container(e.data()))).findFirst();
    }
}
