package io.podfall.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A length of time on the command line: a number and a unit ({@code 500ms}, {@code 90s}, {@code 15m}, {@code 2h},
 * {@code 1d}), or ISO-8601 ({@code PT30S}). Export's ages and check's thresholds read the same way.
 */
final class Durations implements ITypeConverter<Duration> {
    private static final Pattern AMOUNT = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    /** The duration {@code value} gives; IllegalArgumentException when it is none. */
    static Duration parse(String value) {
        Matcher m = AMOUNT.matcher(value);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            return Duration.parse(value);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("not a duration: " + value + " (such as 30s, 15m, 2h, PT30S)");
        }
    }

    @Override
    public Duration convert(String value) {
        try {
            return parse(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
