package io.podfall.cli;

import io.podfall.cli.log.EventFile;
import io.podfall.cli.log.EventLog;
import io.podfall.cli.log.TopicWriter;
import io.podfall.model.event.Event;
import io.podfall.replay.Divergences;
import io.podfall.replay.LiveReplay;
import io.podfall.replay.Replay;
import io.podfall.replay.ReplayReport;
import io.podfall.replay.Settings;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code replay --live}: the recording's client requests appended to the topic of a running suite at the recorded pace
 * ({@link LiveReplay}), then, once that suite's services have finished the flows they began, what they appended
 * compared with the recording.
 */
final class LiveReplayOptions {
    /** The options that mean nothing without --live. */
    private static final List<String> LIVE_ONLY = List.of(
            "--topic-prefix",
            "--target-topic",
            "--speed",
            "--into-live",
            "--no-compare",
            "--quiet",
            "--timeout",
            "--time-scale",
            "--time-origin");

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

    @Option(
            names = "--live",
            description =
                    "replay against running services: append the recording's client requests "
                            + "to the topic of a suite (--topic-prefix, --target-topic) instead of running the cores in process")
    boolean live;

    @Option(
            names = "--topic-prefix",
            paramLabel = "P",
            description =
                    "with --live: append to P followed by the live topic's name (replay-1. gives replay-1.podfall.events)")
    String topicPrefix;

    @Option(names = "--target-topic", paramLabel = "TOPIC", description = "with --live: append to this topic")
    String targetTopic;

    @Option(
            names = "--into-live",
            description = "with --live: allow appending to the live topic, whose services then act on the requests")
    boolean intoLive;

    @Option(
            names = "--speed",
            paramLabel = "N|max",
            defaultValue = "1",
            description =
                    "with --live: append each request at its recorded offset from the first divided by N; 0 or max: "
                            + "all at once (default: ${DEFAULT-VALUE}, the recorded pace on a suite at time scale 1)")
    String speed;

    @Option(names = "--no-compare", description = "with --live: only append the requests")
    boolean noCompare;

