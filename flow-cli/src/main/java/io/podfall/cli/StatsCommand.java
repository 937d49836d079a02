package io.podfall.cli;

import io.podfall.cli.analysis.Stats;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
        name = "stats",
        mixinStandardHelpOptions = true,
        description = {
            "Measure every pod deletion in the log: the total time (request -> ObjectRemoved) and each "
                    + "phase, as count, p50, p90, p99 and max in milliseconds (nearest-rank); the share of deletions "
                    + "with a SIGKILL; the grace period requested against the one the containers got (SIGTERM -> exit "
                    + "or kill).",
            "Rejected delete requests are counted, not measured.",
            "When the log counts the clients' requests (traffic.RequestsCounted), how many were sent, succeeded and "
                    + "failed by reason, overall and per Service, and the deletions that broke requests: the requests to "
                    + "the deleted pod that failed after the delete.",
            "The log is read as a stream: each event is folded into a few timestamps of its deletion and "
                    + "dropped, so memory grows with the deletions, not with their events.",
            "--since and --until choose the deletions by the time they were requested (RFC 3339, or an age "
                    + "before now: 90s, 15m, 2h, 1d); each is measured to its end."
        },
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:printed", "2:bad options", "3:the log could not be read"})
final class StatsCommand implements Callable<Integer> {
    @Mixin
    LogSource source;

    @Option(names = "--since", paramLabel = "T", description = "deletions requested at or after T")
    String since;

    @Option(names = "--until", paramLabel = "T", description = "deletions requested before T")
    String until;

    @Option(names = "--json", description = "print JSON instead of a table")
    boolean json;

    @Option(
            names = "--progress",
            description = "show how far reading is on standard error even when it is not a "
                    + "terminal (on a terminal it is shown anyway)")
    boolean progress;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Instant now = Instant.now();
        Stats.Collector stats = new Stats.Collector(
                since == null ? null : ExportCommand.instant(since, now),
                until == null ? null : ExportCommand.instant(until, now));
        source.forEach(stats, progress || System.console() != null);
        Stats s = stats.result();
        spec.commandLine().getOut().print(json ? s.json().toPrettyString() + "\n" : s.render());
        spec.commandLine().getOut().flush();
        return 0;
    }
}
