package io.podfall.controller;

import io.podfall.model.core.TimerKey;
import java.util.Locale;

/** An owner ({@code <namespace>/<name>}) of a controller is due a sync, for a {@link Purpose}. */
public record SyncTimer(String controller, Purpose purpose, String owner) implements TimerKey {

    public enum Purpose {
        /** The owner's backoff after a refused request ends. */
        RETRY,
        /** The oldest request in flight times out (pkg/controller/controller_utils.go ExpectationsTimeout). */
        EXPECTATIONS,
        /** A ReplicaSet's pod becomes available after minReadySeconds. */
        AVAILABLE,
        /** A PodDisruptionBudget's disrupted pod expires (pkg/controller/disruption's recheckQueue). */
        RECHECK
    }

    /** {@code <controller>/<purpose>/<namespace>/<name>}. */
    @Override
    public String id() {
        return controller + "/" + purpose.name().toLowerCase(Locale.ROOT) + "/" + owner;
    }
}
