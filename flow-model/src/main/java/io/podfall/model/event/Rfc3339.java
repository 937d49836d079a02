package io.podfall.model.event;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * RFC 3339 timestamps in UTC as {@link Instant#toString} writes them ({@code 2026-11-30T07:25:01.123456789Z}, the
 * fraction of 0 to 9 digits), read by position; any other form by {@link Instant#parse}. Every record read carries one
 * ({@code ce_time}), and {@code Instant.parse}'s general formatter was a tenth of a service's CPU.
 */
public final class Rfc3339 {
    private static final int SECONDS_END = 19;
    private static final int LONGEST = SECONDS_END + 1 + 9 + 1;
    private static final int[] NANOS_PER_DIGIT = {100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100, 10, 1
    };

    private Rfc3339() {}

    /** @throws java.time.format.DateTimeParseException as {@link Instant#parse} does, when it is not a timestamp */
    public static Instant parse(String s) {
        int n = s.length();
        if (n < SECONDS_END + 1
                || n > LONGEST
                || n == SECONDS_END + 2
                || s.charAt(n - 1) != 'Z'
                || s.charAt(4) != '-'
                || s.charAt(7) != '-'
                || s.charAt(10) != 'T'
                || s.charAt(13) != ':'
                || s.charAt(16) != ':'
                || (n > SECONDS_END + 1 && s.charAt(SECONDS_END) != '.')) {
            return Instant.parse(s);
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 7);
        int day = digits(s, 8, 10);
        int hour = digits(s, 11, 13);
        int minute = digits(s, 14, 16);
        int second = digits(s, 17, SECONDS_END);
        int nanos = 0;
        for (int i = SECONDS_END + 1; i < n - 1; i++) {
            int d = digit(s.charAt(i));
            if (d < 0) {
                return Instant.parse(s);
            }
            nanos += d * NANOS_PER_DIGIT[i - SECONDS_END - 1];
        }
        // a leap second (:60) and anything out of range are left to the general parser, which says why
        if ((year | month | day | hour | minute | second) < 0 || hour > 23 || minute > 59 || second > 59) {
            return Instant.parse(s);
        }
        long epochDay;
        try {
            epochDay = LocalDate.of(year, month, day).toEpochDay();
        } catch (DateTimeException invalidDate) {
            return Instant.parse(s);
        }
        return Instant.ofEpochSecond(epochDay * 86_400 + hour * 3_600L + minute * 60L + second, nanos);
    }

    /** The number the digits from {@code from} to {@code to} write, or -1 if one is not a digit. */
    private static int digits(String s, int from, int to) {
        int v = 0;
        for (int i = from; i < to; i++) {
            int d = digit(s.charAt(i));
            if (d < 0) {
                return -1;
            }
            v = v * 10 + d;
        }
        return v;
    }

    private static int digit(char c) {
        return c >= '0' && c <= '9' ? c - '0' : -1;
    }
}
