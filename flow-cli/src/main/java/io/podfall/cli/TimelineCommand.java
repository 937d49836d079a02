package io.podfall.cli;

import io.podfall.cli.analysis.Timeline;
import io.podfall.model.event.Event;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "timeline", mixinStandardHelpOptions = true,
        description = "Print one flow (default: the latest deletion): every step in order, with its offset from the request.",
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:printed", "2:bad options", "3:the log could not be read, or no such flow"})
final class TimelineCommand implements Callable<Integer> {
    @Mixin
    LogSource source;

    @Mixin
    FlowSelection flow;

    @Override
    public Integer call() {
        List<Event> all = source.read();
        System.out.print(Timeline.of(all, flow.correlationIn(all, source.name())).render());
        return 0;
    }
}
