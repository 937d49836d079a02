package io.podfall.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code podfall} command. */
@Command(name = "podfall", mixinStandardHelpOptions = true, version = "podfall 0.1.0",
        description = "The Kubernetes pod deletion flow as events on one Kafka log: run it, watch it, read it back.",
        subcommands = {UpCommand.class, DemoCommand.class, TimelineCommand.class})
public final class Podfall {

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    public static CommandLine commandLine() {
        return new CommandLine(new Podfall())
                .setExecutionExceptionHandler((e, cmd, parsed) -> {
                    cmd.getErr().println("podfall: " + e.getMessage());
                    return 1;
                });
    }
}
