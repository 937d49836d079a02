package io.podfall.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code podfall} command. */
@Command(
        name = "podfall",
        mixinStandardHelpOptions = true,
        version = "podfall 0.1.0",
        description = "The Kubernetes pod deletion flow as events on one Kafka log: run it, watch it, read it back.",
        subcommands = {
            UpCommand.class,
            DemoCommand.class,
            TimelineCommand.class,
            DiagramCommand.class,
            StatsCommand.class,
            CheckCommand.class,
            ExportCommand.class,
            ImportCommand.class,
            ReplayCommand.class,
            StateCommand.class,
            NodeCommand.class
        },
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {
            "0:done",
            "1:podfall check found an error, or podfall replay a divergence",
            "2:bad options, or a refused import",
            "3:the command failed (broker or file unreadable, flow not found, ...)"
        })
public final class Podfall {
    /** A command that could not do its job, as distinct from {@code check}'s findings (1) and bad usage (2). */
    public static final int FAILED = 3;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    public static CommandLine commandLine() {
        return new CommandLine(new Podfall()).setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("podfall: " + e.getMessage());
            return FAILED;
        });
    }
}
