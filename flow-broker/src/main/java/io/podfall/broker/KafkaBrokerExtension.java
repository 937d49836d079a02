package io.podfall.broker;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;

/**
 * JUnit 5 extension every end-to-end test uses for its broker: one real Kafka broker per test run (random
 * ports, fresh data), shared by all test classes and stopped when the run ends. Test methods and constructors
 * get it as a {@link KafkaBroker} parameter.
 */
public class KafkaBrokerExtension implements BeforeAllCallback, ParameterResolver {

    @Override
    public void beforeAll(ExtensionContext context) {
        broker(context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == KafkaBroker.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return broker(context);
    }

    private static KafkaBroker broker(ExtensionContext context) {
        return context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(Running.class, k -> new Running(), Running.class).broker;
    }

    /** Closed by JUnit with the root context, at the end of the run. */
    private static final class Running implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        final KafkaBroker broker;

        Running() {
            try {
                broker = KafkaBroker.at(Files.createTempDirectory("podfall-kafka-"), 0).start(Duration.ofSeconds(60));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void close() {
            broker.stop();
        }
    }
}
