package io.podfall.model.runtime;

/** CRI StopPodSandbox / RemovePodSandbox: the pod sandbox on a node. */
public record SandboxRef(String node, String podUid) {}
