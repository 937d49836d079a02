package io.podfall.controller;

import io.podfall.model.core.Core;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCatalogue;

import java.time.Instant;
import java.util.List;

/**
 * The controller manager: runs every controller over the same event, in a fixed order, and concatenates their
 * effects. The controllers share nothing but the log: each has its own state and sees every event the manager
 * reads, as each upstream controller has its own informers over the same API server.
 *
 * <p>Invariants: the controllers run in the order they were given, so the effects of one event are always in the
 * same order; all effects of one event (or timer) come from one {@link Effects.Builder}, so their ids are distinct
 * even when two controllers emit with the same source.
 */
public final class ControllerManager implements Core<ControllerManagerState> {
    private static final String APISERVER = "apiserver";
    private final List<Controller<?>> controllers;

    public ControllerManager(List<Controller<?>> controllers) {
        this.controllers = List.copyOf(controllers);
    }

    @Override
    public ControllerManagerState newState() {
        return new ControllerManagerState(controllers);
    }

    @Override
    public Effects handle(ControllerManagerState state, Event event, Instant now) {
        Effects.Builder effects = Effects.of(event, now);
        state.running().forEach(c -> c.handle(event, effects));
        return effects.build();
    }

    /**
     * The API server's facts: what it stored, as the manager's informers watch it, and what it refused of the
     * manager's own requests. The kubelets' and runtimes' conversations never reach a kube-controller-manager.
     */
    @Override
    public boolean reads(String type) {
        return APISERVER.equals(EventCatalogue.owner(type)) && !EventCatalogue.isRequest(type);
    }

    @Override
    public Effects fire(ControllerManagerState state, Timer timer, Instant now) {
        Effects.Builder effects = Effects.of(timer, now);
        state.running().forEach(c -> c.fire(timer, effects));
        return effects.build();
    }
}
