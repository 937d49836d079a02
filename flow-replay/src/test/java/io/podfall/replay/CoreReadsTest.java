package io.podfall.replay;

import static io.podfall.replay.Scenarios.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.podfall.apiserver.ApiServerConfiguration;
import io.podfall.apiserver.registry.Registry;
import io.podfall.controller.ControllerManagerConfiguration;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.core.Core;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.runtime.RuntimeConfiguration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@link Core#reads} against what each core does: over recorded logs, a core handed every event decides exactly what
 * the same core handed only the types it reads decides, and nothing at all on the others. The services' adapters hand a
 * core only what it reads, so a type it needs but does not declare would be lost there, silently.
 */
class CoreReadsTest {

    @Test
    void everyCoreDecidesNothingOnWhatItDoesNotReadAndTheSameOnWhatItDoes() {
        Map<String, Supplier<Core<?>>> cores = Map.of(
                "apiserver", () -> new ApiServerConfiguration().newRegistry(),
                "controller manager", ControllerManagerConfiguration.DEFAULTS::newControllerManager,
                "kubelet", () -> Scenarios.node1().get(0).configuration().newKubelet(),
                "runtime", () -> new RuntimeConfiguration().newNodeServices());
        List<List<Event>> logs = List.of(
                Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log(),
                Scenarios.run(Scenarios.node1(), Scenarios.graceShortened()).log(),
                Scenarios.run(Scenarios.node1(), deploymentDeletedInTheForeground())
                        .log());
        assertEquals(
                4,
                logs.get(2).stream()
                        .filter(e -> e.is(EventTypes.OBJECT_REMOVED))
                        .count(),
                "the cascade ran: the two pods, the ReplicaSet and the Deployment removed");

        for (List<Event> log : logs) {
            cores.forEach((name, core) -> {
                List<String> unread = compare(name, core.get(), core.get(), log);
                assertTrue(unread.size() < log.size(), name + " reads some of the log");
            });
        }
    }

    @Test
    void eachServiceReadsWhatItsKubernetesCounterpartHears() {
        Registry apiserver = new Registry();
        assertTrue(apiserver.reads(EventTypes.DELETION_REQUESTED));
        assertEquals(false, apiserver.reads(EventTypes.OBJECT_REMOVED), "its own facts are its effects");
        Core<?> runtime = new RuntimeConfiguration().newNodeServices();
        assertTrue(runtime.reads(EventTypes.STOP_CONTAINER_REQUESTED));
        assertTrue(runtime.reads(EventTypes.NODE_UNPUBLISH_VOLUME_REQUESTED));
        assertEquals(false, runtime.reads(EventTypes.CONTAINER_EXITED));
        assertEquals(false, runtime.reads(EventTypes.OBJECT_MARKED_TERMINATING));
    }

    /** Runs the log through both; returns the types {@code all} was handed that {@code read} was not. */
    @SuppressWarnings("unchecked")
    private static <S> List<String> compare(String name, Core<?> allCore, Core<?> readCore, List<Event> log) {
        Core<S> all = (Core<S>) allCore;
        Core<S> read = (Core<S>) readCore;
        S allState = all.newState();
        S readState = read.newState();
        List<String> unread = new ArrayList<>();
        for (Event e : log) {
            Effects everything = all.handle(allState, e, e.time());
            if (read.reads(e.type())) {
                Effects some = read.handle(readState, e, e.time());
                assertEquals(everything, some, name + " on " + e.type() + " " + e.id());
            } else {
                unread.add(e.type());
                assertTrue(everything.isEmpty(), name + " does not read " + e.type() + " yet decided " + everything);
            }
        }
        return unread;
    }

    /** A Deployment of two replicas deleted in the foreground: the controllers' whole cascade. */
    private static List<Input> deploymentDeletedInTheForeground() {
        var deployment = new DeploymentBuilder()
                .withNewMetadata()
                .withName("web")
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withReplicas(2)
                .withNewSelector()
                .addToMatchLabels("app", "web")
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", "web")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
        String subject = Subjects.of("default", "deployments", "web");
        return List.of(
                new Input.ApiServerStart(T0),
                new Input.KubeletStart(0, T0),
                new Input.Request(Event.request(
                        "00000000-0000-4000-8000-000000000001",
                        Registry.SOURCE,
                        EventTypes.CREATION_REQUESTED,
                        subject,
                        T0.plusSeconds(1),
                        null,
                        new CreationRequest("deployments", "default", Json.tree(deployment)))),
                new Input.Request(Event.request(
                        "00000000-0000-4000-8000-000000000002",
                        Registry.SOURCE,
                        EventTypes.DELETION_REQUESTED,
                        subject,
                        T0.plusSeconds(20),
                        null,
                        new DeletionRequest(
                                "deployments",
                                "default",
                                "web",
                                new DeleteOptionsBuilder()
                                        .withPropagationPolicy("Foreground")
                                        .build()))));
    }
}
