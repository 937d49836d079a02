package io.podfall.broker;

/** A running Kafka broker, as a test sees it: where to reach it. */
public interface Broker {
    String bootstrapServers();
}
