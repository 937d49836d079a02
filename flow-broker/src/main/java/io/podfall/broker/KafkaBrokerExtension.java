package io.podfall.broker;

import java.time.Duration;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension every end-to-end test uses for its broker: one real Kafka broker per test run, shared by all test
 * classes and stopped when the run ends. Test methods and constructors get it as a {@link Broker} parameter. By default
 * it is Apache Kafka's broker from the Maven Central jars in a JVM of its own (random ports, fresh data); with
 * {@code -Dpodfall.kafka.image=IMAGE} (or {@code PODFALL_KAFKA_IMAGE}) and a Docker engine, it is that image through
 * Testcontainers' Kafka module.
 */
public class KafkaBrokerExtension implements BeforeAllCallback, ParameterResolver {

    @Override
    public void beforeAll(ExtensionContext context) {
        broker(context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == Broker.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return broker(context);
    }

    /** The run's broker, started on first use; for other extensions that build on it. */
    public static Broker broker(ExtensionContext context) {
        return context.getRoot()
                .getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(Running.class, k -> new Running(), Running.class)
                .broker;
    }

    /** Closed by JUnit with the root context, at the end of the run. */
    private static final class Running implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        final Broker broker;

        Running() {
            String image = firstSet(System.getProperty("podfall.kafka.image"), System.getenv("PODFALL_KAFKA_IMAGE"));
            if (image != null) {
                broker = ContainerBroker.start(image);
                return;
            }
            broker = KafkaBroker.temporary("podfall-kafka-").start(Duration.ofSeconds(60));
        }

        private static String firstSet(String... values) {
            for (String v : values) {
                if (v != null && !v.isBlank()) {
                    return v;
                }
            }
            return null;
        }

        @Override
        public void close() {
            broker.close();
        }
    }
}
