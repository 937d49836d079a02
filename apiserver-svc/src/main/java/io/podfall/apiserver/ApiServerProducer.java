package io.podfall.apiserver;

import io.podfall.model.core.Core;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The core the shared log processor runs for this service: the registry. */
@ApplicationScoped
public class ApiServerProducer {
    @Produces
    @Singleton
    @SuppressWarnings("rawtypes")
    Core core() {
        return new ApiServerConfiguration().newRegistry();
    }
}
