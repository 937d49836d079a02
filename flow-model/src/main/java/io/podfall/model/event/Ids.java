package io.podfall.model.event;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * Deterministic identifiers. Cores never draw random numbers: every id they mint is a name-based UUID of the input that
 * caused it, so the same input yields the same id in a live run, after a restart and in a replay.
 */
public final class Ids {
    private Ids() {}

    public static String derived(String... parts) {
        return UUID.nameUUIDFromBytes(String.join("\u001f", parts).getBytes(StandardCharsets.UTF_8))
                .toString();
    }

    public static String derived(String causeId, String source, int seq) {
        return derived(causeId, source, Integer.toString(seq));
    }
}
