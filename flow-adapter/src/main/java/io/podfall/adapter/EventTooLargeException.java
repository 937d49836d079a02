package io.podfall.adapter;

import io.podfall.model.event.EventCodec;

/**
 * An event whose data is over {@link EventCodec#MAX_DATA_BYTES}: not appended, since every reader would refuse it. The
 * API server answers the request that would have made it with a 413.
 */
public class EventTooLargeException extends IllegalArgumentException {
    private final int size;

    public EventTooLargeException(String type, int size) {
        super(type + " of " + size + " bytes is over the log's limit of " + EventCodec.MAX_DATA_BYTES);
        this.size = size;
    }

    public int size() {
        return size;
    }
}
