package io.podfall.model;

import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * JSON that a service holds of many objects, kept plain while it is written often and compressed
 * ({@link CompressedJson}) once it has gone unwritten for a while: most of a cluster's objects rest most of the time,
 * and a running pod's 1.6 KB take some 300 bytes compressed. Time is the caller's ({@code now} of each hold, the time
 * of the write), so what is compressed when depends only on the log, and a replay holds the same.
 *
 * <p>Resting by time, not by count: compressing the JSON used least recently beyond a count made nearly every write of
 * a mass deletion decompress and compress again (at 100,000 pods in flight, every pod is among the oldest). Here a
 * pod's writes, which come close together while it starts and again while it is deleted, find it plain, and it is
 * compressed about once between the two.
 *
 * <p>Not thread-safe: its owner guards it.
 */
public final class CompressedAtRest {
    private final Duration rest;
    /** The JSON held plain, by the time it was held, oldest first: each is compressed once it has rested. */
    private final LinkedHashMap<Held, Instant> plain = new LinkedHashMap<>();

    /** JSON held for {@code rest} before it is compressed. */
    public CompressedAtRest(Duration rest) {
        this.rest = rest;
    }

    /** Holds {@code json}, written at {@code now}, and compresses what has rested since. */
    public Held hold(byte[] json, Instant now) {
        Held held = new Held(json);
        plain.put(held, now);
        Instant restedSince = now.minus(rest);
        for (Iterator<Map.Entry<Held, Instant>> oldest = plain.entrySet().iterator(); oldest.hasNext(); ) {
            Map.Entry<Held, Instant> entry = oldest.next();
            if (entry.getValue().isAfter(restedSince)) {
                break;
            }
            entry.getKey().compress();
            oldest.remove();
        }
        return held;
    }

    /** The owner no longer holds it (replaced or removed): it is not compressed. */
    public void release(Held held) {
        plain.remove(held);
    }

    /** One JSON held: its bytes, compressed once it rests. Equal only to itself. */
    public static final class Held {
        private byte[] json;
        private boolean compressed;

        private Held(byte[] json) {
            this.json = json;
        }

        private void compress() {
            json = CompressedJson.compress(json);
            compressed = true;
        }

        /** The JSON as held: the very bytes while plain, a new array once compressed. */
        public byte[] json() {
            return compressed ? CompressedJson.decompress(json) : json;
        }

        public boolean isCompressed() {
            return compressed;
        }

        /** Whether it holds these very bytes, not yet compressed: another holder of them may keep this one instead. */
        public boolean holds(byte[] json) {
            return this.json == json;
        }
    }
}
