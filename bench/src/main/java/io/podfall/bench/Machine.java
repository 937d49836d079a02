package io.podfall.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.model.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * The machine a workload ran on and how busy it was: figures mean little without it. The load average is read at the
 * start and at the end, since other work on the machine changes while a workload runs.
 */
public record Machine(
        String date, int cpus, String cpuModel, long memoryMb, String jvm, String os, String loadAtStart) {

    public static Machine now() {
        return new Machine(
                ZonedDateTime.now().truncatedTo(ChronoUnit.SECONDS).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME),
                Runtime.getRuntime().availableProcessors(),
                readCpuModel(),
                readMemoryMb(),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                System.getProperty("os.name") + " " + System.getProperty("os.version"),
                loadAverage());
    }

    /** The 1, 5 and 15 minute load averages, as /proc/loadavg has them. */
    public static String loadAverage() {
        return read("/proc/loadavg")
                .map(s -> String.join(" ", Arrays.copyOf(s.trim().split("\\s+"), 3)))
                .orElse("?");
    }

    public String line() {
        return String.format(
                Locale.ROOT,
                "%s; %d CPUs (%s), %,d MB; %s; %s; load %s at start, %s at end",
                date,
                cpus,
                cpuModel,
                memoryMb,
                jvm,
                os,
                loadAtStart,
                loadAverage());
    }

    public ObjectNode json() {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("date", date)
                .put("cpus", cpus)
                .put("cpuModel", cpuModel)
                .put("memoryMb", memoryMb)
                .put("java", jvm)
                .put("os", os)
                .put("loadAtStart", loadAtStart)
                .put("loadAtEnd", loadAverage());
        return o;
    }

    private static String readCpuModel() {
        return read("/proc/cpuinfo")
                .flatMap(s -> s.lines().filter(l -> l.startsWith("model name")).findFirst())
                .map(l -> l.substring(l.indexOf(':') + 1).trim())
                .orElse(System.getProperty("os.arch"));
    }

    private static long readMemoryMb() {
        return read("/proc/meminfo")
                .flatMap(s -> s.lines().filter(l -> l.startsWith("MemTotal:")).findFirst())
                .map(l -> Long.parseLong(l.replaceAll("\\D", "")) / 1024)
                .orElse(0L);
    }

    private static Optional<String> read(String file) {
        try {
            return Optional.of(Files.readString(Path.of(file)));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
