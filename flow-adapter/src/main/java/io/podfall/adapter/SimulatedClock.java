package io.podfall.adapter;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Simulated time: wall-clock time sped up by {@code podfall.time-scale} from a shared origin
 * ({@code podfall.time-origin}), so a 30 s grace period can pass in 0.3 s while the log and every report still speak in
 * simulated seconds. Every service of one suite must be given the same origin and scale.
 */
@ApplicationScoped
public class SimulatedClock {
    private final double scale;
    private final Instant origin;

    public SimulatedClock(
            @ConfigProperty(name = "podfall.time-scale") double scale,
            @ConfigProperty(name = "podfall.time-origin") Optional<Instant> origin) {
        if (!(scale > 0)) {
            throw new IllegalArgumentException("podfall.time-scale must be > 0, was " + scale);
        }
        if (scale != 1 && origin.isEmpty()) {
            throw new IllegalArgumentException("podfall.time-scale " + scale
                    + " needs podfall.time-origin (an RFC 3339 instant shared by every service of the suite)");
        }
        this.scale = scale;
        this.origin = origin.orElse(Instant.EPOCH);
    }

    public Instant now() {
        return toSimulated(Instant.now());
    }

    Instant toSimulated(Instant wall) {
        if (scale == 1) {
            return wall;
        }
        long nanos = Duration.between(origin, wall).toNanos();
        return origin.plusNanos(Math.round(nanos * scale));
    }

    /** How long to wait on the wall clock until simulated time reaches {@code at}; zero if it has. */
    public Duration wallDelayUntil(Instant at) {
        Duration simulated = Duration.between(now(), at);
        return simulated.isNegative() ? Duration.ZERO : Duration.ofNanos(Math.round(simulated.toNanos() / scale));
    }
}
