package io.podfall.cli;

import io.podfall.cli.log.EventFile;
import io.podfall.cli.log.EventLog;
import io.podfall.model.event.Event;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Where an analysis command reads the log: the topic ({@code --bootstrap}, {@code --topic}) or a file that
 * {@code podfall export} wrote ({@code --file}). Both give the same events in the same order. Unreadable records or
 * lines are skipped and counted on the command's standard error.
 */
public final class LogSource {
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Mixin
    LogOptions log;

    @Option(
            names = "--file",
            paramLabel = "FILE",
            description = "read an exported JSON Lines file instead of the topic")
    Path file;

    /** Every event, in log order. */
    List<Event> read() {
        List<Event> all = new ArrayList<>();
        forEach(all::add, false);
        return all;
    }

    /**
     * Streams every event to {@code sink}, in log order, keeping none; with a {@link Progress} line on standard error
     * when {@code progress}.
     */
    void forEach(Consumer<Event> sink, boolean progress) {
        PrintWriter err = command.commandLine().getErr();
        if (file != null) {
            try (Progress.CountingInputStream in = new Progress.CountingInputStream(Files.newInputStream(file))) {
                Progress p = progress
                        ? new Progress(err, file.toString(), Files.size(file), System::nanoTime).measuring(in::count)
                        : null;
                EventFile.Problems problems = EventFile.forEach(in, counted(sink, p));
                finish(p);
                if (problems.unreadable() > 0) {
                    err.println("podfall: skipped " + problems.unreadable() + " unreadable line(s) of " + file + ": "
                            + problems.describe());
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
            }
            return;
        }
        try (EventLog events = new EventLog(log.bootstrap, log.topic)) {
            Progress p = progress ? new Progress(err, log.topic, events.size(), System::nanoTime) : null;
            events.readToEnd(counted(sink, p), READ_TIMEOUT);
            finish(p);
            if (events.unreadable() > 0) {
                err.println("podfall: skipped " + events.unreadable() + " unreadable record(s) of " + log.topic);
            }
        }
    }

    private static Consumer<Event> counted(Consumer<Event> sink, Progress p) {
        return p == null
                ? sink
                : e -> {
                    sink.accept(e);
                    p.event();
                };
    }

    private static void finish(Progress p) {
        if (p != null) {
            p.finish();
        }
    }

    /** The log's name in messages. */
    String name() {
        return file != null ? file.toString() : log.topic;
    }
}
