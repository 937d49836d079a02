package io.podfall.cli;

import io.podfall.cli.analysis.DeletionFlow;
import io.podfall.cli.analysis.Timeline;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.replay.Divergences;
import io.podfall.replay.Replay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A what-if replay as text: for each pod whose deletion went otherwise, the recorded and the replayed timeline side by
 * side, in {@link Timeline}'s words, the steps that differ marked, under a line that says what changed (when the kill
 * came, when the pod was removed).
 *
 * <p>A pod's deletion is every {@link DeletionFlow} of it: a grace period shortened by a second DELETE is a flow of its
 * own, and which of the two flows the kill belongs to is just what a compatibility switch changes; read per flow, the
 * kill would seem to vanish from one and appear in the other. So the pod's flows are read as one timeline, each step at
 * its offset from the pod's first deletion request. A divergence outside any pod's deletion is shown with its flow's
 * timeline.
 *
 * <p>Rows are paired by component, type and subject (a longest common subsequence, as a diff pairs lines); a row is
 * marked {@code -} when only the recording has the step, {@code +} when only the replay has it, {@code ~} when both
 * have it but at offsets further apart than the tolerance, with other details, or as a divergence.
 */
final class SideBySide {
    private static final String SEPARATOR = " | ";

    private SideBySide() {}

    static String text(Replay replay, Duration tolerance) {
        Side recorded = new Side(replay.recorded());
        Side replayed = new Side(replay.replayed());
        Map<String, String> units = new LinkedHashMap<>();
        for (Divergences.Divergence d : replay.divergences()) {
            if (d.recorded() != null) {
                recorded.divergent.add(d.recorded().id());
            }
            if (d.replayed() != null) {
                replayed.divergent.add(d.replayed().id());
            }
            String pod = d.recorded() != null
                    ? recorded.podOf.get(d.recorded().id())
                    : replayed.podOf.get(d.replayed().id());
            units.putIfAbsent(pod != null ? "pod " + pod : "flow " + d.flow(), pod != null ? pod : d.flow());
        }
        StringBuilder out = new StringBuilder();
        units.forEach((title, of) -> {
            boolean isPod = title.startsWith("pod ");
            List<Row> left = isPod ? recorded.deletionOf(of) : recorded.flow(of);
            List<Row> right = isPod ? replayed.deletionOf(of) : replayed.flow(of);
            out.append(new Table(left, right, tolerance, !isPod).render(title));
        });
        return out.toString();
    }

    /** One step of a timeline, with the event it shows, and whether a divergence names that event. */
    private record Row(Event event, Timeline.Step step, boolean divergent) {
        String pairing() {
            return step.component() + " " + step.type() + " " + step.subject();
        }
    }

    /** One log, recorded or replayed, read by pod deletion. */
    private static final class Side {
        private final List<Event> log;
        private final List<DeletionFlow> deletions;
        /** The pod whose deletion an event belongs to, by event id. */
        final Map<String, String> podOf = new HashMap<>();
        /** The events divergences name, by id. */
        final Set<String> divergent = new HashSet<>();

        Side(List<Event> log) {
            this.log = log;
            deletions = DeletionFlow.all(log);
            deletions.forEach(f -> f.events().forEach(e -> podOf.putIfAbsent(e.id(), f.subject())));
        }

        /**
         * Every deletion flow of {@code pod} as one timeline from its first request: Timeline reads a flow by its
         * correlation id, so the events of the later deletions are given the first's.
         */
        List<Row> deletionOf(String pod) {
            List<DeletionFlow> flows =
                    deletions.stream().filter(f -> f.subject().equals(pod)).toList();
            if (flows.isEmpty()) {
                return List.of();
            }
            String first = flows.get(0).request().id();
            Set<String> ids = new HashSet<>();
            flows.forEach(f -> f.events().forEach(e -> ids.add(e.id())));
            return rows(
                    log.stream()
                            .filter(e -> ids.contains(e.id()))
                            .map(e -> e.inFlow(first))
                            .toList(),
                    first);
        }

        List<Row> flow(String correlationId) {
            return rows(
                    log.stream()
                            .filter(e -> e.correlationId().equals(correlationId))
                            .toList(),
                    correlationId);
        }

        /** The events of one correlation with Timeline's step for each: Timeline keeps them in their order. */
        private List<Row> rows(List<Event> flow, String correlationId) {
            List<Timeline.Step> steps = Timeline.of(flow, correlationId).steps();
            List<Row> rows = new ArrayList<>();
            for (int i = 0; i < flow.size(); i++) {
                rows.add(new Row(
                        flow.get(i),
                        steps.get(i),
                        divergent.contains(flow.get(i).id())));
            }
            return rows;
        }
    }

