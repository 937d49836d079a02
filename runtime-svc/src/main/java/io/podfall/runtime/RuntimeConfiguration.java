package io.podfall.runtime;

import io.podfall.runtime.cri.ContainerRuntime;
import io.podfall.runtime.csi.CsiNodePlugin;

/**
 * The settings of the container runtime and CSI plugins that shape their core, as containerd's configuration does: none
 * yet. The one place the core is built, so the service and the replay engine run the same one.
 */
public record RuntimeConfiguration() {

    /** The core as the service runs it; the service's RuntimeProducer and the replay engine both call this. */
    public NodeServices newNodeServices() {
        return new NodeServices(new ContainerRuntime(), new CsiNodePlugin());
    }
}
