package io.podfall.e2e;

import static io.podfall.e2e.SuiteClient.first;
import static io.podfall.e2e.SuiteClient.seconds;
import static io.podfall.model.event.EventTypes.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.Suite;
import io.podfall.model.event.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The kubelet's compatibility switches, each turned on in a running suite, reproduce the behaviour of the older
 * kubelets they name, and the log says which switch decided: an incident recorded on such a node can be told from one
 * on a current node. The kubelet is restarted with the switches on, and back to the suite's settings after.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class CompatSwitchesIT {
    private static Suite suite;
    private static SuiteClient pods;

    @BeforeAll
    static void oldKubelet(Suite running) {
        suite = running;
        pods = new SuiteClient(running);
        suite.restart(
                "kubelet-svc",
                Map.of(
                        "podfall.kubelet.compat.shortened-grace-kills-again", "true",
                        "podfall.kubelet.compat.force-delete-uses-spec-grace", "true"));
    }

    @AfterAll
    static void currentKubelet() {
        suite.restart("kubelet-svc");
    }

    /** The seed scenario with the fix of PR #113883: 60 s of grace, then 5 s a second later, kills at about +6 s. */
    @Test
    void withShortenedGraceKillsAgainTheKubeletKillsAgainWithTheShorterGrace() throws InterruptedException {
        String name = "compat-shortened";
        pods.createRunning(stubborn(name, 60));
        pods.delete(name, 60);
        Thread.sleep(1000);
        pods.delete(name, 5);

        List<Event> events = pods.eventsOf(name, SANDBOX_REMOVED, Duration.ofSeconds(90));
        Event shortened = first(events, GRACE_PERIOD_SHORTENED, null);
        assertEquals(
                "shortened-grace-kills-again", shortened.data().path("compat").asText());
        Event sigkill = first(events, CONTAINER_SIGNALLED, "SIGKILL");
        Instant killDeadline =
                Instant.parse(shortened.data().path("killDeadline").asText());
        assertTrue(
                Duration.between(killDeadline, sigkill.time()).abs().toMillis() <= 100,
                "the second kill's deadline, 5 s from when the kubelet saw the shorter grace period: " + killDeadline
                        + ", SIGKILL at " + sigkill.time());
        long killedAfter = seconds(first(events, DELETION_REQUESTED, null), sigkill);
        assertTrue(killedAfter >= 5 && killedAfter <= 8, "killed about 5 s after the second request: " + killedAfter);
    }

    @Test
    void withForceDeleteUsesSpecGraceAForceDeletedPodGetsItsSpecsGracePeriodOnTheNode() {
        String name = "compat-force";
        pods.createRunning(stubborn(name, 5));
        pods.delete(name, 0);
        assertEquals(
                404, pods.api.get("/api/v1/namespaces/default/pods/" + name).code(), "gone from the API at once");

        List<Event> events = pods.eventsOf(name, SANDBOX_REMOVED, Duration.ofSeconds(90));
        Event started = first(events, POD_TERMINATION_STARTED, null);
        assertEquals(
                "force-delete-uses-spec-grace", started.data().path("compat").asText());
        assertEquals(5, started.data().path("gracePeriodSeconds").asInt(), "the spec's 5 s, not 1 s");
        long killedAfter = seconds(started, first(events, CONTAINER_SIGNALLED, "SIGKILL"));
        assertTrue(killedAfter >= 4 && killedAfter <= 6, "killed when the spec's 5 s ran out: " + killedAfter + " s");
    }

    /** A pod whose process ignores SIGTERM, so only the kill ends it. */
    private static Pod stubborn(String name, long specGrace) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .addToAnnotations("podfall.io/on-sigterm", "ignore")
                .endMetadata()
                .withNewSpec()
                .withTerminationGracePeriodSeconds(specGrace)
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build();
    }
}
