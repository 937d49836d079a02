package io.podfall.bench;

import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What every workload takes: where the checkout and the run's files are, JVM options for the services, --json. */
final class RunOptions {
    @Option(names = "--project", defaultValue = ".", description = "the podfall checkout whose packaged services to run (default: ${DEFAULT-VALUE})")
    Path project;

    @Option(names = "--work-dir", defaultValue = "bench/target/run",
            description = "broker data, service logs and recorded logs, a directory a workload (default: ${DEFAULT-VALUE})")
    Path workDir;

    @Option(names = "--service-jvm-option", paramLabel = "OPTION",
            description = "a JVM option for every service, after the suite's -Xmx256m -XX:+UseSerialGC (e.g. -Xmx1g); repeatable")
    List<String> serviceJvmOptions = new ArrayList<>();

    @Option(names = "--json", description = "print the figures as JSON instead of tables")
    boolean json;
}
