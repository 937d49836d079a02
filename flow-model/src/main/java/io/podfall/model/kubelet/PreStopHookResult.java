package io.podfall.model.kubelet;

import java.time.Instant;

/**
 * A container's preStop hook ended, or the kubelet stopped waiting for it because the grace period ran out
 * ({@code gracePeriodExhausted}). {@code durationSeconds} is the time it took in whole seconds, as executePreStopHook
 * returns it to be subtracted from the grace period. {@code error} is null unless the hook failed: its container exited
 * while it ran (upstream records a {@code FailedPreStopHook} event then).
 */
public record PreStopHookResult(
        String node,
        String podUid,
        String namespace,
        String name,
        String containerId,
        String containerName,
        String handler,
        long durationSeconds,
        boolean gracePeriodExhausted,
        Instant startedAt,
        Instant finishedAt,
        String error) {}
