package io.podfall.controller;

import io.podfall.model.core.CompositeCore;
import io.podfall.model.core.Part;
import io.podfall.model.event.EventCatalogue;
import java.util.List;

/**
 * The controller manager (upstream {@code cmd/kube-controller-manager}: many controllers in one process, each watching
 * the same API): runs every controller over the same event, in a fixed order, on one builder. The controllers share
 * nothing but the log: each has its own state and sees every event the manager reads, as each upstream controller has
 * its own informers over the same API server.
 */
public final class ControllerManager extends CompositeCore {
    private static final String APISERVER = "apiserver";

    public ControllerManager(List<? extends Part<?>> controllers) {
        super(controllers);
    }

    /**
     * The API server's facts: what it stored, as the manager's informers watch it, and what it refused of the manager's
     * own requests. The kubelets' and runtimes' conversations never reach a kube-controller-manager.
     */
    @Override
    public boolean reads(String type) {
        return APISERVER.equals(EventCatalogue.owner(type)) && !EventCatalogue.isRequest(type);
    }
}
