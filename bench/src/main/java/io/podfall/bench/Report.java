package io.podfall.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.model.Json;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What one workload measured: tables (printed as Markdown, so they paste into bench/README.md), the targets of issue #9
 * with whether each was met, and the correctness checks made while measuring. A workload whose checks fail is wrong
 * however fast it was: {@link #correct()} is false and the command exits 1. A missed target is reported, not failed: it
 * depends on the machine.
 */
final class Report {
    record Table(String title, List<String> columns, List<List<String>> rows) {
        Table(String title, String... columns) {
            this(title, List.of(columns), new ArrayList<>());
        }

        Table row(Object... cells) {
            rows.add(Arrays.stream(cells).map(String::valueOf).toList());
            return this;
        }
    }

    record Check(String what, boolean ok, String detail) {}

    private final String workload;
    private final String summary;
    private final Machine machine;
    private final List<Table> tables = new ArrayList<>();
    private final Table targets = new Table("targets", "target", "measured", "met");
    private final List<Check> checks = new ArrayList<>();
    private final ObjectNode figures = Json.MAPPER.createObjectNode();
    private final ArrayNode checksJson = Json.MAPPER.createArrayNode();
    private final ArrayNode targetsJson = Json.MAPPER.createArrayNode();

    /** @param machine the machine as the workload began; the load at its end is read when the report is printed */
    Report(String workload, String summary, Machine machine) {
        this.workload = workload;
        this.summary = summary;
        this.machine = machine;
    }

    Table table(String title, String... columns) {
        Table t = new Table(title, columns);
        tables.add(t);
        return t;
    }

    /** The figures as numbers, for --json. */
    ObjectNode figures() {
        return figures;
    }

    void target(String goal, String measured, boolean met) {
        targets.row(goal, measured, met ? "yes" : "**no**");
        targetsJson.addObject().put("target", goal).put("measured", measured).put("met", met);
    }

    void check(String what, boolean ok, String detail) {
        checks.add(new Check(what, ok, detail));
        checksJson.addObject().put("check", what).put("ok", ok).put("detail", detail);
    }

    boolean correct() {
        return checks.stream().allMatch(Check::ok);
    }

    String text() {
        StringBuilder out = new StringBuilder("## ")
                .append(workload)
                .append("\n\n")
                .append(summary)
                .append("\n\n")
                .append("Machine: ")
                .append(machine.line())
                .append("\n");
        List<Table> all = new ArrayList<>(tables);
        if (!targets.rows().isEmpty()) {
            all.add(targets);
        }
        for (Table t : all) {
            out.append("\n").append(t.title()).append(":\n\n").append(markdown(t));
        }
        if (!checks.isEmpty()) {
            out.append("\ncorrectness:\n");
            for (Check c : checks) {
                out.append(c.ok() ? "  ok     " : "  FAILED ")
                        .append(c.what())
                        .append(": ")
                        .append(c.detail())
                        .append("\n");
            }
        }
        return out.toString();
    }

    ObjectNode json() {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("workload", workload).put("summary", summary).put("correct", correct());
        o.set("machine", machine.json());
        o.set("figures", figures);
        o.set("targets", targetsJson);
        o.set("checks", checksJson);
        return o;
    }

    /** A Markdown table, each column as wide as its widest cell. */
    static String markdown(Table t) {
        int[] width = new int[t.columns().size()];
        List<List<String>> lines = new ArrayList<>();
        lines.add(t.columns());
        lines.addAll(t.rows());
        for (List<String> line : lines) {
            for (int i = 0; i < width.length; i++) {
                width[i] = Math.max(width[i], i < line.size() ? line.get(i).length() : 0);
            }
        }
        StringBuilder out = new StringBuilder();
        for (int l = 0; l < lines.size(); l++) {
            out.append(row(lines.get(l), width));
            if (l == 0) {
                List<String> rule = Arrays.stream(width)
                        .mapToObj(w -> "-".repeat(Math.max(w, 3)))
                        .toList();
                out.append(row(rule, width));
            }
        }
        return out.toString();
    }

    private static String row(List<String> cells, int[] width) {
        StringBuilder out = new StringBuilder("|");
        for (int i = 0; i < width.length; i++) {
            String cell = i < cells.size() ? cells.get(i) : "";
            out.append(' ')
                    .append(cell)
                    .append(" ".repeat(Math.max(width[i], 3) - cell.length()))
                    .append(" |");
        }
        return out.append('\n').toString();
    }

    static String ms(double millis) {
        return String.format(Locale.ROOT, "%.1f ms", millis);
    }

    static String num(double n) {
        return String.format(Locale.ROOT, n >= 100 ? "%,.0f" : "%,.1f", n);
    }

    static String mb(long bytes) {
        return String.format(Locale.ROOT, "%,.0f MB", bytes / 1048576.0);
    }

    static String pct(double fraction) {
        return String.format(Locale.ROOT, "%.1f %%", 100 * fraction);
    }
}
