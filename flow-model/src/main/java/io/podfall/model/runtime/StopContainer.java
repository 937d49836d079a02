package io.podfall.model.runtime;

/** CRI StopContainer: the stop signal, then SIGKILL once {@code timeoutSeconds} have passed. */
public record StopContainer(
        String node, String podUid, String containerId, String containerName, long timeoutSeconds) {}
