package io.podfall.cli;

import io.podfall.cli.analysis.Timeline;
import io.podfall.cli.analysis.TimelineFollower;
import io.podfall.cli.log.EventLog;
import io.podfall.model.event.Event;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
        name = "timeline",
        mixinStandardHelpOptions = true,
        description = {
            "Print one flow (default: the latest deletion): every step in order, a line each: its offset from "
                    + "the request; how long after the previous phase boundary of its object it came, and the boundary it "
                    + "is, if one (request, terminating, endpoints removed, preStop, preStop done, SIGTERM, SIGKILL, exit, "
                    + "IP released, sandbox stopped, volume unpublished, final delete, gone), so each phase's duration is on "
                    + "the line that ends it; component, type, subject; what decided it (grace period, signal, exit code).",
            "With the clients' requests on the log, a deletion's timeline also shows each node's kube-proxy sync that "
                    + "dropped the pod (proxy.RulesSynced, with its lag after SIGTERM) and a line a window in which "
                    + "requests to the pod failed, by reason and node.",
            "With --follow, print it as it stands and then every new step as it reaches the topic, of it and of "
                    + "every flow that starts later (a client's delete; of --pod if given; or the --correlation), "
                    + "each under a 'flow ID' line, until Ctrl-C."
        },
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {
            "0:printed (with --follow: stopped by an interrupt)",
            "2:bad options",
            "3:the log could not be read, or no such flow"
        })
final class TimelineCommand implements Callable<Integer> {
    @Mixin
    LogSource source;

    @Mixin
    FlowSelection flow;

    @Option(
            names = {"-f", "--follow"},
            description = "stream new steps and flows from the topic until Ctrl-C")
    boolean follow;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (follow) {
            if (source.file != null) {
                throw new ParameterException(spec.commandLine(), "--follow reads the topic, not a --file");
            }
            follow(flow.follower(), out);
            return 0;
        }
        List<Event> all = source.read();
        out.print(Timeline.of(all, flow.correlationIn(all, source.name())).render());
        out.flush();
        return 0;
    }

    /**
     * Follows the topic until this thread is interrupted or the JVM shuts down (Ctrl-C): the shutdown hook stops the
     * consumer and waits until it is closed, so the broker sees the reader leave.
     */
    private void follow(TimelineFollower follower, PrintWriter out) {
        CountDownLatch closed = new CountDownLatch(1);
        try (EventLog events = new EventLog(source.log.bootstrap, source.log.topic)) {
            Thread hook = new Thread(
                    () -> {
                        events.stop();
                        awaitQuietly(closed);
                    },
                    "podfall-timeline-follow-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                events.follow(e -> print(out, follower.accept(e)), () -> print(out, follower.caughtUp()));
            } finally {
                removeQuietly(hook);
            }
        } finally {
            closed.countDown();
        }
    }

    private static void print(PrintWriter out, List<String> lines) {
        if (!lines.isEmpty()) {
            out.print(String.join("\n", lines) + "\n");
            out.flush();
        }
    }

    private static void awaitQuietly(CountDownLatch closed) {
        try {
            closed.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void removeQuietly(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running: it is what ended following
        }
    }
}
