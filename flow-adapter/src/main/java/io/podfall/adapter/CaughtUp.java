package io.podfall.adapter;

/**
 * CDI event fired once, when the service has rebuilt its state from the log and acts live. Observe it (with
 * {@code @ObservesAsync}) for work that must see the rebuilt state first, such as a kubelet registering its node.
 */
public record CaughtUp() {}
