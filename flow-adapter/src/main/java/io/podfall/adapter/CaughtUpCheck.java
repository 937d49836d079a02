package io.podfall.adapter;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready once the service has rebuilt its state from the log and acts live. */
@Readiness
@ApplicationScoped
public class CaughtUpCheck implements HealthCheck {
    @Inject
    LogPosition position;

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("podfall-log")
                .status(position.isCaughtUp())
                .build();
    }
}
