package io.podfall.replay;

import static io.podfall.replay.Scenarios.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.kubelet.nodestatus.NodeCapacity;
import io.podfall.kubelet.podworkers.Compat;
import io.podfall.kubelet.podworkers.KubeletTiming;
import io.podfall.kubelet.proxy.ProxyTiming;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The kube-proxies' timing is on the log: a recording replays with it, and a what-if changes it. */
class ProxyReplayTest {
    private static final Duration TOLERANCE = Duration.ofMillis(100);
    private static final ProxyTiming RECORDED = new ProxyTiming(Duration.ofSeconds(2), Duration.ofMillis(300));

    private static Engine.KubeletSettings kubelet(Optional<ProxyTiming> proxy) {
        return new Engine.KubeletSettings(
                List.of("node-1", "node-2"),
                Compat.NONE,
                OptionalLong.empty(),
                KubeletTiming.FAST,
                NodeCapacity.DEFAULT,
                proxy);
    }

    /** Three Services in a row: two sync at once (the burst), the third waits for the period. */
    private static List<Input> threeServices() {
        return List.of(
                new Input.ApiServerStart(T0),
                new Input.KubeletStart(0, T0),
                service(1, T0.plusSeconds(1), "web"),
                service(2, T0.plusSeconds(2), "api"),
                service(3, T0.plusMillis(2500), "db"));
    }

    private static Input service(int n, Instant at, String name) {
        ObjectNode service =
                Json.MAPPER.createObjectNode().put("apiVersion", "v1").put("kind", "Service");
        service.putObject("metadata").put("name", name).put("namespace", "default");
        ObjectNode spec = service.putObject("spec").put("type", "ClusterIP").put("clusterIP", "10.96.0." + (10 + n));
        spec.putArray("ports").addObject().put("port", 80).put("protocol", "TCP");
        return Scenarios.request(
                n,
                at,
                EventTypes.CREATION_REQUESTED,
                Subjects.of("default", "services", name),
                new CreationRequest("services", "default", service));
    }

    private static List<Instant> synced(List<Event> log, String node) {
        return log.stream()
                .filter(e -> e.is(EventTypes.PROXY_RULES_SYNCED) && e.source().equals("/proxy/" + node))
                .map(Event::time)
                .toList();
    }

    @Test
    void theProxiesTimingIsOnTheNodesTheKubeletRegistersAndTheReplayReproducesEverySync() {
        List<Event> recorded = Scenarios.run(List.of(kubelet(Optional.of(RECORDED))), threeServices())
                .log();
        List<Instant> times = synced(recorded, "node-1");
        assertEquals(3, times.size(), () -> times.toString());
        assertEquals(times, synced(recorded, "node-2"));
        Instant third = times.get(2);
        assertTrue(
                !third.isBefore(times.get(1).plus(RECORDED.minSyncPeriod())),
                "the third waits for the period after the second sync ended: " + times);

        assertEquals(
                Optional.of(RECORDED), Recording.of(recorded).kubelets().get(0).proxy());
        assertEquals(List.of(), Replay.of(recorded, TOLERANCE).divergences());
    }

    @Test
    void aWhatIfChangesTheProxiesTiming() {
        List<Event> recorded = Scenarios.run(List.of(kubelet(Optional.of(RECORDED))), threeServices())
                .log();
        Replay instant = Replay.of(
                recorded,
                Replay.start(recorded),
                null,
                TOLERANCE,
                Settings.parse(List.of("proxy.min-sync-period=0s", "proxy.sync-duration=0s")));

        List<Instant> recordedTimes = synced(recorded, "node-1");
        List<Instant> replayed = synced(instant.replayed(), "node-1");
        assertEquals(3, replayed.size());
        assertTrue(replayed.get(2).isBefore(recordedTimes.get(2)), replayed + " vs " + recordedTimes);
    }

    @Test
    void aKubeletRecordedWithoutProxiesReplaysWithoutThemAndASettingAddsThem() {
        List<Event> recorded = Scenarios.run(List.of(kubelet(Optional.empty())), threeServices())
                .log();
        assertEquals(List.of(), synced(recorded, "node-1"));
        assertEquals(Optional.empty(), Recording.of(recorded).kubelets().get(0).proxy());

        Settings set = Settings.parse(List.of("podfall.proxy.min-sync-period=2s"));
        assertEquals(
                Optional.of(new ProxyTiming(Duration.ofSeconds(2), ProxyTiming.UPSTREAM.syncDuration())),
                set.applied(kubelet(Optional.empty())).proxy());
        assertEquals(
                Optional.of(new ProxyTiming(Duration.ofSeconds(2), RECORDED.syncDuration())),
                set.applied(kubelet(Optional.of(RECORDED))).proxy());
        assertEquals("podfall.proxy.min-sync-period=2s", set.toString());
    }
}
