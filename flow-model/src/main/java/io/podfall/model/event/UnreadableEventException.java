package io.podfall.model.event;

import java.util.Locale;

/**
 * A record that is not a readable podfall event; the message is the reason written to the dead-letter topic, the
 * {@link Kind} the few words a metric counts it by. An IllegalArgumentException, so that a core that answers bad data
 * itself (the registry's 400 for a request it cannot read) still catches {@link Event#data} failing; what a core lets
 * through, the adapter dead-letters.
 */
public class UnreadableEventException extends IllegalArgumentException {

    /** What is wrong with the record, coarse enough to be a metric's tag. */
    public enum Kind {
        /** Not a CloudEvent of this contract: headers missing or of another version, data not JSON. */
        NOT_AN_EVENT,
        /** The data is larger than an event may be. */
        OVERSIZED,
        /** A type the catalogue does not have. */
        UNKNOWN_TYPE,
        /** A source that does not own the type: a component claiming another's facts. */
        WRONG_SOURCE,
        /** The data does not read as the payload of its type. */
        BAD_DATA;

        /** The tag value: {@code not-an-event}, {@code unknown-type}, … */
        public String tag() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    private final Kind kind;

    /** A record that is not an event of this contract at all ({@link Kind#NOT_AN_EVENT}). */
    public UnreadableEventException(String reason) {
        this(Kind.NOT_AN_EVENT, reason);
    }

    public UnreadableEventException(Kind kind, String reason) {
        super(reason);
        this.kind = kind;
    }

    public UnreadableEventException(Kind kind, String reason, Throwable cause) {
        super(reason, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
