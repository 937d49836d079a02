package io.podfall.replay;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.podfall.apiserver.ApiServerConfiguration;
import io.podfall.apiserver.registry.Registry;
import io.podfall.controller.ControllerManager;
import io.podfall.controller.ControllerManagerConfiguration;
import io.podfall.kubelet.Kubelet;
import io.podfall.kubelet.KubeletConfiguration;
import io.podfall.model.core.Core;
import io.podfall.runtime.NodeServices;
import io.podfall.runtime.RuntimeConfiguration;
import java.util.List;
import java.util.Set;

/**
 * The cores hold no framework type (design.md, "Deterministic cores, thin adapters"), so the replay engine runs the
 * very classes the services run. Read from the bytecode of the service jars, whose own dependencies flow-replay leaves
 * out: a type is seen by its name, whether its class is on the classpath or not.
 */
@AnalyzeClasses(
        packages = {
            "io.podfall.model",
            "io.podfall.apiserver",
            "io.podfall.controller",
            "io.podfall.kubelet",
            "io.podfall.runtime"
        },
        importOptions = {ImportOption.DoNotIncludeTests.class, CoreBoundaryTest.NoTestJars.class})
class CoreBoundaryTest {
    /** The frameworks, and flow-adapter, the services' Kafka adapter. */
    private static final String[] FRAMEWORKS = {
        "io.quarkus..",
        "io.vertx..",
        "org.apache.kafka..",
        "io.smallrye..",
        "org.eclipse.microprofile..",
        "jakarta.enterprise..",
        "jakarta.inject..",
        "jakarta.ws.rs..",
        "io.micrometer..",
        "io.podfall.adapter.."
    };
    /** The API server's HTTP layer. */
    private static final String ADAPTER_PACKAGE = "io.podfall.apiserver.rest..";
    /** The adapters that sit beside a core in a service's top package, with their nested classes. */
    private static final Set<String> ADAPTERS = Set.of(
            "io.podfall.apiserver.ApiServerProducer",
            "io.podfall.apiserver.SystemNamespacesBootstrap",
            "io.podfall.controller.ControllerManagerProducer",
            "io.podfall.kubelet.KubeletProducer",
            "io.podfall.kubelet.NodeRegistration",
            "io.podfall.runtime.RuntimeProducer",
            "io.podfall.runtime.RuntimeGauges");

    private static final DescribedPredicate<JavaClass> CORE = not(resideInAPackage(ADAPTER_PACKAGE))
            .and(DescribedPredicate.describe(
                    "not an adapter " + ADAPTERS,
                    c -> !ADAPTERS.contains(c.getName().split("\\$", 2)[0])))
            .as("are in a core (flow-model, or a service's but %s and %s)", ADAPTER_PACKAGE, ADAPTERS);

    @ArchTest
    static final ArchRule coresUseNoFramework = noClasses()
            .that(CORE)
            .should()
            .dependOnClassesThat(resideInAnyPackage(FRAMEWORKS))
            .allowEmptyShould(false)
            .because("a core is a pure state machine that the services and the replay engine run alike");

    /** The rule is not vacuous: it sees the cores, their factories and flow-model. */
    @ArchTest
    static void theRuleSeesTheCores(JavaClasses classes) {
        for (Class<?> core : List.of(
                Core.class,
                Registry.class,
                ApiServerConfiguration.class,
                ControllerManager.class,
                ControllerManagerConfiguration.class,
                Kubelet.class,
                KubeletConfiguration.class,
                NodeServices.class,
                RuntimeConfiguration.class)) {
            assertTrue(classes.contain(core) && CORE.test(classes.get(core)), core + " is not checked as a core");
        }
    }

    /**
     * Each exception is an adapter, and the rule sees what an adapter imports though flow-replay has no framework
     * class: a core that imported the same would fail it.
     */
    @ArchTest
    static void theExceptionsAreAdapters(JavaClasses classes) {
        for (String adapter : ADAPTERS) {
            assertTrue(
                    classes.get(adapter).getDirectDependenciesFromSelf().stream()
                            .anyMatch(d -> resideInAnyPackage(FRAMEWORKS).test(d.getTargetClass())),
                    adapter + " uses no framework: it is a core, not an exception");
        }
    }

    /** flow-model's test-jar: fixtures, not a core. */
    static final class NoTestJars implements ImportOption {
        @Override
        public boolean includes(Location location) {
            return !location.contains("-tests.jar");
        }
    }
}
