package io.podfall.cli.analysis;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * One flow read back from the log: every event of a correlation id, in log order, with its offset in simulated time
 * from the request that started the flow, how long after its object's previous phase boundary it came and which
 * boundary it is ({@link Phases}), and what decided each step.
 */
public record Timeline(String correlationId, List<Step> steps) {

    /**
     * One event of the flow: when (ms after the request), how long after the previous phase boundary of its object
     * (null when nothing came before it), the boundary it is ("" for none), who, what, to which object, and the
     * deciding facts.
     */
    public record Step(
            long offsetMillis,
            Long sincePhaseMillis,
            String phase,
            String component,
            String type,
            String subject,
            String detail) {
        static Step of(Event e, Instant start, Phases.Mark mark) {
            return new Step(
                    Duration.between(start, e.time()).toMillis(),
                    mark.sinceMillis(),
                    mark.boundary(),
                    Timeline.component(e.source()),
                    e.type(),
                    e.subject(),
                    Timeline.detail(e));
        }

        Step withDetail(String other) {
            return new Step(offsetMillis, sincePhaseMillis, phase, component, type, subject, other);
        }
    }

    public static Timeline of(List<Event> log, String correlationId) {
        List<Event> flow = log.stream()
                .filter(e -> e.correlationId().equals(correlationId))
                .toList();
        if (flow.isEmpty()) {
            return new Timeline(correlationId, List.of());
        }
        var start = flow.stream()
                .filter(e -> e.id().equals(correlationId))
                .findFirst()
                .orElse(flow.get(0))
                .time();
        Phases phases = new Phases();
        TrafficSteps traffic = TrafficSteps.of(log, flow, start);
        List<Step> steps = new ArrayList<>();
        for (Event e : flow) {
            Step s = Step.of(e, start, phases.accept(e));
            String removal = traffic.removals.get(e.id());
            steps.add(removal == null ? s : s.withDetail(removal));
        }
        List<Step> more = new ArrayList<>(traffic.failures);
        traffic.removalsOutside.forEach(
                e -> more.add(Step.of(e, start, new Phases.Mark("", null)).withDetail(traffic.removals.get(e.id()))));
        return new Timeline(correlationId, merged(steps, more));
    }

    /**
     * The flow's steps in log order with {@code more} (steps of other flows and counts about its pods) each put before
     * the first step that came later.
     */
    private static List<Step> merged(List<Step> flow, List<Step> more) {
        List<Step> pending = new ArrayList<>(more);
        pending.sort(Comparator.comparingLong(Step::offsetMillis));
        List<Step> out = new ArrayList<>();
        int next = 0;
        for (Step s : flow) {
            while (next < pending.size() && pending.get(next).offsetMillis() < s.offsetMillis()) {
                out.add(pending.get(next++));
            }
            out.add(s);
        }
        out.addAll(pending.subList(next, pending.size()));
        return List.copyOf(out);
    }

    /**
     * The correlation id of the latest deletion: of any a client asked for, or of one object's subject, asked by a
     * client or by a controller (a pod deleted in its Deployment's cascade: the flow is the cascade's).
     */
    public static Optional<String> latestDeletion(List<Event> log, String subject) {
        return log.stream()
                .filter(e -> isDeletion(e, subject))
                .max(Comparator.comparing(Event::time))
                .map(Event::correlationId);
    }

    /**
     * A delete (or an eviction, a delete by the Eviction API) that starts a deletion: of {@code subject} by anyone but
     * a kubelet (whose delete ends one), or, with no subject, one a client asked for (the API server appends it).
     */
    static boolean isDeletion(Event e, String subject) {
        return (e.is(EventTypes.DELETION_REQUESTED) || e.is(EventTypes.EVICTION_REQUESTED))
                && (subject == null
                        ? e.source().equals("/apiserver")
                        : subject.equals(e.subject()) && !e.source().startsWith("/kubelet/"));
    }

    public List<String> types() {
        return steps.stream().map(Step::type).toList();
    }

