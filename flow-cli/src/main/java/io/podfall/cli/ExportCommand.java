package io.podfall.cli;

import io.podfall.cli.log.EventFile;
import io.podfall.model.event.Event;
import io.podfall.replay.Snapshot;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
        name = "export",
        mixinStandardHelpOptions = true,
        description = {
            "Write the log as JSON Lines: one CloudEvent a line in structured JSON form, in log order.",
            "Times are RFC 3339 (2026-11-29T10:27:00Z) or an age before now (90s, 15m, 2h, 1d, PT1H); --since is "
                    + "inclusive, --until exclusive.",
            "A slice (any of the options below) begins with its snapshot: what its flows may read, as the "
                    + "API server held it just before the slice's first instant (Nodes, Namespaces, Leases, the "
                    + "objects of the slice's namespaces), one apiserver.ObjectListed a line, so that replay and "
                    + "state take the file on its own. A namespace's slice runs from its first event on and also "
                    + "holds the events of what every namespace shares: Nodes (a cordon, a taint), their "
                    + "Leases."
        },
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:written", "2:bad options", "3:the log could not be read or the file not written"})
final class ExportCommand implements Callable<Integer> {
    @Mixin
    LogSource source;

    @Option(names = "--since", paramLabel = "T", description = "events at or after T")
    String since;

    @Option(names = "--until", paramLabel = "T", description = "events before T")
    String until;

    @Option(names = "--namespace", paramLabel = "NS", description = "events about objects in this namespace")
    String namespace;

    @Option(names = "--correlation", paramLabel = "ID", description = "the events of one flow")
    String correlation;

    @Option(
            names = "--output",
            paramLabel = "FILE|-",
            defaultValue = "-",
            description = "where to write (default: standard output)")
    String output;

    @Override
    public Integer call() throws IOException {
        Instant now = Instant.now();
        Snapshot.Selection keep = new Snapshot.Selection(
                namespace,
                correlation,
                since == null ? null : instant(since, now),
                until == null ? null : instant(until, now));
        if (output.equals("-")) {
            Writer out = new OutputStreamWriter(System.out, StandardCharsets.UTF_8);
            export(keep, out);
            out.flush();
        } else {
            // written beside the target and moved in place once complete: a failed read leaves no half file
            Path target = Path.of(output).toAbsolutePath();
            Path part = Files.createTempFile(target.getParent(), target.getFileName() + ".", ".part");
            long n;
            try (Writer out = Files.newBufferedWriter(part)) {
                n = export(keep, out);
            } catch (RuntimeException | IOException e) {
                Files.deleteIfExists(part);
                throw e;
            }
            Files.move(part, target, StandardCopyOption.REPLACE_EXISTING);
            System.err.println("podfall: wrote " + n + " events to " + output);
        }
        return 0;
    }

    /**
     * Writes the events {@code keep} accepts to {@code out}; how many. All of the log is streamed, keeping none; a
     * slice is read whole, since its snapshot is rebuilt from what comes before it ({@link Snapshot#slice}).
     */
    private long export(Snapshot.Selection keep, Writer out) throws IOException {
        if (!keep.isAll()) {
            List<Event> slice = Snapshot.slice(source.read(), keep);
            EventFile.write(out, slice);
            return slice.size();
        }
        long[] n = {0};
        source.forEach(
                e -> {
                    try {
                        EventFile.write(out, e);
                    } catch (IOException ex) {
                        throw new UncheckedIOException(ex);
                    }
                    n[0]++;
                },
                false);
        return n[0];
    }

    /** An RFC 3339 instant, or an age before {@code now} ({@link Durations}). */
    static Instant instant(String t, Instant now) {
        try {
            return Instant.parse(t);
        } catch (DateTimeParseException notAnInstant) {
            try {
                return now.minus(Durations.parse(t));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("not a time: " + t + " (RFC 3339, or an age such as 15m)");
            }
        }
    }
}
