package io.podfall.cli;

import io.podfall.cli.log.EventFile;
import io.podfall.cli.log.EventLog;
import io.podfall.model.event.Event;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Where an analysis command reads the log: the topic ({@code --bootstrap}, {@code --topic}) or a file that
 * {@code podfall export} wrote ({@code --file}). Both give the same events in the same order.
 */
public final class LogSource {
    @Mixin
    LogOptions log;

    @Option(names = "--file", paramLabel = "FILE",
            description = "read an exported JSON Lines file instead of the topic")
    Path file;

    /** Every event, in log order; unreadable records or lines are skipped and counted on {@code warnings}. */
    List<Event> read(PrintStream warnings) {
        if (file != null) {
            EventFile.Contents c = EventFile.read(file);
            if (c.unreadable() > 0) {
                warnings.println("podfall: skipped " + c.unreadable() + " unreadable line(s) of " + file
                        + " (first: " + c.firstProblem() + ")");
            }
            return c.events();
        }
        try (EventLog events = new EventLog(log.bootstrap, log.topic)) {
            List<Event> all = events.readToEnd(Duration.ofSeconds(30));
            if (events.unreadable() > 0) {
                warnings.println("podfall: skipped " + events.unreadable() + " unreadable record(s) of " + log.topic);
            }
            return all;
        }
    }

    /** The log's name in messages. */
    String name() {
        return file != null ? file.toString() : log.topic;
    }
}
