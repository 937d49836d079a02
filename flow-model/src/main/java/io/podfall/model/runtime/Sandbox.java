package io.podfall.model.runtime;

/** A pod sandbox on a node, with the IP CNI gave it. */
public record Sandbox(String node, String podUid, String sandboxId, String ip) {}