    /**
     * A table, one step a line, columns as wide as their widest cell: the offset from the request, the time since the
     * object's previous phase boundary, the boundary the step is, component, type, subject, what decided it.
     */
    public String render() {
        Columns columns = new Columns(1, 1, 1, 1);
        steps.forEach(columns::fit);
        StringBuilder out = new StringBuilder();
        out.append(header(correlationId)).append('\n');
        steps.forEach(s -> out.append(columns.line(s)).append('\n'));
        return out.toString();
    }

    /** The line that names a flow above its steps. */
    static String header(String correlationId) {
        return "flow " + correlationId;
    }

    /** The widths of the phase, component, type and subject columns; they grow to fit the cells they are given. */
    static final class Columns {
        private int phase;
        private int component;
        private int type;
        private int subject;

        Columns(int phase, int component, int type, int subject) {
            this.phase = phase;
            this.component = component;
            this.type = type;
            this.subject = subject;
        }

        void fit(Step s) {
            phase = Math.max(phase, s.phase().length());
            component = Math.max(component, s.component().length());
            type = Math.max(type, s.type().length());
            subject = Math.max(subject, s.subject() == null ? 0 : s.subject().length());
        }

        String line(Step s) {
            return String.format(
                            "%+8d ms  %11s  %-" + phase + "s  %-" + component + "s  %-" + type + "s  %-" + subject
                                    + "s  %s",
                            s.offsetMillis(),
                            s.sincePhaseMillis() == null ? "" : String.format("%+d ms", s.sincePhaseMillis()),
                            s.phase(),
                            s.component(),
                            s.type(),
                            s.subject() == null ? "" : s.subject(),
                            s.detail())
                    .stripTrailing();
        }
    }

    private static String component(String source) {
        return source.startsWith("/") ? source.substring(1) : source;
    }

    /** The facts that decided a step, as far as its data carries them. */
    static String detail(Event e) {
        JsonNode d = e.data();
        StringJoiner j = new StringJoiner(" ");
        JsonNode options = d.path("options");
        add(j, "grace=", options.path("gracePeriodSeconds"), "s");
        add(j, "uid-precondition=", options.path("preconditions").path("uid"), "");
        JsonNode meta = d.path("object").path("metadata");
        if (e.is(EventTypes.OBJECT_MARKED_TERMINATING)) {
            add(j, "deletionGracePeriodSeconds=", meta.path("deletionGracePeriodSeconds"), "");
            add(j, "deletionTimestamp=", meta.path("deletionTimestamp"), "");
        }
        add(j, "node=", d.path("nodeName"), "");
        if (e.is(EventTypes.PROXY_RULES_SYNCED)) {
            add(j, "node=", d.path("node"), "");
            StringJoiner pods = new StringJoiner(",");
            d.path("endpoints").forEach(ep -> pods.add(ep.path("pod").asText()));
            j.add("endpoints=" + (pods.length() == 0 ? "none" : pods.toString()));
        }
        add(j, "phase=", d.path("status").path("phase"), "");
        add(j, "phase=", d.path("object").path("status").path("phase"), "");
        add(j, "previousGrace=", d.path("previousGracePeriodSeconds"), "s");
        add(j, "grace=", d.path("gracePeriodSeconds"), "s");
        add(j, "hook=", d.path("handler"), "");
        add(j, "hookDuration=", d.path("durationSeconds"), "s");
        if (d.path("error").isTextual()) {
            j.add("error=\"" + d.path("error").asText() + "\"");
        }
        add(j, "compat=", d.path("compat"), "");
        add(j, "container=", d.path("containerName"), "");
        add(j, "timeout=", d.path("timeoutSeconds"), "s");
        add(j, "signal=", d.path("signal"), "");
        add(j, "exitCode=", d.path("exitCode"), "");
        add(j, "reason=", d.path("reason"), "");
        add(j, "ip=", d.path("ip"), "");
        add(j, "volume=", d.path("volumeId"), "");
        add(j, "status=", d.path("status").path("reason"), "");
        return j.toString();
    }

    private static void add(StringJoiner j, String label, JsonNode value, String unit) {
        if (value.isValueNode() && !value.isNull()) {
            j.add(label + value.asText() + unit);
        }
    }
}
