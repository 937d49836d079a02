package io.podfall.replay;

import static io.podfall.model.event.EventTypes.CONTAINER_SIGNALLED;
import static io.podfall.model.event.EventTypes.GRACE_PERIOD_SHORTENED;
import static io.podfall.model.event.EventTypes.OBJECT_REMOVED;
import static io.podfall.model.event.EventTypes.SANDBOX_REMOVED;
import static io.podfall.replay.Scenarios.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.kubelet.nodestatus.NodeCapacity;
import io.podfall.kubelet.podworkers.Compat;
import io.podfall.kubelet.podworkers.KubeletTiming;
import io.podfall.model.event.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Replays under changed settings: the same inputs, every kubelet run with what {@code --set} says. */
class WhatIfTest {
    private static final Duration TOLERANCE = Duration.ofMillis(100);
    private static final Instant FIRST_DELETE = T0.plusSeconds(10);

    private static final List<Engine.KubeletSettings> FIXED =
            List.of(new Engine.KubeletSettings(List.of("node-1"), new Compat(true, false)));

    @Test
    void theSeedsShortenedGraceRecordedWithTheFixIsKilledAtTheFirstDeadlineByAReleasedKubelet() {
        // exported 10 s after the first delete: the deletion is over, and the 60 s are not
        List<Event> recorded = Scenarios.run(FIXED, Scenarios.graceShortened()).log().stream()
                .filter(e -> !e.time().isAfter(FIRST_DELETE.plusSeconds(10)))
                .toList();
        assertEquals(
                FIRST_DELETE.plusSeconds(6),
                kill(recorded),
                "recorded with the fix: killed again 5 s after the second request, 1 s after the first");

        Replay whatIf = whatIf(recorded, "podfall.kubelet.compat.shortened-grace-kills-again=false");

        assertFalse(whatIf.reproduces());
        assertEquals(
                FIRST_DELETE.plusSeconds(60),
                kill(whatIf.replayed()),
                "a released kubelet keeps the 60 s deadline, past the end of the recording: a what-if runs on until nothing is left");
        assertEquals("", shortened(whatIf.replayed()).path("compat").asText(), "no switch changed the decision");
        Event last = whatIf.replayed().get(whatIf.replayed().size() - 1);
        assertEquals(
                List.of(SANDBOX_REMOVED, FIRST_DELETE.plusSeconds(60)),
                List.of(last.type(), last.time()),
                "past the recording, the deletion's flows go on to their end, and nothing else (a node's Lease renewals)");
        assertEquals(last.time(), whatIf.until());
        assertTrue(
                whatIf.recording()
                        .notes()
                        .contains(
                                "what-if: podfall.kubelet.compat.shortened-grace-kills-again=false for every kubelet"),
                whatIf.recording().notes().toString());
    }

    @Test
    void theSeedsShortenedGraceRecordedByAReleasedKubeletIsKilledAbout5sLaterWithTheFix() {
        List<Event> recorded =
                Scenarios.run(Scenarios.node1(), Scenarios.graceShortened()).log();
        assertEquals(FIRST_DELETE.plusSeconds(60), kill(recorded));

        for (String fix : List.of(
                "kubelet.compat.shortened-grace-kills-again=true", "kubelet.compat.shortened-grace-ignored=false")) {
            Replay whatIf = whatIf(recorded, fix);
            assertEquals(FIRST_DELETE.plusSeconds(6), kill(whatIf.replayed()), fix);
            assertEquals(
                    Compat.SHORTENED_GRACE_KILLS_AGAIN,
                    shortened(whatIf.replayed()).path("compat").asText());
            assertFalse(whatIf.reproduces());
        }
    }

    @Test
    void aLogFromBeforeTheReleasedDefaultReplaysWithTheFixWhereItsKubeletHonouredAShortening() {
        List<Event> recorded = Scenarios.run(FIXED, Scenarios.graceShortened()).log().stream()
                .map(e -> e.is(GRACE_PERIOD_SHORTENED) ? withoutKillDeadlineAndCompat(e) : e)
                .toList();

        assertEquals(
                FIXED.get(0).compat(), Recording.of(recorded).kubelets().get(0).compat());
        List<Event> ignored = Scenarios.run(Scenarios.node1(), Scenarios.graceShortened()).log().stream()
                .map(e -> e.is(GRACE_PERIOD_SHORTENED) ? withOldSwitch(e) : e)
                .toList();
        assertEquals(Compat.NONE, Recording.of(ignored).kubelets().get(0).compat());
        assertEquals(List.of(), Recording.of(ignored).notes(), "the old name is known");
    }

