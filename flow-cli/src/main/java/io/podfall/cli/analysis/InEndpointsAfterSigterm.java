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
 * caused, the API server's ObjectUpdated of that patch. When the log counts the clients' requests
 * ({@code traffic.RequestsCounted}) to the pod, "may" becomes a figure: the requests to it that failed after its
 * SIGTERM, by reason (a warning), or that none did (a note).
 */
final class InEndpointsAfterSigterm {
    static final String RULE = "in-endpoints-after-sigterm";

    private InEndpointsAfterSigterm() {}

    /** A pod's stop signal that came while the Endpoints still listed it: the marking, the signal, the update. */
    private record Late(Event marked, Event signal, Event endpoints) {}

    static List<Finding> of(List<Event> log) {
        EndpointsChain endpoints = new EndpointsChain();
        Requests requests = new Requests();
        Map<String, Event> stopSignal = new HashMap<>();
        List<Late> late = new ArrayList<>();
        for (Event e : log) {
            requests.accept(e);
            if (DeletionFlow.isStopSignal(e)) {
                stopSignal.putIfAbsent(e.subject(), e);
            }
            endpoints.accept(e).ifPresent(pod -> {
                Event signal = stopSignal.get(pod.subject());
                if (signal != null
                        && signal.time().isAfter(pod.time())
                        && e.time().isAfter(signal.time())) {
                    late.add(new Late(pod, signal, e));
                }
            });
        }
        return late.stream().map(l -> finding(l, requests)).toList();
    }

    private static Finding finding(Late l, Requests requests) {
        ContainerSignal signal = l.signal().data(ContainerSignal.class);
        String listed = signal.signal() + " at " + l.signal().time() + ", but "
                + l.endpoints().subject()
                + " still listed the pod until " + l.endpoints().time() + " (+"
                + Duration.between(l.signal().time(), l.endpoints().time()).toMillis() + " ms)";
        List<String> ids =
                List.of(l.marked().id(), l.signal().id(), l.endpoints().id());
        if (!requests.counted(signal.podUid())) {
            return new Finding(
                    Level.WARNING,
                    RULE,
                    l.marked().subject(),
                    listed + ": traffic may have reached a process already shutting down",
                    ids);
        }
        Requests.Tally failed = requests.failedAfter(signal.podUid(), l.signal().time());
        return failed.failed() == 0
                ? new Finding(
                        Level.NOTE,
                        RULE,
                        l.marked().subject(),
                        listed + ": no request to the pod failed after its " + signal.signal(),
                        ids)
                : new Finding(
                        Level.WARNING,
                        RULE,
                        l.marked().subject(),
                        listed + ": " + failed.failed() + " requests to the pod failed after its " + signal.signal()
                                + " (" + failed.reasons() + ")",
                        ids);
    }
}
