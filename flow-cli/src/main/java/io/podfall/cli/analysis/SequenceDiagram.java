package io.podfall.cli.analysis;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;

import java.util.List;
import java.util.Map;

/**
 * One flow as a Mermaid {@code sequenceDiagram}, with the participants of the usual deletion diagram
 * (User/kubectl, API server, etcd, controller manager, kubelet, runtime, CNI, CSI). Every event is one arrow:
 * a request ({@code *Requested}, solid) from the component that sent it to the one that serves it; a fact
 * (dashed) from the component that recorded it to the one that acts on it: the API server's to the store
 * (the log is its etcd), the runtime's, CNI's and CSI's to the kubelet that watches them, the kubelet's to itself.
 * A rejection goes back to whoever asked. Each label starts with the event's offset from the request.
 */
public final class SequenceDiagram {
    static final Map<String, String> PARTICIPANTS = new java.util.LinkedHashMap<>();

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

    private SequenceDiagram() {
    }

    public static String of(List<Event> log, String correlationId) {
        List<Event> flow = log.stream().filter(e -> e.correlationId().equals(correlationId)).toList();
        Timeline timeline = Timeline.of(log, correlationId);
        StringBuilder out = new StringBuilder("sequenceDiagram\n");
        flow.stream().filter(e -> e.id().equals(correlationId)).findFirst().ifPresent(root ->
                out.append("    title ").append(text(root.type() + " " + root.subject())).append('\n'));
        PARTICIPANTS.forEach((id, name) -> out.append("    participant ").append(id).append(" as ").append(name).append('\n'));
        for (int i = 0; i < flow.size(); i++) {
            Event e = flow.get(i);
            Timeline.Step step = timeline.steps().get(i);
            String from = sender(e);
            String to = receiver(e, log);
            String label = "+" + step.offsetMillis() + " ms " + shortType(e.type())
                    + (step.detail().isEmpty() ? "" : " " + step.detail());
            out.append("    ").append(from).append(isRequest(e) ? "->>" : "-->>").append(to).append(": ")
                    .append(text(label)).append('\n');
        }
        return out.toString();
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
            return log.stream().filter(c -> c.id().equals(e.causationId())).findFirst()
                    .map(SequenceDiagram::sender).orElse("User");
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
