package io.podfall.replay;

import io.podfall.model.event.Event;
import java.time.Instant;

/**
 * Something that reaches the log from outside the four cores, at a simulated time: what a replay re-injects. Everything
 * else on a recorded log is an effect of these, which the engine decides again.
 */
public sealed interface Input {
    /** When the input reached the log. */
    Instant at();

    /**
     * An event appended as it was recorded: a client's call to the API server's REST front door, or a node's machine
     * stopping or starting ({@code host.NodeStopped}, {@code host.NodeStarted}).
     */
    record Request(Event event) implements Input {
        @Override
        public Instant at() {
            return event.time();
        }
    }

    /**
     * The API server caught up with the log: it asks for the system namespaces it does not hold (apiserver-svc
     * SystemNamespacesBootstrap).
     */
    record ApiServerStart(Instant at) implements Input {}

    /**
     * A kubelet caught up with the log: it registers those of its nodes the API server does not hold (kubelet-svc
     * NodeRegistration). {@code kubelet} is its position in the engine's kubelets.
     */
    record KubeletStart(int kubelet, Instant at) implements Input {}

    /**
     * A kubelet's process ended (a node gone down): from then on it reads nothing and its timers do not ring, so its
     * nodes stop renewing their Leases and posting their status. {@code kubelet} is its position in the engine's
     * kubelets.
     */
    record KubeletStop(int kubelet, Instant at) implements Input {}
}
