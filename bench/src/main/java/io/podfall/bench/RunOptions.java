package io.podfall.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** What every workload takes: where the checkout and the run's files are, JVM options for the services, --json. */
final class RunOptions {
    @Option(
            names = "--project",
            defaultValue = ".",
            description = "the podfall checkout whose packaged services to run (default: ${DEFAULT-VALUE})")
    Path project;

    @Option(
            names = "--work-dir",
            defaultValue = "bench/target/run",
            description =
                    "broker data, service logs and recorded logs, a directory a workload (default: ${DEFAULT-VALUE})")
    Path workDir;

    @Option(
            names = "--service-jvm-option",
            paramLabel = "OPTION",
            description =
                    "a JVM option for every service, after the suite's -Xmx256m -XX:+UseSerialGC and the workload's "
                            + "heap (-Xms256m, capped at 256 MB + 40 KB a replica in p2 and p4); -Xmx here replaces both, -Xms "
                            + "the start, -XX:+Use...GC the serial collector; repeatable")
    List<String> serviceJvmOptions = new ArrayList<>();

    @Option(
            names = "--jfr",
            description = "record each service with JFR (settings=profile) into WORK-DIR/WORKLOAD/jfr/, "
                    + "one file a process, written when the workload stops the suite")
    boolean jfr;

    @Option(names = "--json", description = "print the figures as JSON instead of tables")
    boolean json;

    /** The services' JVM options for a workload's suite in {@code workDir}. */
    List<String> serviceJvmOptions(Path workDir) {
        List<String> options = new ArrayList<>(serviceJvmOptions);
        if (jfr) {
            // a directory: each JVM names its own file in it
            options.add("-XX:StartFlightRecording=dumponexit=true,settings=profile,filename=" + workDir.resolve("jfr")
                    + "/");
        }
        return options;
    }
}
