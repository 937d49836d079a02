package io.podfall.kubelet.podworkers;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.podfall.model.core.Effects;
import io.podfall.model.event.EventTypes;
import io.podfall.model.runtime.ContainerRef;
import java.util.List;

/**
 * The order a pod's containers start in (pkg/kubelet/kuberuntime/kuberuntime_manager.go computePodActions, with
 * SidecarContainers on, as since 1.29): once the sandbox runs, the init containers one after the other in spec order,
 * then every main container. A regular init container must have exited 0 before the next one starts (one that failed is
 * restarted or fails the pod: {@link ContainerRestarts}); a sidecar (an init container with restartPolicy Always) must
 * be running, and started (podfall has no startup probes: running is started), and it keeps running. Each step is taken
 * when the worker syncs after the PLEG saw the last one: {@link #startNext} starts what may start now and nothing
 * twice.
 */
final class InitContainers {
    private InitContainers() {}

    /** pkg/kubelet/types/pod_update.go IsRestartableInitContainer: an init container with restartPolicy Always. */
    static boolean isSidecar(Container c) {
        return "Always".equals(c.getRestartPolicy());
    }

    static boolean hasInitContainers(Pod pod) {
        List<Container> init = pod.getSpec().getInitContainers();
        return init != null && !init.isEmpty();
    }

    static List<Container> of(Pod pod) {
        List<Container> init = pod.getSpec().getInitContainers();
        return init == null ? List.of() : init;
    }

    /** The spec of the pod's container of that name, init containers included; null if there is none. */
    static Container spec(Pod pod, String name) {
        for (Container c : of(pod)) {
            if (c.getName().equals(name)) {
                return c;
            }
        }
        for (Container c : pod.getSpec().getContainers()) {
            if (c.getName().equals(name)) {
                return c;
            }
        }
        return null;
    }

    /**
     * computePodActions' next step: the first init container not yet done is started if it was never started; if every
     * init container is done, each main container not yet started is. An init container that runs, waits out its
     * back-off or is being started holds everything after it. Returns whether anything was started.
     */
    static boolean startNext(PodWorker w, Effects.Builder out) {
        Pod pod = w.pod();
        for (Container spec : of(pod)) {
            RuntimeContainer c = w.container(spec.getName());
            if (c == null) {
                start(w, spec, isSidecar(spec) ? RuntimeContainer.Kind.SIDECAR : RuntimeContainer.Kind.INIT, out);
                return true;
            }
            if (!isDone(c)) {
                return false;
            }
        }
        boolean started = false;
        for (Container spec : pod.getSpec().getContainers()) {
            if (w.container(spec.getName()) == null) {
                start(w, spec, RuntimeContainer.Kind.MAIN, out);
                started = true;
            }
        }
        return started;
    }

    /** A regular init container that exited 0, a sidecar that runs: the next container may start. */
    static boolean isDone(RuntimeContainer c) {
        return c.kind == RuntimeContainer.Kind.SIDECAR
                ? c.state == RuntimeContainer.State.RUNNING
                : c.state == RuntimeContainer.State.EXITED && c.exitCode != null && c.exitCode == 0;
    }

    private static void start(PodWorker w, Container spec, RuntimeContainer.Kind kind, Effects.Builder out) {
        w.putContainer(new RuntimeContainer(spec.getName(), spec.getImage(), kind));
        out.emit(
                w.source(),
                EventTypes.START_CONTAINER_REQUESTED,
                w.subject(),
                new ContainerRef(w.node, w.uid, spec.getName(), 0));
    }
}
