package io.podfall.bench;

import java.util.Locale;

/**
 * What a long workload is doing, on standard error (the tables go to standard output): a line at most every two
 * seconds, with the seconds since the harness started.
 */
final class ProgressLines {
    private static final long START = System.nanoTime();
    private static final long EVERY_NANOS = 2_000_000_000L;
    private static long shown;

    private ProgressLines() {}

    /** A line now, whatever came before. */
    static synchronized void say(String format, Object... args) {
        shown = System.nanoTime();
        System.err.printf(
                Locale.ROOT, "[%6.1f s] %s%n", (shown - START) / 1e9, String.format(Locale.ROOT, format, args));
    }

    /** A line if none came in the last two seconds. */
    static synchronized void line(String format, Object... args) {
        if (System.nanoTime() - shown >= EVERY_NANOS) {
            say(format, args);
        }
    }
}
