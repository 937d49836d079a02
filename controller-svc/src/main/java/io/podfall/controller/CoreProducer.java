package io.podfall.controller;

import io.podfall.controller.deployment.DeploymentController;
import io.podfall.controller.endpoint.EndpointsController;
import io.podfall.controller.garbagecollector.GarbageCollector;
import io.podfall.controller.namespace.NamespaceController;
import io.podfall.controller.nodelifecycle.NodeLifecycleController;
import io.podfall.controller.replicaset.ReplicaSetController;
import io.podfall.controller.scheduler.Scheduler;
import io.podfall.model.core.Core;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.Duration;
import java.util.List;

/** Gives the flow adapter this service's core: the controller manager with its controllers. */
@ApplicationScoped
public class CoreProducer {

    @Produces
    @Singleton
    @SuppressWarnings("rawtypes")
    Core core(@ConfigProperty(name = "podfall.controller.node-monitor-grace-period-seconds",
            defaultValue = "" + NodeLifecycleController.DEFAULT_GRACE_PERIOD_SECONDS) long nodeMonitorGracePeriodSeconds) {
        return controllerManager(Duration.ofSeconds(nodeMonitorGracePeriodSeconds));
    }

    /** The core as this service runs it; the replay engine (flow-replay) runs the same one. */
    public static ControllerManager controllerManager(Duration nodeMonitorGracePeriod) {
        return new ControllerManager(List.of(new Scheduler(), new ReplicaSetController(), new DeploymentController(),
                new GarbageCollector(), new EndpointsController(), new NamespaceController(),
                new NodeLifecycleController(nodeMonitorGracePeriod)));
    }
}
