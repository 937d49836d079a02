package io.podfall.kubelet.podworkers;

import io.podfall.model.core.TimerKey;

/**
 * The timers of the pod workers and the managers that act through them. Kubernetes names and UIDs never hold a slash,
 * so the text of a key ({@code <kind>/<node>/...}) is unambiguous.
 */
public sealed interface PodWorkerTimer extends TimerKey {

    /** A container's preStop hook ends, or the deadline that cuts it short. */
    record PreStop(String node, String uid, String container) implements PodWorkerTimer {
        @Override
        public String id() {
            return String.join("/", "prestop", node, uid, container);
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
}
