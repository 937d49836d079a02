package io.podfall.kubelet.podworkers;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The prober's view of one pod with probes: its probe workers, what the pod declares its probes find, the stop signals
 * its containers got, and, by container name, what the status manager last wrote of each container (the status a probe
 * worker reads, and the one SetContainerReadiness compares with). A pod without probes has none of this.
 */
final class PodProbes {
    /** What the last status written said of a container: its id, whether it ran, was started and ready. */
    record Reported(String containerId, boolean running, boolean started, boolean ready) {}

    /** The stop signal a container got, and when. */
    record Signalled(String containerId, Instant at) {}

    final List<ProbeWorker> workers;
    final ProbeOutcomes outcomes;
    final Map<String, Reported> reported = new HashMap<>(2);
    final Map<String, Signalled> signalled = new HashMap<>(2);

    PodProbes(List<ProbeWorker> workers, ProbeOutcomes outcomes) {
        this.workers = workers;
        this.outcomes = outcomes;
    }

    /** The worker of that container's probe of that type; null if the container has none. */
    ProbeWorker worker(String container, ProbeType type) {
        for (ProbeWorker pw : workers) {
            if (pw.spec.type() == type && pw.spec.container().equals(container)) {
                return pw;
            }
        }
        return null;
    }

    /** When the container of that id got its stop signal; null if it got none. */
    Instant stopSignalAt(String container, String containerId) {
        Signalled s = signalled.get(container);
        return s != null && s.containerId().equals(containerId) ? s.at() : null;
    }
}
