package io.podfall.cli;

import io.podfall.cli.log.TopicWriter;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.host.NodeMachine;
import io.podfall.model.k8s.ResourceType;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
        name = "node",
        mixinStandardHelpOptions = true,
        description = {
            "Stop or start a simulated node's machine: appends host.NodeStopped or host.NodeStarted to the topic, "
                    + "as an operator's input that a replay re-injects at its time.",
            "A stopped node's kubelet does nothing for it (no Lease renewal, no status, no pod decision, no runtime "
                    + "request) while its containers keep running; started again, it finishes what it finds, as a "
                    + "restarted kubelet does."
        },
        subcommands = {NodeCommand.Stop.class, NodeCommand.Start.class},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:appended", "2:bad options", "3:the broker could not be reached"})
final class NodeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new ParameterException(
                spec.commandLine(), "say what to do: podfall node stop NODE, podfall node start NODE");
    }

    @Command(
            name = "stop",
            mixinStandardHelpOptions = true,
            description = "The node's machine stops: its kubelet is down or cut off, its containers keep running.")
    static final class Stop extends Append {
        Stop() {
            super(EventTypes.NODE_STOPPED, "stopped");
        }
    }

    @Command(
            name = "start",
            mixinStandardHelpOptions = true,
            description = "The node's machine starts again: its kubelet finishes what it finds.")
    static final class Start extends Append {
        Start() {
            super(EventTypes.NODE_STARTED, "started");
        }
    }

    /** Appends one host fact about a node, at the suite's simulated time. */
    abstract static class Append implements Callable<Integer> {
        /** A node's name: a DNS subdomain, as the API server validates it. */
        private static final Pattern NODE_NAME =
                Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

        private final String type;
        private final String done;

        @Spec
        CommandSpec spec;

        @Mixin
        LogOptions log;

        @Parameters(paramLabel = "NODE", description = "the node's name, as podfall.kubelet.nodes names it")
        String node;

        @Option(names = "--reason", paramLabel = "TEXT", description = "why, for the record")
        String reason;

        @Option(
                names = "--time-scale",
                paramLabel = "T",
                defaultValue = "1",
                description = "the suite's podfall.time-scale, so the event carries its simulated time "
                        + "(default: ${DEFAULT-VALUE})")
        double timeScale;

        @Option(
                names = "--time-origin",
                paramLabel = "TIME",
                description = "the suite's podfall.time-origin (RFC 3339), needed when --time-scale is not 1")
        String timeOrigin;

        Append(String type, String done) {
            this.type = type;
            this.done = done;
        }

        @Override
        public Integer call() {
            if (node.length() > 253 || !NODE_NAME.matcher(node).matches()) {
                throw new ParameterException(spec.commandLine(), "not a node name: " + node);
            }
            TargetClock clock = TargetClock.of(spec.commandLine(), timeScale, timeOrigin);
            Event fact = Event.request(
                    UUID.randomUUID().toString(),
                    "/host/" + node,
                    type,
                    Subjects.of("", ResourceType.NODES.plural(), node),
                    clock.now(),
                    null,
                    new NodeMachine(node, reason));
            try (TopicWriter writer = new TopicWriter(log.bootstrap, log.topic)) {
                writer.append(List.of(fact));
            }
            spec.commandLine().getOut().println("node " + node + " " + done + " (" + fact.time() + ")");
            return 0;
        }
    }
}
