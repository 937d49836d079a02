package io.podfall.model.host;

/**
 * A node's machine stopped or started ({@code host.NodeStopped}, {@code host.NodeStarted}): the node's name, and why,
 * as the operator said it (null if they did not).
 */
public record NodeMachine(String node, String reason) {}
