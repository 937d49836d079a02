package io.podfall.model.runtime;

import java.util.List;
import java.util.Map;

/**
 * CRI RunPodSandbox, with what the simulated runtime needs to run the pod's containers later: their names and images,
 * which of them are regular init containers, and the pod's annotations (the {@code podfall.io/} ones describe how the
 * processes behave).
 */
public record RunPodSandbox(
        String node,
        String podUid,
        String namespace,
        String name,
        List<ContainerSpec> containers,
        Map<String, String> annotations) {

    /**
     * One container the kubelet may start in the sandbox.
     *
     * @param init true for a regular init container (an init container without {@code restartPolicy: Always}): its
     *     process runs to completion as {@code podfall.io/init-run-seconds} and {@code podfall.io/init-exit-code} say;
     *     null (absent on the log) for a main container and for a sidecar, whose process behaves as the pod's does
     */
    public record ContainerSpec(String name, String image, Boolean init) {
        public ContainerSpec(String name, String image) {
            this(name, image, null);
        }

        /** Whether it is a regular init container, which runs to completion (not a bean getter: not on the log). */
        public boolean runsToCompletion() {
            return Boolean.TRUE.equals(init);
        }
    }
}
