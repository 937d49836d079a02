package io.podfall.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * A suite's simulated clock, as its services keep it (flow-adapter SimulatedClock): the wall clock, sped up
 * {@code scale} times from {@code origin}. What the CLI appends to a suite's topic carries that time.
 */
record TargetClock(double scale, Instant origin) {

    /** The clock of {@code --time-scale} and {@code --time-origin}; a bad option if they do not make one. */
    static TargetClock of(CommandLine command, double timeScale, String timeOrigin) {
        if (!(timeScale > 0)) {
            throw new ParameterException(command, "--time-scale must be more than 0, was " + timeScale);
        }
        if (timeScale == 1) {
            return new TargetClock(1, Instant.EPOCH);
        }
        if (timeOrigin == null) {
            throw new ParameterException(
                    command,
                    "--time-scale " + timeScale + " needs --time-origin, the target suite's podfall.time-origin");
        }
        try {
            return new TargetClock(timeScale, Instant.parse(timeOrigin));
        } catch (DateTimeParseException e) {
            throw new ParameterException(command, "not a time: " + timeOrigin + " (RFC 3339)");
        }
    }

    Instant now() {
        return at(Instant.now());
    }

    /** The target's time when the wall clock reads {@code wall}. */
    Instant at(Instant wall) {
        return scale == 1
                ? wall
                : origin.plusNanos(Math.round(Duration.between(origin, wall).toNanos() * scale));
    }
}
