package io.podfall.cli;

import io.podfall.cli.log.EventFile;
import io.podfall.model.event.Event;
import io.podfall.replay.Divergences;
import io.podfall.replay.Latency;
import io.podfall.replay.Replay;
import io.podfall.replay.ReplayReport;
import io.podfall.replay.Settings;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
        name = "replay",
        mixinStandardHelpOptions = true,
        description = {
            "Reproduce a recorded log in process: the four services' cores over an in-memory log on a virtual "
                    + "clock, fed the recording's inputs (client requests, the services' starts, the kubelets' nodes and the "
                    + "compat switches the log names) at their recorded times. Then, flow by flow along the causal chains, "
                    + "what diverges from the recording: MISSING and EXTRA events, events one component REORDERED, and "
                    + "TIMING (the delay from its cause) off by more than --tolerance.",
            "With --live, against running services: the client requests appended to the topic of a suite (--topic-prefix "
                    + "or --target-topic; the live topic only with --into-live) at the recorded pace or --speed, ids kept, "
                    + "stamped with the target's clock; then, once its services have finished the flows begun, the same "
                    + "comparison, flow by flow (unless --no-compare).",
            "With --set, a what-if: the same inputs under changed settings, and for each pod whose deletion went "
                    + "otherwise (or each flow) the recorded and the replayed timeline side by side, the steps that differ "
                    + "marked: - recorded only, + replayed only, ~ at another offset or with other details."
        },
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {
            "0:reproduced: no divergence (a what-if: the setting would not have changed the outcome)",
            "1:the replay diverged",
            "2:bad options, an unknown setting or a bad value, a refused target topic",
            "3:the recording could not be read"
        })
final class ReplayCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    RecordedLog log;

    @Option(
            names = "--since",
            paramLabel = "TIME",
            description =
                    "replay from there on, from the state the services held then (rebuilt from the log before it): "
                            + "RFC 3339, or +DURATION from the first event (default: the first event); with --live, the client "
                            + "requests from there on, and the target suite holds what it holds")
    String since;

    @Option(
            names = "--until",
            paramLabel = "TIME",
            description =
                    "stop there: RFC 3339, or +DURATION from the first event (default: the last event; with --set, "
                            + "when the flows begun by then end, at most an hour later; with --live, the last client request "
                            + "appended comes before it, and its flow is compared to its end)")
    String until;

    @Option(
            names = "--set",
            paramLabel = "KEY=VALUE",
            description = "a what-if: run every kubelet with this setting, whatever the recording implies; repeatable. "
                    + "Keys: podfall.kubelet.compat.shortened-grace-kills-again, podfall.kubelet.compat.force-delete-uses-spec-grace "
                    + "(true|false), podfall.kubelet.eviction-max-pod-grace-period (seconds); or rewrite the pods the "
                    + "recorded clients create or change (directly or in a Deployment's or ReplicaSet's template): "
                    + "pods.prestop-sleep-seconds (a preStop sleep on every container), pods.drain-seconds (the "
                    + "podfall.io/drain-seconds annotation); podfall. may be left out")
    List<String> set = List.of();

    @Option(
            names = "--tolerance",
            paramLabel = "DURATION",
            defaultValue = "100ms",
            description =
                    "how far a step's delay from its cause may differ, in simulated time (default: ${DEFAULT-VALUE})")
    String tolerance;

    @Option(
            names = "--latency",
            paramLabel = "MODE",
            defaultValue = "recorded",
            converter = LatencyConverter.class,
            description = "how long each event takes to reach the log and each service to read it: recorded (each "
                    + "service reads a recorded event at the delay it reacted to it in the recording, so every race "
                    + "resolves as recorded; the rest as model), model (each service at the median of its recorded "
                    + "delays for the event's type), zero (none: every race resolves in the engine's fixed order) "
                    + "(default: ${DEFAULT-VALUE})")
    Latency latency;

    @Option(
            names = "--output",
            paramLabel = "FILE",
            description = "also write the replayed log there (JSON Lines; "
                    + "with --live, the replayed flows as the target appended them)")
    Path output;

    @Mixin
    LiveReplayOptions live;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Settings settings;
        try {
            settings = Settings.parse(set);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        live.check(spec.commandLine(), settings);
        List<Event> recorded = log.read();
        Instant start = since == null ? Replay.start(recorded) : log.time(since, recorded);
        Instant end = until == null ? null : log.time(until, recorded);
        Duration allowed = log.duration(tolerance);
        if (live.enabled()) {
            return live.run(spec.commandLine(), log.bootstrap, recorded, start, end, allowed, output);
        }
        long started = System.nanoTime();
        Replay replay = Replay.ofExport(recorded, start, end, allowed, settings, latency);
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        Duration simulated = Duration.between(start, replay.until());
        out.printf(
                Locale.ROOT,
                "replayed %d events (recorded: %d) over %s of simulated time in %s: %.0f events/s, %.0fx real time%n",
                replay.replayed().size(),
                replay.recorded().size(),
                Divergences.seconds(simulated),
                Divergences.seconds(took),
                replay.replayed().size() / seconds(took),
                seconds(simulated) / seconds(took));
        out.print(
                settings.isEmpty()
                        ? ReplayReport.text(replay)
                        : ReplayReport.inputs(replay)
                                + SideBySide.text(replay, allowed)
                                + ReplayReport.verdict(replay));
        out.flush();
        if (output != null) {
            try (Writer w = Files.newBufferedWriter(output)) {
                EventFile.write(w, replay.replayed());
            }
        }
        return replay.reproduces() ? 0 : 1;
    }

    /** {@code recorded}, {@code model} or {@code zero}, as the option's help writes them. */
    static final class LatencyConverter implements CommandLine.ITypeConverter<Latency> {
        @Override
        public Latency convert(String value) {
            try {
                return Latency.valueOf(value.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException("not recorded, model or zero: " + value);
            }
        }
    }

    private static double seconds(Duration d) {
        return Math.max(d.toNanos(), 1) / 1e9;
    }
}