    private static Event withoutKillDeadlineAndCompat(Event e) {
        ObjectNode data = e.data().deepCopy();
        data.remove("killDeadline");
        data.putNull("compat");
        return withData(e, data);
    }

    private static Event withOldSwitch(Event e) {
        ObjectNode data = e.data().deepCopy();
        data.remove("killDeadline");
        data.put("compat", Compat.SHORTENED_GRACE_IGNORED);
        return withData(e, data);
    }

    private static Event withData(Event e, ObjectNode data) {
        return new Event(
                e.id(),
                e.source(),
                e.type(),
                e.subject(),
                e.time(),
                e.correlationId(),
                e.causationId(),
                e.traceparent(),
                data);
    }

    private static com.fasterxml.jackson.databind.JsonNode shortened(List<Event> log) {
        return log.stream()
                .filter(e -> e.is(GRACE_PERIOD_SHORTENED))
                .findFirst()
                .orElseThrow()
                .data();
    }

    @Test
    void aSettingTheRecordingAlreadyHadReproducesIt() {
        List<Event> recorded =
                Scenarios.run(Scenarios.node1(), Scenarios.graceShortened()).log();

        Replay whatIf = whatIf(
                recorded,
                "podfall.kubelet.compat.shortened-grace-kills-again=false",
                "podfall.kubelet.compat.force-delete-uses-spec-grace=false");

        assertEquals(List.of(), whatIf.divergences());
        assertEquals(Replay.end(recorded), whatIf.until(), "nothing was left to do after the recording's end");
    }

    @Test
    void theEvictionGracePeriodOfAKubeletUnderNodePressureCanBeChanged() {
        // a pod with the default 30 s of grace evicted under memory pressure: the kubelet's override (30 s by
        // default) or the pod's own, whichever is shorter
        List<Input> inputs = List.of(
                new Input.ApiServerStart(T0),
                new Input.KubeletStart(0, T0),
                Scenarios.create(1, T0.plusSeconds(1), "stubborn", "podfall.io/on-sigterm", "ignore"),
                Scenarios.pressure(2, T0.plusSeconds(5), "memory"));
        List<Event> recorded = Scenarios.run(Scenarios.node1(), inputs).log();
        Instant term = signal(recorded, "SIGTERM");
        assertEquals(term.plusSeconds(30), kill(recorded));

        Replay whatIf = whatIf(recorded, "podfall.kubelet.eviction-max-pod-grace-period=10");

        assertEquals(term.plusSeconds(10), kill(whatIf.replayed()));
    }

    @Test
    void settingsAreTheServicesKeysWithOrWithoutTheirPrefixAndALaterOneWins() {
        Settings s = Settings.parse(List.of(
                "kubelet.compat.force-delete-uses-spec-grace=true",
                "podfall.kubelet.eviction-max-pod-grace-period=10",
                "podfall.kubelet.eviction-max-pod-grace-period=12"));

        assertEquals(new Settings(null, true, 12L, null, null, null, null, null, PodRewrite.NONE), s);
        assertEquals(
                "podfall.kubelet.compat.force-delete-uses-spec-grace=true, podfall.kubelet.eviction-max-pod-grace-period=12",
                s.toString());
        assertEquals(
                new Engine.KubeletSettings(
                        List.of("node-1"), new Compat(true, true), OptionalLong.of(12), KubeletTiming.FAST),
                s.applied(new Engine.KubeletSettings(List.of("node-1"), new Compat(true, false))),
                "what is not set stays as the recording implies");
        assertTrue(Settings.parse(List.of()).isEmpty());

        Settings timing = Settings.parse(List.of("kubelet.timing=upstream", "kubelet.container-gc-period=2s"));
        assertEquals(
                "podfall.kubelet.pleg-relist-period=1s, podfall.kubelet.container-gc-period=2s", timing.toString());
        assertEquals(
                new KubeletTiming(Duration.ofSeconds(1), Duration.ofSeconds(2)),
                timing.applied(new Engine.KubeletSettings(List.of("node-1"), Compat.NONE))
                        .timing());
    }

