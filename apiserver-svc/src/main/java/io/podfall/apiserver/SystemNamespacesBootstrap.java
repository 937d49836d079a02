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
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

import java.util.List;

/**
 * The API server's own bootstrap: once it has rebuilt its state from the log (only then does it know which
 * system namespaces exist), it asks for the missing ones ({@link SystemNamespaces}); and it is ready only when
 * {@code default} and the other namespaces nobody may delete exist, so that a client told "ready" can create
 * in {@code default} at once.
 */
@Readiness
@ApplicationScoped
public class SystemNamespacesBootstrap implements HealthCheck {
    private static final Logger LOG = Logger.getLogger(SystemNamespacesBootstrap.class);

    @Inject
    LogProcessor processor;
    @Inject
    LogWriter writer;
    @Inject
    SimulatedClock clock;

    void onCaughtUp(@ObservesAsync CaughtUp caughtUp) {
        List<Event> requests = processor.read(RegistryState.class, s -> SystemNamespaces.missing(s, clock.now()));
        if (requests.isEmpty()) {
            return;
        }
        List<String> subjects = requests.stream().map(Event::subject).toList();
        writer.appendAll(requests).whenComplete((ok, failure) -> {
            if (failure != null) {
                LOG.errorf(failure, "Could not ask for the system namespaces %s", subjects);
            } else {
                LOG.infof("Asked for the system namespaces %s", subjects);
            }
        });
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("system-namespaces").status(processor.read(RegistryState.class, SystemNamespaces::ready)).build();
    }
}
