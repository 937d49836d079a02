package io.podfall.cli;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A progress line on a terminal while a command reads a long log: how far it is (bytes of a file, records of a topic)
 * and how many events it has read, redrawn in place at most every {@link #EVERY_NANOS}, and replaced by a summary when
 * done. Commands show it on standard error only on a terminal, or when asked, so piped or redirected output never
 * carries it.
 */
final class Progress {
    static final long EVERY_NANOS = 200_000_000L;

    private final PrintWriter err;
    private final String what;
    private final long total;
    private final LongSupplier clock;
    private final long started;
    private LongSupplier done;
    private long events;
    private long shown;

    /**
     * @param total how much there is to read, in the unit of {@link #measuring}, or 0 when unknown
     * @param clock nanoseconds, as {@link System#nanoTime()}
     */
    Progress(PrintWriter err, String what, long total, LongSupplier clock) {
        this.err = err;
        this.what = what;
        this.total = total;
        this.clock = clock;
        this.started = clock.getAsLong();
        this.shown = started;
        this.done = () -> events;
    }

    /** How far reading is, in the unit of the total; by default the events read. */
    Progress measuring(LongSupplier done) {
        this.done = done;
        return this;
    }

    /** One event read; redraws the line when it is due. */
    void event() {
        events++;
        long now = clock.getAsLong();
        if (now - shown >= EVERY_NANOS) {
            shown = now;
            long d = done.getAsLong();
            err.printf(
                    Locale.ROOT,
                    "\rpodfall: reading %s: %s%,d events",
                    what,
                    total > 0 ? Math.min(100, d * 100 / total) + "%, " : "",
                    events);
            err.flush();
        }
    }

    /** Replaces the line by what was read and how fast. */
    void finish() {
        double seconds = (clock.getAsLong() - started) / 1e9;
        err.printf(
                Locale.ROOT,
                "\rpodfall: read %,d events of %s in %.1f s (%,.0f events/s)%n",
                events,
                what,
                seconds,
                seconds > 0 ? events / seconds : 0.0);
        err.flush();
    }

    /** A stream that counts the bytes read through it: how far a file has been read. */
    static final class CountingInputStream extends FilterInputStream {
        private long count;

        CountingInputStream(InputStream in) {
            super(in);
        }

        long count() {
            return count;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            count += b < 0 ? 0 : 1;
            return b;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            int n = super.read(buf, off, len);
            count += Math.max(n, 0);
            return n;
        }
    }
}
