package io.podfall.model.apiserver;

/** {@code POST .../pods/{name}/binding}: the scheduler's choice of node for a pod of the given uid. */
public record BindingRequest(String namespace, String name, String uid, String nodeName) {}
