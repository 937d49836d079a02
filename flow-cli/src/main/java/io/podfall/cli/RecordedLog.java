package io.podfall.cli;

import io.podfall.model.event.Event;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The recorded log {@code replay} and {@code state} work on: an exported JSON Lines file, or a topic, read whole as
 * every analysis command reads it ({@link LogSource}), with the lines or records that are not readable events skipped
 * and counted on standard error. Also reads the simulated times and durations these commands take.
 */
public final class RecordedLog {
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "FILE",
            description = "a log exported by podfall export (JSON Lines); or --topic")
    Path file;

    @Option(
            names = "--topic",
            paramLabel = "TOPIC",
            description = "read the recording from this topic instead of a file")
    String topic;

    @Option(
            names = "--bootstrap",
            paramLabel = "HOST:PORT",
            defaultValue = "127.0.0.1:9092",
            description = "the broker of --topic, and of the target of --live (default: ${DEFAULT-VALUE})")
    String bootstrap;

    /** The readable events of the file or the topic, in log order. */
    List<Event> read() {
        if ((file == null) == (topic == null)) {
            throw new ParameterException(command.commandLine(), "give one recording: FILE or --topic TOPIC");
        }
        LogSource source = new LogSource();
        source.command = command;
        source.file = file;
        source.log = new LogOptions();
        source.log.bootstrap = bootstrap;
        source.log.topic = topic;
        List<Event> events = source.read();
        if (events.isEmpty()) {
            throw new IllegalStateException("no events in " + source.name());
        }
        return events;
    }

    /**
     * A simulated time: RFC 3339 ({@code 2026-11-29T10:27:00Z}), or {@code +DURATION} after the first event of the log
     * ({@code +12s}, {@code +1500ms}).
     */
    Instant time(String t, List<Event> log) {
        if (t.startsWith("+")) {
            return log.get(0).time().plus(duration(t.substring(1)));
        }
        try {
            return Instant.parse(t);
        } catch (DateTimeParseException e) {
            throw new ParameterException(
                    command.commandLine(),
                    "not a time: " + t + " (RFC 3339, or +DURATION from the first event such as +12s)");
        }
    }

    /** {@code 100ms}, {@code 2s}, {@code 1.5s}, {@code 3m}, {@code 1h}. */
    Duration duration(String d) {
        Matcher m = DURATION.matcher(d.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new ParameterException(
                    command.commandLine(), "not a duration: " + d + " (such as 100ms, 2s, 1.5s, 3m)");
        }
        double n = Double.parseDouble(m.group(1));
        long unitNanos = switch (m.group(2)) {
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            default -> 3_600_000_000_000L;
        };
        return Duration.ofNanos(Math.round(n * unitNanos));
    }
}
