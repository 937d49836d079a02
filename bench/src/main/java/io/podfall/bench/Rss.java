package io.podfall.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process's memory as the kernel counts it: VmRSS (resident now) and VmHWM (the peak), from /proc/PID/status, and its
 * PSS (proportional set size) from /proc/PID/smaps_rollup: its resident pages, each shared one divided among the
 * processes that map it. RSS counts a shared page in every process: the JVM's own code and the JDK's class-data
 * archive, some 21 MB in each of the suite's five JVMs, so a sum of RSS counts them five times and a sum of PSS once.
 */
final class Rss {
    private Rss() {}

    /** {VmRSS, VmHWM, Pss} in bytes; -1 for each /proc cannot tell (not Linux, or the process is gone). */
    static long[] of(long pid) {
        Path proc = Path.of("/proc", Long.toString(pid));
        try {
            String status = Files.readString(proc.resolve("status"));
            return new long[] {field(status, "VmRSS:"), field(status, "VmHWM:"), pss(proc)};
        } catch (IOException e) {
            return new long[] {-1, -1, -1};
        }
    }

    private static long pss(Path proc) {
        try {
            return field(Files.readString(proc.resolve("smaps_rollup")), "Pss:");
        } catch (IOException e) {
            return -1;
        }
    }

    private static long field(String status, String name) {
        return status.lines()
                .filter(l -> l.startsWith(name))
                .findFirst()
                .map(l -> Long.parseLong(l.replaceAll("\\D", "")) * 1024)
                .orElse(-1L);
    }
}
