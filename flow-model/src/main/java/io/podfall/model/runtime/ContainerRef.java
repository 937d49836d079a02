package io.podfall.model.runtime;

/**
 * CRI CreateContainer + StartContainer for one container of the pod's sandbox. {@code attempt} is CRI's
 * {@code ContainerMetadata.attempt}: 0 for the first container of that name, the restart count for each one the kubelet
 * starts again, so a repeated request for the same attempt starts nothing (absent in older events: 0).
 */
public record ContainerRef(String node, String podUid, String containerName, int attempt) {}
