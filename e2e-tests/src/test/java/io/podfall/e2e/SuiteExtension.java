package io.podfall.e2e;

import io.podfall.broker.Broker;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.Suite;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The suite every end-to-end test drives: the four packaged services as processes, on the broker of
 * {@link KafkaBrokerExtension}, started once per test run and stopped when it ends. Test methods get it as a
 * {@link Suite} parameter; use it with {@code @ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})}. Its
 * kubelet waits for nothing ({@link Suite.Tuning#FAST_KUBELET}), so the orders the tests assert are exact; upstream's
 * waits have a class of their own ({@code KubeletTimingIT}).
 */
public class SuiteExtension implements ParameterResolver {
    static final String TOPIC = "podfall.events";

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == Suite.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Broker broker = KafkaBrokerExtension.broker(context);
        return context.getRoot()
                .getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(Running.class, k -> new Running(broker), Running.class)
                .suite;
    }

    private static final class Running implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        final Suite suite;

        Running(Broker broker) {
            try {
                suite = Suite.start(
                        new Suite.Options(
                                Path.of(System.getProperty("podfall.project.root", "..")),
                                Files.createTempDirectory("podfall-e2e-"),
                                broker.bootstrapServers(),
                                0,
                                0,
                                0,
                                TOPIC,
                                1.0,
                                Duration.ofSeconds(120)),
                        Suite.Tuning.FAST_KUBELET);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void close() {
            suite.close();
        }
    }
}
