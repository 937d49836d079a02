package io.podfall.broker;

import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A Kafka broker in a container through Testcontainers' Kafka module, where a Docker engine is available. The image may
 * be a locally built stand-in for apache/kafka (configured the same way), declared a compatible substitute. Only loaded
 * when asked for, so code that never uses it needs no Testcontainers on its classpath.
 */
final class ContainerBroker implements Broker {
    private final KafkaContainer container;

    private ContainerBroker(KafkaContainer container) {
        this.container = container;
    }

    static ContainerBroker start(String image) {
        KafkaContainer c = new KafkaContainer(DockerImageName.parse(image).asCompatibleSubstituteFor("apache/kafka"));
        c.start();
        return new ContainerBroker(c);
    }

    @Override
    public String bootstrapServers() {
        return container.getBootstrapServers();
    }

    @Override
    public void close() {
        container.stop();
    }
}
