package io.podfall.runtime;

import io.podfall.model.event.Event;
import java.util.Optional;

/** Reading the kubelet's requests to the node: a request whose data does not fit its type is nothing to act on. */
public final class Requests {
    private Requests() {}

    /** The request's data, or empty when it does not fit the payload type: the node never throws on its input. */
    public static <T> Optional<T> read(Event event, Class<T> payloadType) {
        try {
            return Optional.ofNullable(event.data(payloadType));
        } catch (IllegalArgumentException unreadable) {
            return Optional.empty();
        }
    }
}
