package io.podfall.bench;

import io.podfall.model.Json;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The benchmarks of issue #9, one subcommand a workload, each printing its tables (or --json) with the machine it ran
 * on; exit 1 when a workload's correctness checks failed, whatever its figures.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = "podfall's benchmarks: each workload starts its own suite (a broker and the four services, as "
                + "`podfall up` does), measures, checks that what it measured was done right, and prints a table.",
        subcommands = {
            Bench.P1.class,
            Bench.P2.class,
            Bench.CeilingCommand.class,
            Bench.P3.class,
            Bench.P4.class,
            Bench.Footprint.class,
            Bench.Startup.class,
            Bench.All.class
        },
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {
            "0:measured, every correctness check passed (targets may be missed: see the tables)",
            "1:a correctness check failed",
            "2:bad options",
            "3:the workload could not run"
        })
public final class Bench {
    private Bench() {}

    public static void main(String[] args) {
        System.exit(new CommandLine(new Bench())
                .setExecutionExceptionHandler((e, cmd, parsed) -> {
                    cmd.getErr().println("bench: " + e.getMessage());
                    if (e instanceof IllegalArgumentException) {
                        return 2;
                    }
                    e.printStackTrace(cmd.getErr());
                    return 3;
                })
                .execute(args));
    }

    /** Prints the reports and returns the exit code. */
    static int print(RunOptions run, List<Report> reports) {
        if (run.json) {
            var array = Json.MAPPER.createArrayNode();
            reports.forEach(r -> array.add(r.json()));
            System.out.println(array.toPrettyString());
        } else {
            reports.forEach(r -> System.out.println(r.text()));
        }
        return reports.stream().allMatch(Report::correct) ? 0 : 1;
    }

    @Command(
            name = "p1",
            mixinStandardHelpOptions = true,
            description =
                    "single-pod latency: sequential deletions, DELETE → DELETED watch event, and the share of each hop")
    static final class P1 implements Callable<Integer> {
        @Mixin
        RunOptions run;

        @Option(
                names = "--deletions",
                defaultValue = "1000",
                description = "how many are measured (default: ${DEFAULT-VALUE})")
        int deletions;

        @Option(
                names = "--warmup",
                defaultValue = LatencyBench.DEFAULT_WARMUP,
                description = "deletions before those, while the services' JIT compilers warm up: reported apart, "
                        + "not held to the target (default: ${DEFAULT-VALUE})")
        int warmup;

        @Override
        public Integer call() {
            return print(run, List.of(new LatencyBench(run, deletions, warmup).run()));
        }
    }

    /** P2's and P4's options. */
    static final class Mass {
        @Option(
                names = "--time-scale",
                defaultValue = "1",
                description =
                        "simulated seconds per wall second (default: ${DEFAULT-VALUE}: the processes exit at once on "
                                + "SIGTERM, so no grace period is waited out; a larger scale shrinks every timeout of the "
                                + "controllers too, the ReplicaSet's 5 min expectations to 3 s at 100, which a loaded machine then "
                                + "hits); the nodes' heartbeats are stretched by it")
        double timeScale;

        @Option(
                names = "--check-log-up-to",
                defaultValue = "1000000",
                description =
                        "run podfall check over the recorded log when it has at most this many events (default: ${DEFAULT-VALUE})")
        long checkLogUpTo;
    }

    @Command(
            name = "p2",
            mixinStandardHelpOptions = true,
            description =
                    "mass deletion: a Deployment deleted with --cascade=foreground, then the raw Kafka ceiling of the same broker")
    static final class P2 implements Callable<Integer> {
        @Mixin
        RunOptions run;

        @Mixin
        Mass mass;

        @Option(names = "--replicas", defaultValue = "10000", description = "(default: ${DEFAULT-VALUE})")
        int replicas;

        @Option(names = "--nodes", defaultValue = "100", description = "(default: ${DEFAULT-VALUE})")
        int nodes;

        @Option(
                names = "--ceiling-records",
                defaultValue = "-1",
                description =
                        "records the ceiling sends (default: as many as the deletion appended, at least 10,000; 0: no ceiling)")
        long ceilingRecords;

