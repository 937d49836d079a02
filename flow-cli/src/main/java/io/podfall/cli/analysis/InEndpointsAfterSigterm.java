package io.podfall.cli.analysis;

import io.podfall.cli.analysis.Check.Finding;
import io.podfall.cli.analysis.Check.Level;
import io.podfall.model.event.Event;
import io.podfall.model.runtime.ContainerSignal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code in-endpoints-after-sigterm}: a pod that got SIGTERM while a Service's Endpoints still listed it: the endpoints
 * controller and the kubelet both act on the pod being marked for deletion, and here the kubelet won, so traffic may
 * still have reached a process already shutting down (the classic reason for a preStop sleep). The chain is followed by
 * causation ({@link EndpointsChain}): the pod's ObjectMarkedTerminating, the endpoints controller's PatchRequested it
 * caused, the API server's ObjectUpdated of that patch.
 */
final class InEndpointsAfterSigterm {
    private InEndpointsAfterSigterm() {}

    static List<Finding> of(List<Event> log) {
        EndpointsChain endpoints = new EndpointsChain();
        Map<String, Event> stopSignal = new HashMap<>();
        List<Finding> out = new ArrayList<>();
        for (Event e : log) {
            if (DeletionFlow.isStopSignal(e)) {
                stopSignal.putIfAbsent(e.subject(), e);
            }
            endpoints.accept(e).ifPresent(pod -> {
                Event signal = stopSignal.get(pod.subject());
                if (signal != null
                        && signal.time().isAfter(pod.time())
                        && e.time().isAfter(signal.time())) {
                    out.add(new Finding(
                            Level.WARNING,
                            "in-endpoints-after-sigterm",
                            pod.subject(),
                            signal.data(ContainerSignal.class).signal() + " at " + signal.time() + ", but "
                                    + e.subject() + " still listed the pod until " + e.time() + " (+"
                                    + Duration.between(signal.time(), e.time()).toMillis()
                                    + " ms): traffic may have reached a process already shutting down",
                            List.of(pod.id(), signal.id(), e.id())));
                }
            });
        }
        return out;
    }
}
