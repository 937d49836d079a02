package io.podfall.model.runtime;

/** CRI CreateContainer + StartContainer for one container of the pod's sandbox. */
public record ContainerRef(String node, String podUid, String containerName) {
}
