package io.podfall.cli;

import io.podfall.cli.analysis.Stats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;

@Command(name = "stats", mixinStandardHelpOptions = true,
        description = {"Measure every pod deletion in the log: the total time (request -> ObjectRemoved) and each "
                + "phase, as count, p50, p90, p99 and max in milliseconds (nearest-rank); the share of deletions "
                + "with a SIGKILL; the grace period requested against the one the containers got (SIGTERM -> exit "
                + "or kill).", "Rejected delete requests are counted, not measured."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:printed", "2:bad options", "3:the log could not be read"})
final class StatsCommand implements Callable<Integer> {
    @Mixin
    LogSource source;

    @Option(names = "--json", description = "print JSON instead of a table")
    boolean json;

    @Override
    public Integer call() {
        Stats stats = Stats.of(source.read(System.err));
        System.out.print(json ? stats.json().toPrettyString() + "\n" : stats.render());
        return 0;
    }
}
