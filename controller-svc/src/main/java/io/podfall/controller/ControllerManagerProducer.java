package io.podfall.controller;

import io.podfall.controller.nodelifecycle.NodeLifecycleController;
import io.podfall.controller.podgc.PodGCController;
import io.podfall.model.core.Core;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Gives the flow adapter this service's core: the controller manager with its controllers. */
@ApplicationScoped
public class ControllerManagerProducer {

    @Produces
    @Singleton
    @SuppressWarnings("rawtypes")
    Core core(
            @ConfigProperty(
                            name = "podfall.controller.node-monitor-grace-period-seconds",
                            defaultValue = "" + NodeLifecycleController.DEFAULT_GRACE_PERIOD_SECONDS)
                    long nodeMonitorGracePeriodSeconds,
            @ConfigProperty(
                            name = "podfall.controller.terminated-pod-gc-threshold",
                            defaultValue = "" + PodGCController.DEFAULT_THRESHOLD)
                    int terminatedPodGcThreshold) {
        return new ControllerManagerConfiguration(
                        Duration.ofSeconds(nodeMonitorGracePeriodSeconds), terminatedPodGcThreshold)
                .newControllerManager();
    }
}
