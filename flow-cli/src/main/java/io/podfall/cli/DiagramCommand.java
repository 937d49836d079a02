package io.podfall.cli;

import io.podfall.cli.analysis.MermaidPage;
import io.podfall.cli.analysis.SequenceDiagram;
import io.podfall.model.event.Event;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
        name = "diagram",
        mixinStandardHelpOptions = true,
        description = {
            "Print one flow (default: the latest deletion) as a Mermaid sequenceDiagram: one arrow an "
                    + "event, from the component that sent it to the one that acts on it, labelled with its offset "
                    + "from the request. In a cascade (--deployment) the arrows are grouped per object, in causal order: "
                    + "a shaded block under a note naming the Deployment, the ReplicaSet, each pod (with the Endpoints "
                    + "update it caused), and an owner again, continued, once the dependents that held it are gone.",
            "With --html, also write a page that renders it offline (the Mermaid renderer is inlined)."
        },
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:printed", "2:bad options", "3:the log could not be read, or no such flow"})
final class DiagramCommand implements Callable<Integer> {
    @Mixin
    LogSource source;

    @Mixin
    FlowSelection flow;

    @Option(names = "--html", paramLabel = "FILE", description = "also write a self-contained HTML page")
    Path html;

    @Override
    public Integer call() throws IOException {
        List<Event> all = source.read();
        String id = flow.correlationIn(all, source.name());
        String mermaid = SequenceDiagram.of(all, id);
        System.out.print(mermaid);
        if (html != null) {
            Files.writeString(html, MermaidPage.html("podfall flow " + id, mermaid));
            System.err.println("podfall: wrote " + html);
        }
        return 0;
    }
}
