package io.podfall.cli;

import picocli.CommandLine.Option;

/** Where the event log is: the options every command that reads the topic shares. */
public final class LogOptions {
    @Option(
            names = "--bootstrap",
            defaultValue = "127.0.0.1:9092",
            description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE})")
    String bootstrap;

    @Option(
            names = "--topic",
            defaultValue = LiveTopic.OPTION_DEFAULT,
            description = "the event topic (default: ${DEFAULT-VALUE})")
    String topic;
}
