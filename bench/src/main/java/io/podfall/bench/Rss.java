package io.podfall.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A process's memory as the kernel counts it: VmRSS (resident now) and VmHWM (the peak), from /proc/PID/status. */
final class Rss {
    private Rss() {
    }

    /** {VmRSS, VmHWM} in bytes; {-1, -1} where /proc cannot tell (not Linux, or the process is gone). */
    static long[] of(long pid) {
        try {
            String status = Files.readString(Path.of("/proc", Long.toString(pid), "status"));
            return new long[] {field(status, "VmRSS:"), field(status, "VmHWM:")};
        } catch (IOException e) {
            return new long[] {-1, -1};
        }
    }

    private static long field(String status, String name) {
        return status.lines().filter(l -> l.startsWith(name)).findFirst()
                .map(l -> Long.parseLong(l.replaceAll("\\D", "")) * 1024).orElse(-1L);
    }
}
