package io.podfall.cli;

import io.podfall.cli.analysis.Check;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "check", mixinStandardHelpOptions = true,
        description = {"Check the invariants of pod deletion over the whole log; each finding names the events that prove it:",
                "  removed-while-running  a pod left the store while a container of it ran (a warning after a force deletion)",
                "  killed-before-grace    SIGKILL before the pod's grace period ran out",
                "  deletion-incomplete    a deletion with no ObjectRemoved: its last step and what it waits for "
                        + "(a warning while the log ends less than 30 s after it)",
                "  ip-leaked              a removed pod's IP never released (no CNI DEL)",
                "  duplicate-side-effect  two SIGTERMs to one container, or two PodIPReleased for one sandbox"},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:no error (warnings may be printed)", "1:at least one error", "2:bad options",
                "3:the log could not be read"})
final class CheckCommand implements Callable<Integer> {
    @Mixin
    LogSource source;

    @Option(names = "--json", description = "print the findings as a JSON array")
    boolean json;

    @Override
    public Integer call() {
        List<Check.Finding> findings = Check.of(source.read());
        if (json) {
            System.out.println(Check.json(findings).toPrettyString());
        } else if (findings.isEmpty()) {
            System.out.println("no findings");
        } else {
            findings.forEach(f -> System.out.println(f.render()));
        }
        return Check.hasErrors(findings) ? 1 : 0;
    }
}
