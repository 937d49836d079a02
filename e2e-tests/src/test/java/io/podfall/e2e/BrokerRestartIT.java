package io.podfall.e2e;

import static io.podfall.e2e.SuiteClient.first;
import static io.podfall.model.event.EventTypes.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.broker.Broker;
import io.podfall.broker.KafkaBroker;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.Suite;
import io.podfall.model.event.Event;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The broker goes down while a pod terminates, and comes back on the same port with its data: the services reconnect by
 * themselves, the process's exit that fell into the outage is appended once the broker is back, and the deletion
 * completes with every step on the log exactly once (idempotent producers, effects matched by id).
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class BrokerRestartIT {

    @Test
    void aDeletionInFlightCompletesAcrossABrokerRestartWithNothingTwice(Broker broker, Suite suite)
            throws InterruptedException {
        assumeTrue(
                broker instanceof KafkaBroker,
                "a container broker comes back on other ports; this restarts the JVM broker");
        KafkaBroker kafka = (KafkaBroker) broker;
        SuiteClient pods = new SuiteClient(suite);
        String name = "across-broker-restart";
        pods.createRunning(new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .addToAnnotations("podfall.io/exit-delay-seconds", "6")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build());
        pods.delete(name, 30);
        pods.eventsOf(name, CONTAINER_SIGNALLED, Duration.ofSeconds(30));

        kafka.stop();
        Thread.sleep(2000);
        kafka.start(Duration.ofSeconds(60));

        List<Event> events = pods.eventsOf(name, SANDBOX_REMOVED, Duration.ofSeconds(120));
        List<Event> deletion = events.subList(events.indexOf(first(events, DELETION_REQUESTED, null)), events.size());
        assertEquals(
                2,
                deletion.stream().filter(e -> e.is(OBJECT_MARKED_TERMINATING)).count(),
                "the graceful marking and the final delete's grace 0, each once, in " + deletion);
        for (String once : List.of(
                POD_TERMINATION_STARTED,
                CONTAINER_SIGNALLED,
                CONTAINER_EXITED,
                SANDBOX_STOPPED,
                POD_TERMINATED,
                OBJECT_REMOVED,
                SANDBOX_REMOVED)) {
            assertEquals(1, deletion.stream().filter(e -> e.is(once)).count(), once + " once in " + deletion);
        }
        long exitMillis = Duration.between(
                        first(deletion, CONTAINER_SIGNALLED, "SIGTERM").time(),
                        first(deletion, CONTAINER_EXITED, null).time())
                .toMillis();
        assertEquals(
                6,
                Math.round(exitMillis / 1000.0),
                "the process exited when it would have, though the broker was down then: " + exitMillis + " ms");
        assertEquals(
                404, pods.api.get("/api/v1/namespaces/default/pods/" + name).code());
    }
}
