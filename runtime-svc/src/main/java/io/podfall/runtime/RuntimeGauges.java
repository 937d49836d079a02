package io.podfall.runtime;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.podfall.adapter.LogProcessor;
import io.podfall.model.core.CompositeState;
import io.podfall.runtime.cri.RuntimeState;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.function.ToIntFunction;

/**
 * What the runtimes of every node hold, on {@code /q/metrics}: {@code podfall_runtime_sandboxes} and
 * {@code podfall_runtime_pod_ips} (IPs in use). Both are 0 once every pod is gone, so a benchmark (scripts/bench) reads
 * them to prove that a mass deletion leaked no sandbox and no IP.
 */
@Startup
@ApplicationScoped
public class RuntimeGauges {
    RuntimeGauges(LogProcessor processor, MeterRegistry registry) {
        gauge(
                registry,
                processor,
                "podfall.runtime.sandboxes",
                "pod sandboxes held, every node",
                RuntimeState::sandboxCount);
        gauge(registry, processor, "podfall.runtime.pod.ips", "pod IPs in use, every node", RuntimeState::ipsInUse);
    }

    private static void gauge(
            MeterRegistry registry,
            LogProcessor processor,
            String name,
            String description,
            ToIntFunction<RuntimeState> count) {
        // read under the processor's lock, so a scrape sees the state between two events
        Gauge.builder(
                        name,
                        processor,
                        p -> p.<CompositeState, Integer>read(
                                CompositeState.class, s -> count.applyAsInt(s.of(RuntimeState.class))))
                .description(description)
                .register(registry);
    }
}
