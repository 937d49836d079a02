package io.podfall.runtime.cri;

import io.podfall.model.core.TimerKey;
import java.util.Locale;

/**
 * A deadline of one container the runtime runs: its process exits on its own, SIGKILL ends it, or its run ends. The key
 * names the latest attempt of the container; a timer left from an earlier one is stale by its instant.
 */
record ContainerTimer(Kind kind, String node, String podUid, String container) implements TimerKey {

    enum Kind {
        /** The process exits on its own after a signal (its SIGTERM handler returns). */
        EXIT,
        /** The stop's grace period ends: SIGKILL. */
        KILL,
        /** A container that runs to completion ends. */
        RUN
    }

    static ContainerTimer of(Kind kind, String node, PodSandbox sandbox, Container c) {
        return new ContainerTimer(kind, node, sandbox.podUid(), c.name());
    }

    /** {@code <kind>/<node>/<podUid>/<container>}: Kubernetes names and UIDs never hold a slash. */
    @Override
    public String id() {
        return String.join("/", kind.name().toLowerCase(Locale.ROOT), node, podUid, container);
    }
}
