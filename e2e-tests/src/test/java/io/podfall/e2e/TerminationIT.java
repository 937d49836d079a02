package io.podfall.e2e;

import static io.podfall.e2e.SuiteClient.first;
import static io.podfall.e2e.SuiteClient.seconds;
import static io.podfall.model.event.EventTypes.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.Suite;
import io.podfall.model.event.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The node side of a deletion over Kafka, in simulated time read from the log: the preStop hook runs before SIGTERM
 * within the grace period, and a grace period shortened while the pod terminates moves the kill.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class TerminationIT {
    private static SuiteClient pods;

    @BeforeAll
    static void clients(Suite running) {
        pods = new SuiteClient(running);
    }

    @Test
    void thePreStopHookRunsBeforeSigtermAndItsTimeCountsAgainstTheGracePeriod() {
        pods.createRunning(new PodBuilder()
                .withNewMetadata()
                .withName("hooked")
                .endMetadata()
                .withNewSpec()
                .withTerminationGracePeriodSeconds(10L)
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .withNewLifecycle()
                .withNewPreStop()
                .withNewSleep()
                .withSeconds(2L)
                .endSleep()
                .endPreStop()
                .endLifecycle()
                .endContainer()
                .endSpec()
                .build());
        pods.delete("hooked", 10);

        List<Event> events = pods.eventsOf("hooked", SANDBOX_REMOVED, Duration.ofSeconds(90));
        Event hookStarted = first(events, PRE_STOP_HOOK_STARTED, null);
        Event hookFinished = first(events, PRE_STOP_HOOK_FINISHED, null);
        Event sigterm = first(events, CONTAINER_SIGNALLED, "SIGTERM");
        assertEquals(2, hookFinished.data().path("durationSeconds").asInt(), "the sleep hook runs its 2 s");
        assertEquals(
                2,
                seconds(first(events, OBJECT_MARKED_TERMINATING, null), hookFinished),
                "the hook starts when the kubelet sees the deletion and ends 2 s later");
        assertTrue(!hookStarted.time().isAfter(hookFinished.time()));
        assertTrue(!sigterm.time().isBefore(hookFinished.time()), "SIGTERM only after the hook");
        assertEquals(
                8,
                first(events, STOP_CONTAINER_REQUESTED, null)
                        .data()
                        .path("timeoutSeconds")
                        .asInt(),
                "the runtime gets what is left of the 10 s");
    }

    /**
     * A force delete of a Terminating pod, with a released kubelet: the API server removes the pod at once (its grace-0
     * marking, then its removal), but the kill in flight keeps its first deadline on the node (#83916, #113712): the
     * process that ignores SIGTERM gets SIGKILL when the first 10 s run out, not after 1 s.
     */
    @Test
    void aForceDeleteOfATerminatingPodLeavesTheKillInFlightAtItsFirstDeadline() throws InterruptedException {
        pods.createRunning(SuiteClient.pod("forced", Map.of("podfall.io/on-sigterm", "ignore")));
        pods.delete("forced", 10);
        Thread.sleep(1000);
        pods.delete("forced", 0);
        assertEquals(404, pods.api.get("/api/v1/namespaces/default/pods/forced").code(), "gone from the API at once");

        List<Event> events = pods.eventsOf("forced", SANDBOX_REMOVED, Duration.ofSeconds(60));
        Event shortened = first(events, GRACE_PERIOD_SHORTENED, null);
        assertEquals(1, shortened.data().path("gracePeriodSeconds").asInt(), "the node's grace for a force delete");
        long killedAfter =
                seconds(first(events, DELETION_REQUESTED, null), first(events, CONTAINER_SIGNALLED, "SIGKILL"));
        assertTrue(killedAfter >= 9 && killedAfter <= 11, "killed when the first 10 s ran out: " + killedAfter + " s");
        assertTrue(
                events.stream()
                        .noneMatch(e -> e.is(DELETION_REQUESTED) && e.source().startsWith("/kubelet/")),
                "no final delete: the pod is gone already");
    }

    /**
     * Upstream #83916, #113712, as every released kubelet: the API server moves the deadline, the kill in flight keeps
     * the first one. (The fix, PR #113883, is a switch: CompatSwitchesIT; 60 s then 5 s by default: ReplayIT.)
     */
    @Test
    void aGracePeriodShortenedWhileTerminatingDoesNotReachTheKillInFlight() throws InterruptedException {
        pods.createRunning(new PodBuilder()
                .withNewMetadata()
                .withName("shortened")
                .addToAnnotations("podfall.io/on-sigterm", "ignore")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build());
        pods.delete("shortened", 12);
        Thread.sleep(1000); // a second into the 12 s, the user runs out of patience
        pods.delete("shortened", 2);

        List<Event> events = pods.eventsOf("shortened", SANDBOX_REMOVED, Duration.ofSeconds(90));
        Event request = first(events, DELETION_REQUESTED, null);
        Event shortened = first(events, GRACE_PERIOD_SHORTENED, null);
        assertEquals(12, shortened.data().path("previousGracePeriodSeconds").asInt());
        assertEquals(2, shortened.data().path("gracePeriodSeconds").asInt(), "the API server's deadline did move");
        assertEquals("", shortened.data().path("compat").asText());
        assertEquals(
                Instant.parse(shortened.data().path("killDeadline").asText()),
                Instant.parse(first(events, POD_TERMINATION_STARTED, null)
                        .data()
                        .path("deadline")
                        .asText()),
                "the kill keeps the first deadline, and the event says so");
        Event sigkill = first(events, CONTAINER_SIGNALLED, "SIGKILL");
        long killedAfter = seconds(request, sigkill);
        assertTrue(
                killedAfter >= 11 && killedAfter <= 13,
                "killed when the first 12 s ran out, not after 2 s: " + killedAfter + " s");
    }

    /**
     * A pod with a claim: its volume is unpublished after the sandbox stopped and before the pod is terminated; a slow
     * unmount keeps the pod Terminating, and the final delete waits for it; the node unstages the volume once no pod
     * uses it.
     */
    @Test
    void aSlowUnmountKeepsThePodTerminatingUntilTheVolumeIsUnpublished() throws InterruptedException {
        pods.createRunning(new PodBuilder()
                .withNewMetadata()
                .withName("mounted")
                .addToAnnotations("podfall.io/unmount-seconds", "3")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .addNewVolume()
                .withName("data")
                .withNewPersistentVolumeClaim()
                .withClaimName("data-mounted")
                .endPersistentVolumeClaim()
                .endVolume()
                .endSpec()
                .build());
        pods.delete("mounted", 10);

        List<Event> unmounting = pods.eventsOf("mounted", NODE_UNPUBLISH_VOLUME_REQUESTED, Duration.ofSeconds(60));
        assertTrue(unmounting.stream().noneMatch(e -> e.is(POD_TERMINATED)));
        pods.api.await(
                "/api/v1/namespaces/default/pods/mounted",
                r -> r.code() == 200
                        && List.of("Succeeded", "Failed")
                                .contains(r.body().path("status").path("phase").asText()),
                Duration.ofSeconds(30),
                "the pod still Terminating, its phase already terminal");

        List<Event> events = pods.eventsOf("mounted", SANDBOX_REMOVED, Duration.ofSeconds(90));
        List<String> order = events.stream()
                .filter(e -> !e.is(POD_STATUS_UPDATED)
                        || List.of("Succeeded", "Failed").contains(phase(e))) // the terminal status only
                .map(Event::type)
                .filter(t -> List.of(
                                SANDBOX_STOPPED, POD_STATUS_UPDATED, VOLUME_UNPUBLISHED, POD_TERMINATED, OBJECT_REMOVED)
                        .contains(t))
                .distinct()
                .toList();
        assertEquals(
                List.of(SANDBOX_STOPPED, POD_STATUS_UPDATED, VOLUME_UNPUBLISHED, POD_TERMINATED, OBJECT_REMOVED),
                order,
                "as SyncTerminatingPod: the terminal phase once the sandbox stopped, the delete after the unmount");
        assertEquals(
                3,
                seconds(first(events, NODE_UNPUBLISH_VOLUME_REQUESTED, null), first(events, VOLUME_UNPUBLISHED, null)),
                "the unmount took its 3 s");
        assertEquals(
                "default/data-mounted",
                first(events, VOLUME_UNSTAGED, null).data().path("volumeId").asText(),
                "unstaged from the node once its last pod let go");
    }

    /**
     * A preStop hook longer than the grace period is cut short when the grace period runs out, and StopContainer still
     * gets the 2 s floor: the kill comes 2 s after the deadline, not at it.
     */
    @Test
    void aPreStopHookLongerThanTheGracePeriodIsCutShortAndTheKillComesAfterTheTwoSecondFloor() {
        pods.createRunning(new PodBuilder()
                .withNewMetadata()
                .withName("long-hook")
                .addToAnnotations("podfall.io/on-sigterm", "ignore")
                .endMetadata()
                .withNewSpec()
                .withTerminationGracePeriodSeconds(3L)
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .withNewLifecycle()
                .withNewPreStop()
                .withNewSleep()
                .withSeconds(10L)
                .endSleep()
                .endPreStop()
                .endLifecycle()
                .endContainer()
                .endSpec()
                .build());
        pods.delete("long-hook", 3);

        List<Event> events = pods.eventsOf("long-hook", SANDBOX_REMOVED, Duration.ofSeconds(90));
        Event hook = first(events, PRE_STOP_HOOK_FINISHED, null);
        assertTrue(hook.data().path("gracePeriodExhausted").asBoolean(), "cut short by the 3 s grace period");
        assertEquals(
                2,
                first(events, STOP_CONTAINER_REQUESTED, null)
                        .data()
                        .path("timeoutSeconds")
                        .asInt(),
                "the 2 s floor");
        long killedAfter = Duration.between(
                        first(events, OBJECT_MARKED_TERMINATING, null).time(),
                        first(events, CONTAINER_SIGNALLED, "SIGKILL").time())
                .toMillis();
        assertTrue(
                killedAfter >= 4_900 && killedAfter < 6_000,
                "3 s of hook, then 2 s of StopContainer, counted from the deletion: " + killedAfter + " ms");
    }

    /** An image whose STOPSIGNAL is SIGQUIT (nginx's) gets SIGQUIT, not SIGTERM, and exits with 128 + 3. */
    @Test
    void anImagesStopSignalIsWhatTheRuntimeSendsFirst() {
        pods.createRunning(new PodBuilder()
                .withNewMetadata()
                .withName("quits")
                .addToAnnotations("podfall.io/stop-signal", "SIGQUIT")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build());
        pods.delete("quits", 10);

        List<Event> events = pods.eventsOf("quits", SANDBOX_REMOVED, Duration.ofSeconds(60));
        assertEquals(
                List.of("SIGQUIT"),
                events.stream()
                        .filter(e -> e.is(CONTAINER_SIGNALLED))
                        .map(e -> e.data().path("signal").asText())
                        .toList());
        assertEquals(
                131,
                first(events, CONTAINER_EXITED, null).data().path("exitCode").asInt());
    }

    /** The phase of the pod a PodStatusUpdated stored. */
    private static String phase(Event e) {
        return e.data().path("object").path("status").path("phase").asText();
    }
}
