package io.podfall.controller.podgc;

import io.podfall.model.core.TimerKey;

/** The pod GC's next pass (gcCheckPeriod). */
record PodGCTimer() implements TimerKey {

    @Override
    public String id() {
        return "podgc";
    }
}
