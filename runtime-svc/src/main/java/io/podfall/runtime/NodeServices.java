package io.podfall.runtime;

import io.podfall.model.core.CompositeCore;
import io.podfall.runtime.cri.ContainerRuntime;
import io.podfall.runtime.csi.CsiNodePlugin;
import java.util.List;

/**
 * What runs on every node beside the kubelet and answers its calls: the container runtime (CRI, with CNI inside
 * RunPodSandbox and StopPodSandbox) and the CSI node plugins, which the kubelet calls directly. Each has its own state
 * and vocabulary and reads only the calls made to it ({@code runtime.*} and {@code csi.*} requests), so no event is
 * handled by both.
 */
public final class NodeServices extends CompositeCore {

    public NodeServices(ContainerRuntime runtime, CsiNodePlugin csi) {
        super(List.of(runtime, csi));
    }
}
