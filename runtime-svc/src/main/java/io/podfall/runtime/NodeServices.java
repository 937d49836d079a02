package io.podfall.runtime;

import io.podfall.model.core.Core;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCatalogue;
import io.podfall.runtime.cri.ContainerRuntime;
import io.podfall.runtime.cri.RuntimeState;
import io.podfall.runtime.csi.CsiNodePlugin;
import io.podfall.runtime.csi.CsiState;
import io.podfall.runtime.csi.UnpublishTimer;

import java.time.Instant;
import java.util.Set;

/**
 * What runs on every node beside the kubelet and answers its calls: the container runtime (CRI, with CNI inside
 * RunPodSandbox and StopPodSandbox) and the CSI node plugins, which the kubelet calls directly. Each has its own
 * state and vocabulary: {@code csi.*} requests and the plugin's timers ({@link UnpublishTimer}) go to
 * the plugin, everything else to the runtime. They share nothing, so no event is handled by both.
 */
public final class NodeServices implements Core<NodeServices.State> {

    /** The runtime's state beside the plugin's. */
    public record State(RuntimeState runtime, CsiState csi) {
    }

    private static final String CSI_TYPE_PREFIX = "csi.";
    /** The vocabularies of the calls they answer. */
    private static final Set<String> ANSWERS = Set.of("runtime", "csi");

    private final ContainerRuntime runtime;
    private final CsiNodePlugin csi;

    public NodeServices(ContainerRuntime runtime, CsiNodePlugin csi) {
        this.runtime = runtime;
        this.csi = csi;
    }

    @Override
    public State newState() {
        return new State(runtime.newState(), csi.newState());
    }

    @Override
    public Effects handle(State state, Event event, Instant now) {
        return event.type().startsWith(CSI_TYPE_PREFIX)
                ? csi.handle(state.csi(), event, now)
                : runtime.handle(state.runtime(), event, now);
    }

    /** The CRI and CSI calls made to them; their own facts are their effects, and nothing else reaches them. */
    @Override
    public boolean reads(String type) {
        return EventCatalogue.isRequest(type) && ANSWERS.contains(EventCatalogue.owner(type));
    }

    @Override
    public Effects fire(State state, Timer timer, Instant now) {
        return timer.key() instanceof UnpublishTimer
                ? csi.fire(state.csi(), timer, now)
                : runtime.fire(state.runtime(), timer, now);
    }
}
