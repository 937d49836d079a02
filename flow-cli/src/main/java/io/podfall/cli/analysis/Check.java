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
import java.util.stream.Stream;

/**
 * The invariants of pod deletion, checked over a whole log. Each finding names the events that prove it, so it
 * can be looked up on the topic ({@code kcat}) or in an export.
 */
public final class Check {
    /** How long after a flow's last step (or its deadline) a log must go on before a stalled flow is an error. */
    static final Duration STALL = Duration.ofSeconds(30);

    public enum Level { ERROR, WARNING }

    public record Finding(Level level, String rule, String subject, String message, List<String> eventIds) {
        public String render() {
            return level + " " + rule + " " + subject + ": " + message + " [events " + String.join(", ", eventIds) + "]";
        }
    }

    private Check() {
    }

    public static List<Finding> of(List<Event> log) {
        List<Finding> findings = new ArrayList<>();
        findings.addAll(removedWhileRunning(log));
        findings.addAll(killedBeforeGrace(log));
        findings.addAll(inEndpointsAfterSigterm(log));
        findings.addAll(incomplete(log));
        findings.addAll(leakedIps(log));
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
        Instant end = log.stream().map(Event::time).max(Instant::compareTo).orElseThrow();
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
