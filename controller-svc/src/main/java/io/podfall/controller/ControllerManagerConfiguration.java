package io.podfall.controller;

import io.podfall.controller.deployment.DeploymentController;
import io.podfall.controller.disruption.DisruptionController;
import io.podfall.controller.endpoint.EndpointsController;
import io.podfall.controller.garbagecollector.GarbageCollector;
import io.podfall.controller.namespace.NamespaceController;
import io.podfall.controller.nodelifecycle.NodeLifecycleController;
import io.podfall.controller.podgc.PodGCController;
import io.podfall.controller.replicaset.ReplicaSetController;
import io.podfall.controller.scheduler.Scheduler;
import io.podfall.controller.tainteviction.TaintEvictionController;
import java.time.Duration;
import java.util.List;

/**
 * The controller manager's settings, as upstream's KubeControllerManagerConfiguration: the one place its core is built,
 * so the service and the replay engine run the same one.
 *
 * @param nodeMonitorGracePeriod {@code podfall.controller.node-monitor-grace-period-seconds}, upstream's
 *     {@code --node-monitor-grace-period}
 * @param terminatedPodGcThreshold {@code podfall.controller.terminated-pod-gc-threshold}, upstream's
 *     {@code --terminated-pod-gc-threshold} (0: no limit)
 */
public record ControllerManagerConfiguration(Duration nodeMonitorGracePeriod, int terminatedPodGcThreshold) {
    /** Upstream's defaults. */
    public static final ControllerManagerConfiguration DEFAULTS = new ControllerManagerConfiguration(
            Duration.ofSeconds(NodeLifecycleController.DEFAULT_GRACE_PERIOD_SECONDS),
            PodGCController.DEFAULT_THRESHOLD);

    /**
     * The core as the service runs it; the service's ControllerManagerProducer and the replay engine both call this.
     */
    public ControllerManager newControllerManager() {
        return new ControllerManager(List.of(
                new Scheduler(),
                new ReplicaSetController(),
                new DeploymentController(),
                new GarbageCollector(),
                new EndpointsController(),
                new NamespaceController(),
                new NodeLifecycleController(nodeMonitorGracePeriod),
                new TaintEvictionController(),
                new PodGCController(terminatedPodGcThreshold),
                new DisruptionController()));
    }
}
