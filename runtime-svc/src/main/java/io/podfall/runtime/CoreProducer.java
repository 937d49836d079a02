package io.podfall.runtime;

import io.podfall.model.core.Core;
import io.podfall.runtime.cri.ContainerRuntime;
import io.podfall.runtime.csi.CsiNodePlugin;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** Gives flow-adapter's LogProcessor this service's core: the container runtime and CSI plugins of every node. */
@ApplicationScoped
public class CoreProducer {

    @Produces
    @Singleton
    @SuppressWarnings("rawtypes")
    Core core() {
        return nodeServices();
    }

    /** The core as this service runs it; the replay engine (flow-replay) runs the same one. */
    public static NodeServices nodeServices() {
        return new NodeServices(new ContainerRuntime(), new CsiNodePlugin());
    }
}
