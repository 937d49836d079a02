package io.podfall.apiserver;

import io.podfall.apiserver.registry.Registry;

/**
 * The API server's settings that shape its core, as kube-apiserver's options do: none yet. The one place the core is
 * built, so the service and the replay engine run the same one.
 */
public record ApiServerConfiguration() {

    /** The core as the service runs it; the service's ApiServerProducer and the replay engine both call this. */
    public Registry newRegistry() {
        return new Registry();
    }
}