        @Option(
                names = "--pings",
                defaultValue = "1000",
                description = "the ceiling's records one at a time (default: ${DEFAULT-VALUE})")
        int pings;

        @Option(
                names = "--warmup",
                defaultValue = "-1",
                description =
                        "replicas of a Deployment created and deleted alike first, while the services' JIT compilers "
                                + "warm up; reported apart (default: as many as --replicas; 0: the deletion runs on a fresh suite)")
        int warmup;

        @Override
        public Integer call() {
            return print(
                    run,
                    new MassDeletionBench(
                                    run,
                                    "p2",
                                    replicas,
                                    nodes,
                                    mass.timeScale,
                                    mass.checkLogUpTo,
                                    ceilingRecords,
                                    pings,
                                    warmup)
                            .run());
        }
    }

    @Command(
            name = "p4",
            mixinStandardHelpOptions = true,
            description =
                    "memory: RSS of each service and the broker with a Deployment's pods held, and after its deletion")
    static final class P4 implements Callable<Integer> {
        @Mixin
        RunOptions run;

        @Mixin
        Mass mass;

        @Option(names = "--replicas", defaultValue = "100000", description = "(default: ${DEFAULT-VALUE})")
        int replicas;

        @Option(names = "--nodes", defaultValue = "1000", description = "(default: ${DEFAULT-VALUE})")
        int nodes;

        @Override
        public Integer call() {
            return print(
                    run,
                    new MassDeletionBench(run, "p4", replicas, nodes, mass.timeScale, mass.checkLogUpTo, 0, 0, 0)
                            .run());
        }
    }

    @Command(
            name = "ceiling",
            mixinStandardHelpOptions = true,
            description =
                    "the raw Kafka ceiling on a broker of its own, with synthetic records of the suite's shape (p2 measures it on its own broker)")
    static final class CeilingCommand implements Callable<Integer> {
        @Mixin
        RunOptions run;

        @Option(names = "--records", defaultValue = "100000", description = "(default: ${DEFAULT-VALUE})")
        long records;

        @Option(
                names = "--size",
                defaultValue = "1500",
                description = "bytes of each record's value (default: ${DEFAULT-VALUE})")
        int size;

        @Option(
                names = "--pings",
                defaultValue = "1000",
                description = "records one at a time (default: ${DEFAULT-VALUE})")
        int pings;

        @Override
        public Integer call() {
            return print(run, List.of(CeilingReport.standalone(run, records, size, pings)));
        }
    }

    @Command(
            name = "p3",
            mixinStandardHelpOptions = true,
            description = {
                "replay speed: (a) P2's recorded log "
                        + "replayed in process, events/s; with --incident, (b) an incident recorded by the live suite first (a "
                        + "Deployment whose pods take 30 s of grace, a 5 s preStop sleep and 10 s to exit, deleted in the "
                        + "foreground while a second one rolls out), simulated time over wall time"
            })
    static final class P3 implements Callable<Integer> {
        @Mixin
        RunOptions run;

        @Option(names = "--log", description = "the recorded log, JSON Lines (default: the one p2 recorded last)")
        Path log;

        @Option(names = "--runs", defaultValue = "3", description = "(default: ${DEFAULT-VALUE})")
        int runs;

        @Option(
                names = "--tolerance",
                defaultValue = "PT0.1S",
                description =
                        "how far a step's delay from its cause may differ from the recording's (default: 100 ms, as podfall replay's)")
        Duration tolerance;

        @Option(names = "--incident", description = "record the incident (b) with the live suite, then replay it")
        boolean incident;

        @Option(
                names = "--replicas",
                defaultValue = "1000",
                description = "with --incident: the deleted Deployment's replicas (default: ${DEFAULT-VALUE})")
        int replicas;

        @Option(
                names = "--rolled",
                defaultValue = "100",
                description = "with --incident: the rolled-out Deployment's replicas (default: ${DEFAULT-VALUE})")
        int rolled;

