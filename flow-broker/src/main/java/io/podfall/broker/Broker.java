package io.podfall.broker;

/** A running Kafka broker, as a test sees it: where to reach it, and how to stop it. */
public interface Broker extends AutoCloseable {
    String bootstrapServers();

    @Override
    void close();
}
