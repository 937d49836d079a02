package io.podfall.model.runtime;

import java.util.List;
import java.util.Map;

/**
 * CRI RunPodSandbox, with what the simulated runtime needs to run the pod's containers later: their names and images,
 * and the pod's annotations (the {@code podfall.io/} ones describe how the processes behave).
 */
public record RunPodSandbox(
        String node,
        String podUid,
        String namespace,
        String name,
        List<ContainerSpec> containers,
        Map<String, String> annotations) {

    public record ContainerSpec(String name, String image) {}
}
