package io.podfall.cli;

import io.podfall.model.event.Event;
import io.podfall.replay.Replay;
import io.podfall.replay.StateReport;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
        name = "state",
        mixinStandardHelpOptions = true,
        description = {
            "What the API server (its objects), each kubelet (its pod workers) and the runtime (its sandboxes "
                    + "and containers) held at one moment of a recorded log: the services' cores rebuilt from the log up to "
                    + "then, as a service restarted at that moment would rebuild its state."
        },
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:printed", "2:bad options", "3:the recording could not be read"})
final class StateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    RecordedLog log;

    @Option(
            names = "--at",
            paramLabel = "TIME",
            description = "the moment: RFC 3339, or +DURATION from the first event (default: the last event)")
    String at;

    @Override
    public Integer call() {
        List<Event> recorded = log.read();
        Instant moment = at == null ? Replay.end(recorded) : log.time(at, recorded);
        PrintWriter out = spec.commandLine().getOut();
        out.println("at " + moment + " ("
                + recorded.stream().filter(e -> !e.time().isAfter(moment)).count() + " of " + recorded.size()
                + " events)");
        out.print(StateReport.text(StateReport.rebuild(recorded, moment)));
        out.flush();
        return 0;
    }
}
