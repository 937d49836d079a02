package io.podfall.kubelet.podworkers;

/** pkg/kubelet/prober/results: what a probe found. */
enum ProbeResult {
    SUCCESS,
    FAILURE,
    UNKNOWN
}
