package io.podfall.kubelet;

import io.podfall.adapter.CaughtUp;
import io.podfall.adapter.LogProcessor;
import io.podfall.adapter.LogWriter;
import io.podfall.adapter.SimulatedClock;
import io.podfall.kubelet.podworkers.PodWorkers;
import io.podfall.kubelet.podworkers.PodWorkersState;
import io.podfall.model.core.CompositeState;
import io.podfall.model.event.Event;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Inject;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * Registers this kubelet's nodes with the API server once the kubelet has rebuilt its state from the log: only then
 * does it know which of its nodes the API server already holds (a restart registers nothing again).
 */
@ApplicationScoped
public class NodeRegistration {
    private static final Logger LOG = Logger.getLogger(NodeRegistration.class);

    @Inject
    PodWorkers podWorkers;

    @Inject
    LogProcessor processor;

    @Inject
    LogWriter writer;

    @Inject
    SimulatedClock clock;

    void onCaughtUp(@ObservesAsync CaughtUp caughtUp) {
        List<Event> requests = processor.read(
                CompositeState.class, s -> podWorkers.registerNodes(s.of(PodWorkersState.class), clock.now()));
        if (requests.isEmpty()) {
            LOG.infof("Nodes %s are registered already", podWorkers.nodeNames());
        }
        writer.appendOwnRequests(requests, "the registration of");
    }
}
