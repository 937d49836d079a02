package io.podfall.controller;

import io.podfall.controller.deployment.DeploymentController;
import io.podfall.controller.endpoint.EndpointsController;
import io.podfall.controller.garbagecollector.GarbageCollector;
import io.podfall.controller.namespace.NamespaceController;
import io.podfall.controller.replicaset.ReplicaSetController;
import io.podfall.controller.scheduler.Scheduler;
import io.podfall.model.core.Core;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.util.List;

/** Gives the flow adapter this service's core: the controller manager with its controllers. */
@ApplicationScoped
public class CoreProducer {

    @Produces
    @Singleton
    @SuppressWarnings("rawtypes")
    Core core() {
        return controllerManager();
    }

    /** The core as this service runs it; the replay engine (flow-replay) runs the same one. */
    public static ControllerManager controllerManager() {
        return new ControllerManager(List.of(new Scheduler(), new ReplicaSetController(), new DeploymentController(),
                new GarbageCollector(), new EndpointsController(), new NamespaceController()));
    }
}
