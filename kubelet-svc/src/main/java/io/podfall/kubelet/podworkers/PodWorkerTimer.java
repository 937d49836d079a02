package io.podfall.kubelet.podworkers;

import io.podfall.model.core.TimerKey;

/**
 * The timers of the pod workers and the managers that act through them. Kubernetes names and UIDs never hold a slash,
 * so the text of a key ({@code <kind>/<node>/...}) is unambiguous.
 */
public sealed interface PodWorkerTimer extends TimerKey {

    /** The node of the pod or manager the timer is for. */
    String node();

    /** A container's preStop hook ends, or the deadline that cuts it short. */
    record PreStop(String node, String uid, String container) implements PodWorkerTimer {
        @Override
        public String id() {
            return String.join("/", "prestop", node, uid, container);
        }
    }

    /**
     * The end of a sidecar's wait for its turn to be stopped, bounded by the grace period
     * (kuberuntime_termination_order.go waitForTurn); the exits it waits for end it earlier.
     */
    record Turn(String node, String uid, String container) implements PodWorkerTimer {
        @Override
        public String id() {
            return String.join("/", "turn", node, uid, container);
        }
    }

    /** Housekeeping of a pod only the runtime knows (pkg/kubelet/kubelet.go HandlePodCleanups). */
    record Housekeeping(String node, String uid) implements PodWorkerTimer {
        @Override
        public String id() {
            return String.join("/", "housekeeping", node, uid);
        }
    }

    /** A cycle of a node's eviction manager (pkg/kubelet/eviction/eviction_manager.go synchronize). */
    record Eviction(String node) implements PodWorkerTimer {
        @Override
        public String id() {
            return String.join("/", "eviction", node);
        }
    }

    /** A container's crash-loop back-off ends. */
    record BackOff(String node, String uid, String container) implements PodWorkerTimer {
        @Override
        public String id() {
            return String.join("/", "backoff", node, uid, container);
        }
    }

    /**
     * A pod worker's wait for a pod cache newer than its last sync, before it syncs the terminating or the terminated
     * pod (pod_workers.go podWorkerLoop, GetNewerThan): the next relist of the node's PLEG.
     */
    record Sync(String node, String uid) implements PodWorkerTimer {
        @Override
        public String id() {
            return String.join("/", "sync", node, uid);
        }
    }

    /** The next relist of the node's PLEG, which sees what the runtime did to a running pod (pleg/generic.go). */
    record Relist(String node, String uid) implements PodWorkerTimer {
        @Override
        public String id() {
            return String.join("/", "relist", node, uid);
        }
    }

    /** The next run of the node's container garbage collector, which removes a deleted pod's sandbox. */
    record ContainerGc(String node, String uid, String namespace, String name) implements PodWorkerTimer {
        @Override
        public String id() {
            return String.join("/", "containergc", node, uid);
        }
    }

    /**
     * A probe worker's next run (pkg/kubelet/prober/worker.go run: its ticker, or a run the status manager asks for).
     */
    record Probe(String node, String uid, String container, String probe) implements PodWorkerTimer {
        @Override
        public String id() {
            return String.join("/", "probe", node, uid, container, probe);
        }
    }

    /**
     * The kill a failed liveness or startup probe asks for, once the pod worker may sync again (the PLEG's next relist
     * after its last sync, as any SyncPod waits for it).
     */
    record ProbeKill(String node, String uid, String container, String probe) implements PodWorkerTimer {
        @Override
        public String id() {
            return String.join("/", "probekill", node, uid, container, probe);
        }
    }
}
