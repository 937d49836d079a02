package io.podfall.kubelet.podworkers;

import java.time.Instant;

/**
 * One probe of one container of a pod (pkg/kubelet/prober/worker.go worker): its spec, the container it last saw, the
 * result it holds for that container (the results manager's entry) and the run of equal results counted toward a
 * threshold.
 */
final class ProbeWorker {
    final ProbeSpec spec;
    final PodWorkerTimer.Probe key;
    /** When the worker probes next: its next tick, or sooner when the status manager asks for a run at once. */
    Instant dueAt;
    /** The container the worker last saw in the status manager's status (worker.go containerID); null before. */
    String containerId;
    /** The result the worker holds for {@link #containerId}; null before it saw a container. */
    ProbeResult result;
    /** The last result a probe found (worker.go lastResult), and how many times in a row ({@link #resultRun}). */
    ProbeResult lastResult;

    int resultRun;
    /** After a liveness or startup failure the worker waits for a new container (worker.go onHold). */
    boolean onHold;
    /** Stopped by the pod's termination (StopLivenessAndStartup, RemovePod): no more probes. */
    boolean stopped;
    /** The container this (liveness or startup) worker had killed; null for none. */
    String killedContainerId;
    /** When the kill of {@link #killedContainerId} may run: the pod worker's next sync; null when none waits. */
    Instant killDueAt;

    ProbeWorker(ProbeSpec spec, PodWorkerTimer.Probe key) {
        this.spec = spec;
        this.key = key;
    }
}
