package io.podfall.bench;

import io.podfall.cli.analysis.Check;
import io.podfall.model.event.Event;
import java.util.List;
import java.util.stream.Collectors;

/** {@code podfall check}'s invariants over the recorded log: a removed pod's IP released, nothing killed early, … */
final class LogCheck {
    private LogCheck() {}

    static void add(Report report, List<Event> log) {
        List<Check.Finding> findings = Check.of(log);
        List<Check.Finding> errors =
                findings.stream().filter(f -> f.level() == Check.Level.ERROR).toList();
        long warnings = findings.size() - errors.size();
        report.check(
                "podfall check over the log (" + log.size() + " events)",
                errors.isEmpty(),
                errors.isEmpty()
                        ? "no error"
                                + (warnings == 0
                                        ? ""
                                        : ", " + warnings + " warnings: "
                                                + findings.stream()
                                                        .map(Check.Finding::rule)
                                                        .distinct()
                                                        .collect(Collectors.joining(", ")))
                        : errors.size() + " errors, the first: "
                                + errors.stream()
                                        .limit(3)
                                        .map(Check.Finding::render)
                                        .collect(Collectors.joining("; ")));
    }
}
