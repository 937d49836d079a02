package io.podfall.replay;

/** How long, in a replay, an event takes to reach the log and each service to read it ({@link Latencies}). */
public enum Latency {
    /**
     * As recorded, for every event the recording holds: it reaches the log in the recording's order, and each service
     * reads it at the delay after its time at which that service reacted to it in the recording. The rest (an event the
     * recording lacks, one a service read without reacting to it) as {@link #MODEL}. The default: a replay then
     * resolves every race as the recording did.
     */
    RECORDED,
    /**
     * From a model fitted on the recording: a service reads an event of a type at the median delay after which it
     * reacted to that type in the recording (or to any type, if never to that one).
     */
    MODEL,
    /** None: the clock stands still while anything is undelivered, and every race resolves in the engine's order. */
    ZERO
}
