package io.podfall.cli.log;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventCatalogue;
import io.podfall.model.event.UnreadableEventException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** The log as a file: JSON Lines, one structured CloudEvent a line, in log order ({@code podfall export}). */
public final class EventFile {
    private EventFile() {}

    /** What a file held: its events, and the lines that were not readable events (with the first reason). */
    public record Contents(List<Event> events, int unreadable, String firstProblem) {}

    public static Contents read(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return read(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** Blank lines are skipped; an unreadable line is counted and skipped, as a service skips a bad record. */
    public static Contents read(InputStream in) {
        List<Event> events = new ArrayList<>();
        Problems p = forEach(in, events::add);
        return new Contents(
                List.copyOf(events),
                p.unreadable(),
                p.named().isEmpty() ? null : p.named().get(0));
    }

    /**
     * The lines of a file that were not readable events: how many, and the first {@link #NAMED} of them, each as its
     * line number and the first line of its reason.
     */
    public record Problems(int unreadable, List<String> named) {
        /** How many unreadable lines are named: enough to tell a damaged line from a newer writer's types. */
        public static final int NAMED = 5;

        /** {@code line 4: not JSON: ...; line 7: unknown event type ...}, and how many more there were. */
        public String describe() {
            return String.join("; ", named)
                    + (unreadable > named.size() ? "; and " + (unreadable - named.size()) + " more" : "");
        }
    }

    /**
     * Streams the events of a file to {@code sink} in file order, one line at a time, so that a reader that folds them
     * keeps none of them; the same rules as {@link #read(InputStream)}.
     */
    public static Problems forEach(InputStream in, Consumer<Event> sink) {
        int unreadable = 0;
        List<String> named = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            int n = 0;
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                n++;
                if (line.isBlank()) {
                    continue;
                }
                Event e;
                try {
                    e = StructuredCloudEvents.decode(line);
                    EventCatalogue.check(e);
                } catch (UnreadableEventException ex) {
                    unreadable++;
                    if (named.size() < Problems.NAMED) {
                        named.add("line " + n + ": "
                                + ex.getMessage().lines().findFirst().orElse(""));
                    }
                    continue;
                }
                sink.accept(e);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Problems(unreadable, List.copyOf(named));
    }

    public static void write(Writer out, List<Event> events) throws IOException {
        for (Event e : events) {
            write(out, e);
        }
        out.flush();
    }

    /** One event as one line. */
    public static void write(Writer out, Event e) throws IOException {
        out.write(StructuredCloudEvents.line(e));
        out.write('\n');
    }
}
