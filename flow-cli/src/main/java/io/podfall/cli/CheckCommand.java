package io.podfall.cli;

import io.podfall.cli.analysis.Check;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
        name = "check",
        mixinStandardHelpOptions = true,
        description = {
            "Check the invariants of pod deletion over the whole log; each finding names the events that prove it:",
            "  removed-while-running  a pod left the store while a container of it ran (a warning after a force deletion)",
            "  killed-before-grace    SIGKILL before the pod's grace period ran out",
            "  killed-though-exiting  SIGKILL although the process (its pod's annotations) would have exited within "
                    + "the grace period it was owed; says what was requested and what the kubelet honoured (a warning "
                    + "when a shorter grace period explains it: a force deletion, a second delete, an eviction)",
            "  in-endpoints-after-sigterm  a Service's Endpoints still listed the pod when it got SIGTERM (a warning); "
                    + "with the clients' requests on the log, how many to the pod failed after it and why (a note "
                    + "when none did)",
            "  deletion-incomplete    a deletion with no ObjectRemoved: its last step and what it waits for "
                    + "(a warning while the log ends less than 30 s after it)",
            "  finalizer-blocking     an object kept by finalizers longer than --finalizer-threshold after its "
                    + "final delete (a warning, with the finalizers)",
            "  ip-leaked              a removed pod's IP never released (no CNI DEL)",
            "  volume-leaked          a removed pod's CSI volume never unpublished, or never unstaged once no pod of "
                    + "the node used it (a warning while the log ends less than 30 s after the pod's last event)",
            "  duplicate-side-effect  two SIGTERMs to one container, or two PodIPReleased for one sandbox"
        },
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {
            "0:no error (warnings and notes may be printed)",
            "1:at least one error",
            "2:bad options",
            "3:the log could not be read"
        })
final class CheckCommand implements Callable<Integer> {
    @Mixin
    LogSource source;

    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "print the findings as a JSON array")
    boolean json;

    @Option(
            names = "--finalizer-threshold",
            paramLabel = "DURATION",
            defaultValue = "30s",
            converter = Durations.class,
            description = "how long finalizers may keep an object after its final delete (default: ${DEFAULT-VALUE}; "
                    + "500ms, 90s, 15m, PT1M)")
    Duration finalizerThreshold;

    @Override
    public Integer call() {
        List<Check.Finding> findings = Check.of(source.read(), finalizerThreshold);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(Check.json(findings).toPrettyString());
        } else if (findings.isEmpty()) {
            out.println("no findings");
        } else {
            findings.forEach(f -> out.println(f.render()));
        }
        out.flush();
        return Check.hasErrors(findings) ? 1 : 0;
    }
}
