package io.podfall.cli;

import io.podfall.cli.analysis.Timeline;
import io.podfall.cli.log.EventLog;
import io.podfall.model.event.Event;
import io.podfall.model.event.Subjects;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "timeline", mixinStandardHelpOptions = true,
        description = "Print one flow from the event topic: every step in order, with its offset from the request.")
final class TimelineCommand implements Callable<Integer> {
    @Mixin
    LogOptions log;

    @Option(names = "--correlation", description = "the flow's correlation id")
    String correlation;

    @Option(names = "--pod", description = "NAMESPACE/NAME: the latest deletion of this pod")
    String pod;

    @Override
    public Integer call() {
        try (EventLog events = new EventLog(log.bootstrap, log.topic)) {
            List<Event> all = events.readToEnd(Duration.ofSeconds(30));
            String subject = null;
            if (pod != null) {
                String[] nsName = pod.split("/", 2);
                if (nsName.length != 2) {
                    throw new IllegalArgumentException("--pod takes NAMESPACE/NAME, not " + pod);
                }
                subject = Subjects.of(nsName[0], "pods", nsName[1]);
            }
            String id = correlation != null ? correlation : Timeline.latestDeletion(all, subject)
                    .orElseThrow(() -> new IllegalStateException("no deletion found on " + log.topic));
            Timeline timeline = Timeline.of(all, id);
            if (timeline.steps().isEmpty()) {
                throw new IllegalStateException("no event with correlation id " + id + " on " + log.topic);
            }
            System.out.print(timeline.render());
        }
        return 0;
    }
}
