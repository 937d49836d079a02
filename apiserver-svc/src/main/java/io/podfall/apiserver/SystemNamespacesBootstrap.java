package io.podfall.apiserver;

import io.podfall.adapter.CaughtUp;
import io.podfall.adapter.LogProcessor;
import io.podfall.adapter.LogWriter;
import io.podfall.adapter.SimulatedClock;
import io.podfall.apiserver.registry.RegistryState;
import io.podfall.apiserver.registry.SystemNamespaces;
import io.podfall.model.event.Event;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Inject;
import java.util.List;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * The API server's own bootstrap: once it has rebuilt its state from the log (only then does it know which system
 * namespaces exist), it asks for the missing ones ({@link SystemNamespaces}); and it is ready only when {@code default}
 * and the other namespaces nobody may delete exist, so that a client told "ready" can create in {@code default} at
 * once.
 */
@Readiness
@ApplicationScoped
public class SystemNamespacesBootstrap implements HealthCheck {
    @Inject
    LogProcessor processor;

    @Inject
    LogWriter writer;

    @Inject
    SimulatedClock clock;

    void onCaughtUp(@ObservesAsync CaughtUp caughtUp) {
        List<Event> requests = processor.read(RegistryState.class, s -> SystemNamespaces.missing(s, clock.now()));
        writer.appendOwnRequests(requests, "the system namespaces");
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("system-namespaces")
                .status(processor.read(RegistryState.class, SystemNamespaces::ready))
                .build();
    }
}
