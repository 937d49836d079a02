package io.podfall.runtime;

import io.podfall.model.core.Core;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** Gives flow-adapter's LogProcessor this service's core: the container runtime and CSI plugins of every node. */
@ApplicationScoped
public class RuntimeProducer {

    @Produces
    @Singleton
    @SuppressWarnings("rawtypes")
    Core core() {
        return new RuntimeConfiguration().newNodeServices();
    }
}