    @Option(
            names = "--quiet",
            paramLabel = "DURATION",
            defaultValue = "5s",
            converter = Durations.class,
            description =
                    "with --live: the flows have ended when, once they had time to go as recorded, none has a new "
                            + "step for this long, on the wall clock (default: ${DEFAULT-VALUE})")
    Duration quiet;

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            defaultValue = "10m",
            converter = Durations.class,
            description =
                    "with --live: compare the flows as they stand after waiting this long for them to end (default: ${DEFAULT-VALUE})")
    Duration timeout;

    @Option(
            names = "--time-scale",
            paramLabel = "T",
            defaultValue = "1",
            description =
                    "with --live: the target suite's podfall.time-scale, so the requests carry its simulated time "
                            + "(default: ${DEFAULT-VALUE})")
    double timeScale;

    @Option(
            names = "--time-origin",
            paramLabel = "TIME",
            description =
                    "with --live: the target suite's podfall.time-origin (RFC 3339), needed when --time-scale is not 1")
    String timeOrigin;

    /** Rejects what a live replay cannot do, before anything is read or written. */
    void check(CommandLine command, Settings settings) {
        if (!live) {
            LIVE_ONLY.stream()
                    .filter(command.getParseResult()::hasMatchedOption)
                    .findFirst()
                    .ifPresent(o -> {
                        throw new ParameterException(command, o + " needs --live");
                    });
            return;
        }
        if (!settings.isEmpty()) {
            throw new ParameterException(
                    command,
                    "--set is a what-if of the in-process replay; a live replay runs with "
                            + "the target suite's own settings");
        }
        if (topicPrefix != null && targetTopic != null) {
            throw new ParameterException(command, "give --topic-prefix or --target-topic, not both");
        }
        LiveTopic.refuseUnlessIntoLive(command, target(), intoLive, "replay into");
        speed(command);
        clock(command);
    }

    boolean enabled() {
        return live;
    }

    /** The topic appended to: --target-topic, else the prefix and the live topic's name, else the live topic. */
    String target() {
        return targetTopic != null ? targetTopic : (topicPrefix == null ? "" : topicPrefix) + LiveTopic.name();
    }

    /** --speed as a number: 0 for max. */
    double speed(CommandLine command) {
        double n;
        try {
            n = speed.equalsIgnoreCase("max") ? 0 : Double.parseDouble(speed);
        } catch (NumberFormatException e) {
            n = -1;
        }
        if (!(n >= 0) || Double.isInfinite(n)) {
            throw new ParameterException(
                    command,
                    "not a speed: " + speed + " (a number such as 1, 10 or 0.5; 0 or max: as fast as possible)");
        }
        return n;
    }

    private TargetClock clock(CommandLine command) {
        return TargetClock.of(command, timeScale, timeOrigin);
    }

    /**
     * Appends the client requests of {@code recorded} from {@code since} (to {@code until}, unless null) to the target
     * on {@code bootstrap}; then, unless --no-compare, waits for the flows they begin to end and prints how they
     * compare with the recording. Returns the exit code.
     */
    int run(
            CommandLine command,
            String bootstrap,
            List<Event> recorded,
            Instant since,
            Instant until,
            Duration tolerance,
            Path output)
            throws IOException, InterruptedException, TimeoutException {
        PrintWriter out = command.getOut();
        double n = speed(command);
        TargetClock clock = clock(command);
        String topic = target();
        List<Event> inputs = LiveReplay.inputs(recorded, since, until);
        if (inputs.isEmpty()) {
            throw new IllegalStateException(
                    "no client requests to replay from " + since + (until == null ? "" : " to " + until));
        }
        List<String> notes = new ArrayList<>();
        List<Event> appended;
        try (TopicWriter writer = new TopicWriter(bootstrap, topic)) {
            writer.createTopicIfMissing();
            notes.addAll(checkTarget(command, bootstrap, topic, inputs));
            appended = append(writer, inputs, n, clock);
        }
        Duration recordedSpan = Duration.between(
                inputs.get(0).time(), inputs.get(inputs.size() - 1).time());
        Duration took = Duration.between(
                appended.get(0).time(), appended.get(appended.size() - 1).time());
        String pace = n == 0 ? "as fast as possible" : "speed " + speed;
        notes.add(
                0,
                "live: " + inputs.size() + " client requests appended to " + topic + " at " + pace + " in "
                        + Divergences.seconds(took) + " of the target's time (recorded over "
                        + Divergences.seconds(recordedSpan) + ")");
        if (n != timeScale) {
            notes.add(
                    n == 0
                            ? "as fast as possible: the requests reach the target together, where they were recorded over "
                                    + Divergences.seconds(recordedSpan) + "; what that changes shows below"
                            : "speed " + speed + " on a target at time scale " + timeScale + ": the requests land "
                                    + timeScale / n
                                    + " times as far apart in its simulated time as recorded; what that changes shows below");
        }
        if (noCompare) {
            notes.forEach(note -> out.println("note: " + note));
            out.flush();
            return 0;
        }
        Set<String> flows = inputs.stream().map(Event::id).collect(Collectors.toSet());
        Instant expectedEnd = LiveReplay.expectedEnd(recorded, appended);
        out.printf(
                Locale.ROOT,
                "appended %d client requests to %s; waiting for their flows to end: past %s on the target's "
                        + "clock (as recorded), then %s without a step (at most %s) ...%n",
                appended.size(),
                topic,
                expectedEnd,
                Divergences.seconds(quiet),
                Divergences.seconds(timeout));
        out.flush();
        Ending ending = new Ending(flows, expectedEnd, clock);
        List<Event> target;
        try (EventLog log = new EventLog(bootstrap, topic)) {
            target = log.readUntil(ending::over, timeout);
        }
        if (!ending.ended) {
            notes.add("the flows had not ended after " + Divergences.seconds(timeout)
                    + " (--timeout): compared as they stood");
        }
        Replay replay = LiveReplay.compare(recorded, inputs, target, tolerance, notes);
        out.printf(
                Locale.ROOT,
                "replayed live: %d events in the replayed flows (recorded: %d)%n",
                replay.replayed().size(),
                replay.recorded().size());
        out.print(ReplayReport.text(replay));
        out.flush();
        if (output != null) {
            try (Writer w = Files.newBufferedWriter(output)) {
                EventFile.write(
                        w,
                        target.stream()
                                .filter(e -> flows.contains(e.correlationId()))
                                .toList());
            }
        }
        return replay.reproduces() ? 0 : 1;
    }

    /**
     * Refuses a target that holds any of the requests already (its services would take them as redelivered and do
     * nothing); says what else it holds.
     */
    private static List<String> checkTarget(CommandLine command, String bootstrap, String topic, List<Event> inputs) {
        List<Event> held;
        try (EventLog log = new EventLog(bootstrap, topic)) {
            held = log.readToEnd(READ_TIMEOUT);
        }
        Set<String> ids = inputs.stream().map(Event::id).collect(Collectors.toSet());
        long again = held.stream().filter(e -> ids.contains(e.id())).count();
        if (again > 0) {
            throw new ParameterException(
                    command,
                    "refusing to replay into " + topic + ": it holds " + again
                            + " of these requests already (replayed into it before?), which its services would take as redelivered "
                            + "and not act on again; replay into a fresh topic (another --topic-prefix)");
        }
        if (held.isEmpty()) {
            return List.of(topic + " was empty: no suite has started on it yet (a service appends its start there); "
                    + "the requests wait there for one");
        }
        int others = LiveReplay.inputs(held, Instant.EPOCH, null).size();
        return others == 0
                ? List.of()
                : List.of(topic + " held " + others + " client requests of its own: the replayed "
                        + "flows come after theirs on the log; only the replayed flows are compared");
    }

    /**
     * Appends each input when it is due at speed {@code n}, stamped with the target's clock; those due together in one
     * batch.
     */
    private static List<Event> append(TopicWriter writer, List<Event> inputs, double n, TargetClock clock)
            throws InterruptedException {
        Instant first = inputs.get(0).time();
        // The wall clock, which the target's clock is made of, counted from the first request's stamp: a request is
        // stamped no earlier than it is due after that one.
        Instant start = null;
        List<Event> appended = new ArrayList<>();
        int next = 0;
        while (next < inputs.size()) {
            Instant wall = Instant.now();
            if (start != null) {
                Duration wait = LiveReplay.due(
                                Duration.between(first, inputs.get(next).time()), n)
                        .minus(Duration.between(start, wall));
                if (!wait.isNegative() && !wait.isZero()) {
                    Thread.sleep(wait.toMillis(), wait.toNanosPart() % 1_000_000);
                }
                wall = Instant.now();
            } else {
                start = wall;
            }
            Instant stamp = clock.at(wall);
            List<Event> batch = new ArrayList<>();
            for (Duration now = Duration.between(start, wall);
                    next < inputs.size()
                            && LiveReplay.due(
                                                    Duration.between(
                                                            first,
                                                            inputs.get(next).time()),
                                                    n)
                                            .compareTo(now)
                                    <= 0;
                    next++) {
                batch.add(inputs.get(next).at(stamp));
            }
            writer.append(batch);
            appended.addAll(batch);
        }
        return appended;
    }

    /**
     * Whether the replayed flows have ended, asked after each read of the target: once the target's clock is past where
     * they ended when recorded, when none has had a new step for --quiet.
     */
    private final class Ending {
        private final Set<String> flows;
        private final Instant expectedEnd;
        private final TargetClock clock;
        private int read;
        private long lastStep = System.nanoTime();
        private boolean ended;

        Ending(Set<String> flows, Instant expectedEnd, TargetClock clock) {
            this.flows = flows;
            this.expectedEnd = expectedEnd;
            this.clock = clock;
        }

        boolean over(List<Event> target) {
            for (; read < target.size(); read++) {
                if (flows.contains(target.get(read).correlationId())) {
                    lastStep = System.nanoTime();
                }
            }
            ended = !clock.now().isBefore(expectedEnd) && System.nanoTime() - lastStep >= quiet.toNanos();
            return ended;
        }
    }
}