    @Test
    void aWhatIfCapacityIsLaidOverWhatEachNodeRegisteredWith() {
        Engine.KubeletSettings recorded = new Engine.KubeletSettings(
                List.of("node-1", "node-2"),
                Compat.NONE,
                OptionalLong.empty(),
                KubeletTiming.FAST,
                NodeCapacity.DEFAULT.overriding("node-2", NodeCapacity.parse("memory=4Gi")));
        Settings s = Settings.parse(List.of("kubelet.node-capacity=cpu=1"));

        NodeCapacity applied = s.applied(recorded).capacity();

        assertEquals("podfall.kubelet.node-capacity=cpu=1", s.toString());
        assertEquals(NodeCapacity.parse("cpu=1,memory=8Gi,pods=110"), applied.of("node-1"));
        assertEquals(NodeCapacity.parse("cpu=1,memory=4Gi,pods=110"), applied.of("node-2"));
        assertThrows(IllegalArgumentException.class, () -> Settings.parse(List.of("kubelet.node-capacity=4")));
    }

    @Test
    void anUnknownKeyOrABadValueIsRefusedSayingWhatWouldDo() {
        assertEquals(
                "unknown setting podfall.time-scale; a replay can set podfall.kubelet.compat.shortened-grace-kills-again, "
                        + "podfall.kubelet.compat.force-delete-uses-spec-grace, podfall.kubelet.eviction-max-pod-grace-period, "
                        + "podfall.kubelet.timing, podfall.kubelet.pleg-relist-period, podfall.kubelet.container-gc-period, "
                        + "podfall.kubelet.node-capacity, podfall.proxy.min-sync-period, podfall.proxy.sync-duration, "
                        + "podfall.pods.prestop-sleep-seconds, podfall.pods.drain-seconds",
                assertThrows(IllegalArgumentException.class, () -> Settings.parse(List.of("podfall.time-scale=10")))
                        .getMessage());
        assertEquals(
                "bad value for podfall.kubelet.compat.shortened-grace-ignored: 'yes' (true or false)",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> Settings.parse(List.of("kubelet.compat.shortened-grace-ignored=yes")))
                        .getMessage());
        assertEquals(
                "bad value for podfall.kubelet.eviction-max-pod-grace-period: '-1' (whole seconds, 0 or more)",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> Settings.parse(List.of("kubelet.eviction-max-pod-grace-period=-1")))
                        .getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> Settings.parse(List.of("kubelet.compat.shortened-grace-ignored")));
        assertEquals(
                "bad value for podfall.kubelet.pleg-relist-period: 'soon' (a duration: 500ms, 1s, 1m0s)",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> Settings.parse(List.of("kubelet.pleg-relist-period=soon")))
                        .getMessage());
    }

    /**
     * A kubelet's waits are on the Nodes it registered: a recording made with upstream's reproduces with them; the same
     * inputs with no waits (a what-if) end sooner.
     */
    @Test
    void aRecordingWithUpstreamsWaitsReproducesAndWithoutThemTheDeletionEndsSooner() {
        List<Engine.KubeletSettings> upstream = List.of(new Engine.KubeletSettings(
                List.of("node-1"), Compat.NONE, OptionalLong.empty(), KubeletTiming.UPSTREAM));
        List<Input> inputs = List.of(
                new Input.ApiServerStart(T0),
                new Input.KubeletStart(0, T0),
                Scenarios.create(1, T0.plusSeconds(1), "web", "podfall.io/on-sigterm", "exit"),
                Scenarios.delete(2, FIRST_DELETE, "web", 30));
        List<Event> recorded = Scenarios.run(upstream, inputs).log();
        assertEquals(
                KubeletTiming.UPSTREAM, Recording.of(recorded).kubelets().get(0).timing());
        assertEquals(List.of(), Replay.of(recorded, TOLERANCE).divergences(), "reproduced with the recording's waits");

        Replay fast = whatIf(recorded, "kubelet.timing=fast");
        Instant removedRecorded = removed(recorded);
        Instant removedFast = removed(fast.replayed());
        assertTrue(
                removedFast.isBefore(removedRecorded),
                "without the relist waits the pod goes sooner: " + removedFast + " vs " + removedRecorded);
    }

    private static Instant removed(List<Event> log) {
        return log.stream()
                .filter(e -> e.is(OBJECT_REMOVED))
                .reduce((a, b) -> b)
                .orElseThrow()
                .time();
    }

    private static Replay whatIf(List<Event> recorded, String... set) {
        return Replay.of(recorded, Replay.start(recorded), null, TOLERANCE, Settings.parse(List.of(set)));
    }

    private static Instant kill(List<Event> log) {
        return signal(log, "SIGKILL");
    }

    private static Instant signal(List<Event> log, String signal) {
        return log.stream()
                .filter(e -> e.is(CONTAINER_SIGNALLED)
                        && signal.equals(e.data().path("signal").asText()))
                .findFirst()
                .orElseThrow()
                .time();
    }
}
