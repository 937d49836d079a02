package io.podfall.kubelet.podworkers;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Probe;
import java.util.ArrayList;
import java.util.List;

/**
 * One probe of a container, with upstream's defaults (pkg/apis/core/v1/defaults.go SetDefaults_Probe: periodSeconds 10,
 * failureThreshold 3, successThreshold 1, timeoutSeconds 1; initialDelaySeconds has none, so 0). The handler
 * ({@code exec}, {@code httpGet}, {@code tcpSocket}, {@code grpc}) is only a label: what the probe finds is declared by
 * the pod's annotations ({@link ProbeOutcomes}).
 *
 * @param container the container's name
 * @param type readiness, liveness or startup
 * @param handler the handler's kind, for the record
 * @param initialDelaySeconds the probe is skipped while the container has run fewer whole seconds than this
 * @param periodSeconds how often the worker probes, at least 1
 * @param successThreshold results in a row before a failed probe counts as succeeded
 * @param failureThreshold results in a row before a succeeded probe counts as failed
 * @param terminationGracePeriodSeconds the probe's own grace period for the kill a liveness or startup failure causes;
 *     null for none (the pod's is taken)
 */
record ProbeSpec(
        String container,
        ProbeType type,
        String handler,
        long initialDelaySeconds,
        long periodSeconds,
        int successThreshold,
        int failureThreshold,
        Long terminationGracePeriodSeconds) {

    static final long DEFAULT_PERIOD_SECONDS = 10;
    static final int DEFAULT_FAILURE_THRESHOLD = 3;
    static final int DEFAULT_SUCCESS_THRESHOLD = 1;

    /**
     * Every probe of the containers, in spec order, startup, readiness, liveness for each (prober_manager.go AddPod).
     */
    static List<ProbeSpec> of(List<Container> containers) {
        List<ProbeSpec> specs = new ArrayList<>(0);
        for (Container c : containers) {
            add(specs, c.getName(), ProbeType.STARTUP, c.getStartupProbe());
            add(specs, c.getName(), ProbeType.READINESS, c.getReadinessProbe());
            add(specs, c.getName(), ProbeType.LIVENESS, c.getLivenessProbe());
        }
        return specs;
    }

    private static void add(List<ProbeSpec> specs, String container, ProbeType type, Probe p) {
        if (p == null) {
            return;
        }
        specs.add(new ProbeSpec(
                container,
                type,
                handler(p),
                Math.max(orDefault(p.getInitialDelaySeconds(), 0), 0),
                Math.max(orDefault(p.getPeriodSeconds(), DEFAULT_PERIOD_SECONDS), 1),
                (int) Math.max(orDefault(p.getSuccessThreshold(), DEFAULT_SUCCESS_THRESHOLD), 1),
                (int) Math.max(orDefault(p.getFailureThreshold(), DEFAULT_FAILURE_THRESHOLD), 1),
                p.getTerminationGracePeriodSeconds()));
    }

    private static long orDefault(Integer value, long otherwise) {
        return value == null ? otherwise : value;
    }

    private static String handler(Probe p) {
        if (p.getExec() != null) {
            return "exec";
        }
        if (p.getHttpGet() != null) {
            return "httpGet";
        }
        if (p.getTcpSocket() != null) {
            return "tcpSocket";
        }
        return p.getGrpc() != null ? "grpc" : "none";
    }
}
