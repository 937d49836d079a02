package io.podfall.cli;

import io.podfall.cli.log.EventFile;
import io.podfall.cli.log.TopicWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
        name = "import",
        mixinStandardHelpOptions = true,
        description = {
            "Append the events of an exported file to a topic, as the services write them: binary "
                    + "mode, keyed by namespace, in the file's order. The topic is created (1 partition) if missing.",
            "Refuses the live topic (podfall.topic, else PODFALL_TOPIC, else podfall.events: the setting the "
                    + "services read), whose services would act on the events, unless --into-live."
        },
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {
            "0:imported",
            "2:bad options, or the live topic without --into-live",
            "3:the file could not be read or the broker not reached"
        })
final class ImportCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--file", required = true, paramLabel = "FILE", description = "a file podfall export wrote")
    Path file;

    @Option(names = "--topic", required = true, paramLabel = "T", description = "the topic to append to")
    String topic;

    @Option(
            names = "--bootstrap",
            defaultValue = "127.0.0.1:9092",
            description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE})")
    String bootstrap;

    @Option(names = "--into-live", description = "allow appending to the live topic")
    boolean intoLive;

    @Override
    public Integer call() throws Exception {
        LiveTopic.refuseUnlessIntoLive(spec.commandLine(), topic, intoLive, "import into");
        EventFile.Contents c = EventFile.read(file);
        if (c.unreadable() > 0) {
            System.err.println(
                    "podfall: skipped " + c.unreadable() + " unreadable line(s) (first: " + c.firstProblem() + ")");
        }
        try (TopicWriter writer = new TopicWriter(bootstrap, topic)) {
            writer.createTopicIfMissing();
            writer.append(c.events());
        }
        System.out.println("imported " + c.events().size() + " events into " + topic);
        return 0;
    }
}