        @Override
        public Integer call() {
            if (incident) {
                return print(
                        run,
                        List.of(ReplaySpeed.run(
                                IncidentBench.record(run, replicas, rolled),
                                runs,
                                tolerance,
                                ReplaySpeed.Goal.REAL_TIME)));
            }
            return print(
                    run,
                    List.of(ReplaySpeed.run(
                            log != null ? log : MassDeletionBench.logFile(run, "p2"),
                            runs,
                            tolerance,
                            ReplaySpeed.Goal.EVENTS_PER_SECOND)));
        }
    }

    @Command(
            name = "footprint",
            mixinStandardHelpOptions = true,
            description = "where a pod's live heap goes: each core's state, and each controller's, in process (JOL)")
    static final class Footprint implements Callable<Integer> {
        @Mixin
        RunOptions run;

        @Option(names = "--replicas", defaultValue = "10000", description = "(default: ${DEFAULT-VALUE})")
        int replicas;

        @Option(names = "--nodes", defaultValue = "100", description = "(default: ${DEFAULT-VALUE})")
        int nodes;

        @Override
        public Integer call() {
            return print(run, List.of(FootprintBench.run(replicas, nodes)));
        }
    }

    @Command(name = "startup", mixinStandardHelpOptions = true, description = "the local suite to all healthy")
    static final class Startup implements Callable<Integer> {
        @Mixin
        RunOptions run;

        @Option(names = "--runs", defaultValue = "3", description = "(default: ${DEFAULT-VALUE})")
        int runs;

        @Override
        public Integer call() {
            return print(run, List.of(StartupBench.run(run, runs)));
        }
    }

    @Command(
            name = "all",
            mixinStandardHelpOptions = true,
            description =
                    "startup, p1, p2 with the ceiling, p3 over p2's log, p4, footprint at p2's size: each printed as soon as it is done")
    static final class All implements Callable<Integer> {
        @Mixin
        RunOptions run;

        @Option(names = "--deletions", defaultValue = "1000", description = "p1's (default: ${DEFAULT-VALUE})")
        int deletions;

        @Option(names = "--replicas", defaultValue = "10000", description = "p2's (default: ${DEFAULT-VALUE})")
        int replicas;

        @Option(names = "--nodes", defaultValue = "100", description = "p2's (default: ${DEFAULT-VALUE})")
        int nodes;

        @Option(names = "--p4-replicas", defaultValue = "100000", description = "(default: ${DEFAULT-VALUE})")
        int p4Replicas;

        @Option(names = "--p4-nodes", defaultValue = "1000", description = "(default: ${DEFAULT-VALUE})")
        int p4Nodes;

        @Option(names = "--time-scale", defaultValue = "1", description = "p2's and p4's (default: ${DEFAULT-VALUE})")
        double timeScale;

        @Override
        public Integer call() {
            List<Supplier<List<Report>>> workloads = List.of(
                    () -> List.of(StartupBench.run(run, 3)),
                    () -> List.of(
                            new LatencyBench(run, deletions, Integer.parseInt(LatencyBench.DEFAULT_WARMUP)).run()),
                    () -> new MassDeletionBench(run, "p2", replicas, nodes, timeScale, 1_000_000, -1, 1000, -1).run(),
                    () -> List.of(ReplaySpeed.run(
                            MassDeletionBench.logFile(run, "p2"),
                            3,
                            Duration.ofMillis(100),
                            ReplaySpeed.Goal.EVENTS_PER_SECOND)),
                    () -> new MassDeletionBench(run, "p4", p4Replicas, p4Nodes, timeScale, 1_000_000, 0, 0, 0).run(),
                    () -> List.of(FootprintBench.run(replicas, nodes)));
            List<Report> all = new ArrayList<>();
            for (Supplier<List<Report>> w : workloads) {
                List<Report> reports = w.get();
                all.addAll(reports);
                if (!run.json) {
                    reports.forEach(r -> System.out.println(r.text()));
                }
            }
            if (run.json) {
                print(run, all);
            }
            return all.stream().allMatch(Report::correct) ? 0 : 1;
        }
    }
}
