package io.podfall.cli.analysis;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One flow as a Mermaid {@code sequenceDiagram}, with the participants of the usual deletion diagram (User/kubectl, API
 * server, etcd, controller manager, kubelet, runtime, CNI, CSI). Every event is one arrow: a request
 * ({@code *Requested}, solid) from the component that sent it to the one that serves it; a fact (dashed) from the
 * component that recorded it to the one that acts on it: the API server's to the store (the log is its etcd), the
 * runtime's, CNI's and CSI's to the kubelet that watches them, the kubelet's to itself. A rejection goes back to
 * whoever asked. Each label starts with the event's offset from the request. In a cascade (a flow that deletes more
 * than one object: a Deployment, its ReplicaSet, their pods) the arrows are grouped per object, each group a shaded
 * {@code rect} headed by a note naming the object ({@link #blocks}).
 */
public final class SequenceDiagram {
    static final Map<String, String> PARTICIPANTS = new LinkedHashMap<>();

    static {
        PARTICIPANTS.put("User", "User/kubectl");
        PARTICIPANTS.put("API", "API server");
        PARTICIPANTS.put("Etcd", "etcd (the log)");
        PARTICIPANTS.put("CM", "Controller manager");
        PARTICIPANTS.put("Kubelet", "Kubelet");
        PARTICIPANTS.put("Runtime", "Runtime (CRI)");
        PARTICIPANTS.put("CNI", "CNI");
        PARTICIPANTS.put("CSI", "CSI");
    }

    private SequenceDiagram() {}

    public static String of(List<Event> log, String correlationId) {
        List<Event> flow = log.stream()
                .filter(e -> e.correlationId().equals(correlationId))
                .toList();
        Timeline timeline = Timeline.of(log, correlationId);
        Map<String, Timeline.Step> steps = new HashMap<>();
        for (int i = 0; i < flow.size(); i++) {
            steps.put(flow.get(i).id(), timeline.steps().get(i));
        }
        StringBuilder out = new StringBuilder("sequenceDiagram\n");
        flow.stream()
                .filter(e -> e.id().equals(correlationId))
                .findFirst()
                .ifPresent(root -> out.append("    title ")
                        .append(text(root.type() + " " + root.subject()))
                        .append('\n'));
        PARTICIPANTS.forEach((id, name) -> out.append("    participant ")
                .append(id)
                .append(" as ")
                .append(name)
                .append('\n'));
        List<Block> blocks = blocks(flow);
        if (blocks.stream().map(Block::object).distinct().count() < 2) {
            flow.forEach(e -> arrow(out, e, steps.get(e.id()), log, ""));
            return out.toString();
        }
        List<String> objects = blocks.stream().map(Block::object).distinct().toList();
        Set<String> shown = new HashSet<>();
        for (Block b : blocks) {
            out.append("    rect ")
                    .append(SHADES.get(objects.indexOf(b.object()) % SHADES.size()))
                    .append('\n');
            out.append("    Note over User,CSI: ")
                    .append(text(b.object() + (shown.add(b.object()) ? "" : " (continued)")))
                    .append('\n');
            // a step about another object (an Endpoints patch in a pod's block) names it
            b.events()
                    .forEach(e -> arrow(
                            out,
                            e,
                            steps.get(e.id()),
                            log,
                            e.subject().equals(b.object())
                                    ? ""
                                    : " on " + e.subject().replaceFirst("^namespaces/[^/]+/", "")));
            out.append("    end\n");
        }
        return out.toString();
    }

    /** Light backgrounds that tell the objects of a cascade apart; an object keeps its shade in all its blocks. */
    private static final List<String> SHADES = List.of(
            "rgb(232, 242, 255)",
            "rgb(234, 250, 236)",
            "rgb(255, 245, 228)",
            "rgb(243, 236, 255)",
            "rgb(255, 236, 240)",
            "rgb(236, 248, 250)");

    /** A run of consecutive arrows about one object. */
    record Block(String object, List<Event> events) {}

    /**
     * The flow's events grouped per object, in causal order: the objects are those the flow deletes (a delete, a
     * marking or a removal of them is on it); any other event belongs to the object of the event that caused it (an
     * Endpoints patch to the pod whose marking caused it, a replacement pod to the pod it replaces). A block takes its
     * object's next events as long as what caused each is already shown; then the block of the earliest event not yet
     * shown begins, whose cause is shown since the log is in causal order. So a pod's whole deletion reads as one
     * block, and an owner the foreground cascade holds comes back, continued, after the dependents whose removal let it
     * go.
     */
    static List<Block> blocks(List<Event> flow) {
        Set<String> deleted = new HashSet<>();
        flow.stream().filter(e -> DELETION_STEPS.contains(e.type())).forEach(e -> deleted.add(e.subject()));
        Map<String, String> objectOf = new HashMap<>();
        Map<String, Integer> position = new HashMap<>();
        Map<String, Deque<Event>> pending = new LinkedHashMap<>();
        for (Event e : flow) {
            position.put(e.id(), position.size());
            String object = deleted.contains(e.subject())
                    ? e.subject()
                    : objectOf.getOrDefault(e.causationId() == null ? "" : e.causationId(), e.subject());
            objectOf.put(e.id(), object);
            pending.computeIfAbsent(object, o -> new ArrayDeque<>()).add(e);
        }
        Set<String> shown = new HashSet<>();
        List<Block> blocks = new ArrayList<>();
        Block current = null;
        for (int left = flow.size(); left > 0; left--) {
            Deque<Event> own = current == null ? null : pending.get(current.object());
            Event next = own == null || own.isEmpty() ? null : own.peek();
            if (next == null || (objectOf.containsKey(next.causationId()) && !shown.contains(next.causationId()))) {
                Event earliest = pending.values().stream()
                        .filter(q -> !q.isEmpty())
                        .map(Deque::peek)
                        .min(java.util.Comparator.comparing(q -> position.get(q.id())))
                        .orElseThrow();
                current = new Block(objectOf.get(earliest.id()), new ArrayList<>());
                blocks.add(current);
                next = earliest;
            }
            pending.get(current.object()).poll();
            current.events().add(next);
            shown.add(next.id());
        }
        return blocks;
    }

    /** The steps that make a subject an object the flow deletes. */
    private static final Set<String> DELETION_STEPS = Set.of(
            EventTypes.DELETION_REQUESTED,
            EventTypes.EVICTION_REQUESTED,
            EventTypes.OBJECT_MARKED_TERMINATING,
            EventTypes.OBJECT_REMOVED);

    /** One event's arrow: from the component that sent it to the one that acts on it, labelled with its step. */
    private static void arrow(StringBuilder out, Event e, Timeline.Step step, List<Event> log, String on) {
        String label = "+" + step.offsetMillis() + " ms " + shortType(e.type()) + on
                + (step.detail().isEmpty() ? "" : " " + step.detail());
        out.append("    ")
                .append(sender(e))
                .append(isRequest(e) ? "->>" : "-->>")
                .append(receiver(e, log))
                .append(": ")
                .append(text(label))
                .append('\n');
    }

    static boolean isRequest(Event e) {
        return e.type().endsWith("Requested");
    }

    /** Who sent it. The API server appends a client's HTTP request itself, so those come from the user. */
    static String sender(Event e) {
        String s = e.source();
        if (s.startsWith("/apiserver")) {
            return isRequest(e) ? "User" : "API";
        }
        if (s.startsWith("/controller")) {
            return "CM";
        }
        if (s.startsWith("/kubelet")) {
            return "Kubelet";
        }
        if (s.startsWith("/runtime")) {
            return e.is(EventTypes.POD_IP_ALLOCATED) || e.is(EventTypes.POD_IP_RELEASED) ? "CNI" : "Runtime";
        }
        if (s.startsWith("/csi")) {
            return "CSI";
        }
        return "User";
    }

    static String receiver(Event e, List<Event> log) {
        if (isRequest(e)) {
            return owner(e.type());
        }
        if (e.is(EventTypes.REQUEST_REJECTED)) {
            return log.stream()
                    .filter(c -> c.id().equals(e.causationId()))
                    .findFirst()
                    .map(SequenceDiagram::sender)
                    .orElse("User");
        }
        return switch (owner(e.type())) {
            case "API" -> "Etcd";
            case "Runtime", "CSI" -> "Kubelet";
            default -> sender(e);
        };
    }

    /** The component whose vocabulary the type is in: it serves that type's requests. */
    static String owner(String type) {
        if (type.startsWith("apiserver.")) {
            return "API";
        }
        if (type.startsWith("kubelet.")) {
            return "Kubelet";
        }
        if (type.startsWith("runtime.")) {
            return "Runtime";
        }
        if (type.startsWith("csi.")) {
            return "CSI";
        }
        return "CM";
    }

    private static String shortType(String type) {
        return type.substring(type.indexOf('.') + 1);
    }

    /** Mermaid ends a statement at ';' and reads '#' as the start of an entity. */
    private static String text(String s) {
        return s.replace(";", ",").replace("#", "#35;");
    }
}