    /** Two timelines paired row by row. */
    private record Table(List<Row> left, List<Row> right, Duration tolerance, boolean subjects) {
        String render(String title) {
            List<Row[]> pairs = new ArrayList<>();
            int i = 0;
            int j = 0;
            for (int[] m : Divergences.align(left, right, Row::pairing)) {
                while (i < m[0]) {
                    pairs.add(new Row[] {left.get(i++), null});
                }
                while (j < m[1]) {
                    pairs.add(new Row[] {null, right.get(j++)});
                }
                pairs.add(new Row[] {left.get(i++), right.get(j++)});
            }
            while (i < left.size()) {
                pairs.add(new Row[] {left.get(i++), null});
            }
            while (j < right.size()) {
                pairs.add(new Row[] {null, right.get(j++)});
            }
            Columns columns = new Columns();
            pairs.forEach(p -> {
                columns.fit(p[0]);
                columns.fit(p[1]);
            });
            int width = "recorded".length();
            for (Row[] p : pairs) {
                width = Math.max(width, columns.cell(p[0]).length());
            }
            StringBuilder out =
                    new StringBuilder(title).append(": ").append(summary(pairs)).append('\n');
            out.append("    ").append(pad("recorded", width)).append(SEPARATOR).append("replayed\n");
            for (Row[] p : pairs) {
                out.append("  ")
                        .append(mark(p))
                        .append(' ')
                        .append(pad(columns.cell(p[0]), width))
                        .append(SEPARATOR)
                        .append(columns.cell(p[1]))
                        .append('\n');
            }
            return out.toString();
        }

        private char mark(Row[] p) {
            if (p[1] == null) {
                return '-';
            }
            if (p[0] == null) {
                return '+';
            }
            boolean differs = Math.abs(p[0].step().offsetMillis() - p[1].step().offsetMillis()) > tolerance.toMillis()
                    || !p[0].step().detail().equals(p[1].step().detail())
                    || p[0].divergent()
                    || p[1].divergent();
            return differs ? '~' : ' ';
        }

        /**
         * When the kill came and when the pod was removed, on each side, where they differ; else how many steps differ.
         */
        private String summary(List<Row[]> pairs) {
            List<String> said = new ArrayList<>();
            milestone(
                            "SIGKILL",
                            r -> r.event().is(EventTypes.CONTAINER_SIGNALLED)
                                    && "SIGKILL"
                                            .equals(r.event()
                                                    .data()
                                                    .path("signal")
                                                    .asText()))
                    .ifPresent(said::add);
            milestone("removed", r -> r.event().is(EventTypes.OBJECT_REMOVED)).ifPresent(said::add);
            if (said.isEmpty()) {
                long differ = pairs.stream().filter(p -> mark(p) != ' ').count();
                said.add(differ + " of " + pairs.size() + " steps differ");
            }
            return String.join("; ", said);
        }

        private Optional<String> milestone(String name, Predicate<Row> is) {
            Optional<Long> r =
                    left.stream().filter(is).findFirst().map(x -> x.step().offsetMillis());
            Optional<Long> p =
                    right.stream().filter(is).findFirst().map(x -> x.step().offsetMillis());
            if (r.isEmpty() && p.isEmpty()
                    || r.isPresent() && p.isPresent() && Math.abs(r.get() - p.get()) <= tolerance.toMillis()) {
                return Optional.empty();
            }
            if (r.isPresent() && p.isPresent()) {
                return Optional.of(name + " at " + seconds(r.get()) + " recorded, " + seconds(p.get()) + " replayed");
            }
            return Optional.of(
                    r.isPresent()
                            ? name + " at " + seconds(r.get()) + " recorded, never replayed"
                            : name + " never recorded, at " + seconds(p.get()) + " replayed");
        }

        private static String seconds(long millis) {
            return String.format(Locale.ROOT, "%+.1f s", millis / 1000.0);
        }

        private static String pad(String s, int width) {
            return s + " ".repeat(width - s.length());
        }

        /** The widths of the component and type columns over both sides. */
        private final class Columns {
            private int component;
            private int type;
            private int subject;

            void fit(Row r) {
                if (r != null) {
                    component = Math.max(component, r.step().component().length());
                    type = Math.max(type, r.step().type().length());
                    subject = Math.max(
                            subject,
                            r.step().subject() == null ? 0 : r.step().subject().length());
                }
            }

            String cell(Row r) {
                if (r == null) {
                    return "";
                }
                Timeline.Step s = r.step();
                return String.format(
                                Locale.ROOT,
                                "%+7d ms  %-" + component + "s  %-" + type + "s  %s%s",
                                s.offsetMillis(),
                                s.component(),
                                s.type(),
                                subjects ? String.format("%-" + subject + "s  ", s.subject()) : "",
                                s.detail())
                        .stripTrailing();
            }
        }
    }
}
