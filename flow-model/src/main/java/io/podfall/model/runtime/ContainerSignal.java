package io.podfall.model.runtime;

/** A signal delivered to a container's process ({@code SIGTERM}, {@code SIGKILL}, or the image's stop signal). */
public record ContainerSignal(String node, String podUid, String containerId, String containerName, String signal) {}
