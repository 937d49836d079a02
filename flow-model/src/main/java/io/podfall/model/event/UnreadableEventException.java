package io.podfall.model.event;

/** A record that is not a readable podfall event; the message is the reason written to the dead-letter topic. */
public class UnreadableEventException extends RuntimeException {
    public UnreadableEventException(String reason) {
        super(reason);
    }
}
