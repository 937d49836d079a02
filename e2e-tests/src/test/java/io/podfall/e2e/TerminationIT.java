package io.podfall.e2e;

import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.log.EventLog;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.model.event.Event;
import io.podfall.model.event.Subjects;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;

import static io.podfall.model.event.EventTypes.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The node side of a deletion over Kafka, in simulated time read from the log: the preStop hook runs before
 * SIGTERM within the grace period, and a grace period shortened while the pod terminates moves the kill.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class TerminationIT {
    private static Suite suite;
    private static ApiClient api;

    @BeforeAll
    static void clients(Suite running) {
        suite = running;
        api = new ApiClient(suite.apiserverUrl());
    }

    private static void createRunning(Pod pod) {
        String name = pod.getMetadata().getName();
        assertEquals(201, api.post("/api/v1/namespaces/default/pods", pod).code());
        api.await("/api/v1/namespaces/default/pods/" + name,
                r -> r.code() == 200 && "Running".equals(r.body().path("status").path("phase").asText()),
                Duration.ofSeconds(60), name + " Running");
    }

    private static void delete(String name, long grace) {
        assertEquals(200, api.delete("/api/v1/namespaces/default/pods/" + name,
                new DeleteOptionsBuilder().withGracePeriodSeconds(grace).build()).code());
    }

    private static List<Event> eventsOf(String name) {
        String subject = Subjects.of("default", "pods", name);
        try (EventLog log = new EventLog(suite.bootstrapServers(), SuiteExtension.TOPIC)) {
            return log.readUntil(all -> all.stream().anyMatch(e -> e.is(SANDBOX_REMOVED) && subject.equals(e.subject())),
                            Duration.ofSeconds(90))
                    .stream().filter(e -> subject.equals(e.subject())).toList();
        }
    }

    private static Event first(List<Event> events, String type, String signal) {
        return events.stream().filter(e -> e.is(type) && (signal == null || signal.equals(e.data().path("signal").asText())))
                .findFirst().orElseThrow(() -> new AssertionError("no " + type + " " + (signal == null ? "" : signal)));
    }

    private static long seconds(Event from, Event to) {
        return Duration.between(from.time(), to.time()).toSeconds();
    }

    @Test
    void thePreStopHookRunsBeforeSigtermAndItsTimeCountsAgainstTheGracePeriod() {
        createRunning(new PodBuilder().withNewMetadata().withName("hooked").endMetadata()
                .withNewSpec().withTerminationGracePeriodSeconds(10L).addNewContainer().withName("app").withImage("nginx")
                .withNewLifecycle().withNewPreStop().withNewSleep().withSeconds(2L).endSleep().endPreStop().endLifecycle()
                .endContainer().endSpec().build());
        delete("hooked", 10);

        List<Event> events = eventsOf("hooked");
        Event hookStarted = first(events, PRE_STOP_HOOK_STARTED, null);
        Event hookFinished = first(events, PRE_STOP_HOOK_FINISHED, null);
        Event sigterm = first(events, CONTAINER_SIGNALLED, "SIGTERM");
        assertEquals(2, hookFinished.data().path("durationSeconds").asInt(), "the sleep hook runs its 2 s");
        assertEquals(2, seconds(first(events, OBJECT_MARKED_TERMINATING, null), hookFinished),
                "the hook starts when the kubelet sees the deletion and ends 2 s later");
        assertTrue(!hookStarted.time().isAfter(hookFinished.time()));
        assertTrue(!sigterm.time().isBefore(hookFinished.time()), "SIGTERM only after the hook");
        assertEquals(8, first(events, STOP_CONTAINER_REQUESTED, null).data().path("timeoutSeconds").asInt(),
                "the runtime gets what is left of the 10 s");
    }

    @Test
    void aGracePeriodShortenedWhileTerminatingKillsAtTheShorterDeadline() throws InterruptedException {
        createRunning(new PodBuilder().withNewMetadata().withName("shortened")
                .addToAnnotations("podfall.io/on-sigterm", "ignore").endMetadata()
                .withNewSpec().addNewContainer().withName("app").withImage("nginx").endContainer().endSpec().build());
        delete("shortened", 60);
        Thread.sleep(1000); // a second into the 60 s, the user runs out of patience
        delete("shortened", 5);

        List<Event> events = eventsOf("shortened");
        Event request = first(events, DELETION_REQUESTED, null);
        Event shortened = first(events, GRACE_PERIOD_SHORTENED, null);
        assertEquals(60, shortened.data().path("previousGracePeriodSeconds").asInt());
        assertEquals(5, shortened.data().path("gracePeriodSeconds").asInt());
        Event sigkill = first(events, CONTAINER_SIGNALLED, "SIGKILL");
        long killedAfter = seconds(request, sigkill);
        assertTrue(killedAfter >= 4 && killedAfter <= 6,
                "killed once the shortened deadline (the first request + 5 s) passed, not after 60 s: " + killedAfter + " s");
    }
}
