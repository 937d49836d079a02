package io.podfall.kubelet.podworkers;

import java.util.Locale;

/**
 * The three probes (pkg/kubelet/prober/prober_manager.go probeType), each with the result its worker holds until it has
 * probed (worker.go newWorker): readiness Failure, liveness Success, startup Unknown.
 */
enum ProbeType {
    STARTUP(ProbeResult.UNKNOWN),
    READINESS(ProbeResult.FAILURE),
    LIVENESS(ProbeResult.SUCCESS);

    final ProbeResult initialValue;

    ProbeType(ProbeResult initialValue) {
        this.initialValue = initialValue;
    }

    /** {@code startup}, {@code readiness}, {@code liveness}: as the events and timer keys write it. */
    String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
