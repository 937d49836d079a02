package io.podfall.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class HopsTest {
    private static final long T = 1_700_000_000_000_000L;

    private static Map<String, Long> byCategory(List<Hops.Segment> segments) {
        return segments.stream()
                .collect(Collectors.groupingBy(Hops.Segment::category, Collectors.summingLong(Hops.Segment::micros)));
    }

    @Test
    void eachHopIsSplitIntoKafkaThenTheServiceReceivingThenTheServiceDeciding() {
        // request handled at +2 ms, sent at +3; received by the reader at +5; the kubelet handles it at +6, sends at
        // +9;
        // received at +10, the API server handles it at +12 and sends at +13; the watch event arrives at +15
        List<Hops.Point> chain = List.of(
                new Hops.Point("apiserver.DeletionRequested", "/apiserver", T + 2_000, (T + 3_000) / 1000, T + 5_000),
                new Hops.Point(
                        "apiserver.DeletionRequested", "/kubelet/node-1", T + 6_000, (T + 9_000) / 1000, T + 10_000),
                new Hops.Point("apiserver.ObjectRemoved", "/apiserver", T + 12_000, (T + 13_000) / 1000, T + 14_000));

        List<Hops.Segment> segments = Hops.of(T, T + 15_000, chain);

        Map<String, Long> c = byCategory(segments);
        assertEquals(2_000, c.get(Hops.HTTP_IN));
        assertEquals(2_000 + 1_000, c.get(Hops.KAFKA), "+3 → +5 and +9 → +10");
        assertEquals(1_000 + 3_000, c.get("kubelet-svc: received → handled") + c.get("kubelet-svc: handled → sent"));
        assertEquals(
                1_000 + 2_000 + 1_000,
                c.get("apiserver-svc: handled → sent") + c.get("apiserver-svc: received → handled"));
        assertEquals(2_000, c.get(Hops.WATCH_OUT));
        assertEquals(
                15_000, segments.stream().mapToLong(Hops.Segment::micros).sum(), "the parts add up to the latency");
    }

    @Test
    void aReaderSlowerThanTheServiceLeavesTheServiceNoNegativeShare() {
        // the kubelet handled the request at +4, before the reader received it at +6
        List<Hops.Point> chain = List.of(
                new Hops.Point("apiserver.DeletionRequested", "/apiserver", T + 1_000, (T + 2_000) / 1000, T + 6_000),
                new Hops.Point("apiserver.ObjectRemoved", "/apiserver", T + 4_000, (T + 5_000) / 1000, T + 7_000));

        Map<String, Long> c = byCategory(Hops.of(T, T + 8_000, chain));

        assertEquals(2_000, c.get(Hops.KAFKA), "Kafka's share ends where the service began: +2 → +4");
        assertEquals(0, c.get("apiserver-svc: received → handled"));
    }

    @Test
    void aCreateTimeTruncatedToTheMillisecondBeforeItsCeTimeCountsAsNothing() {
        // handled at +2.7 ms, CreateTime +2 (the same millisecond)
        List<Hops.Point> chain = List.of(
                new Hops.Point("apiserver.DeletionRequested", "/apiserver", T + 2_700, (T + 2_700) / 1000, T + 4_000));

        List<Hops.Segment> segments = Hops.of(T, T + 5_000, chain);

        assertEquals(0, byCategory(segments).get("apiserver-svc: handled → sent"));
        assertEquals(5_000, segments.stream().mapToLong(Hops.Segment::micros).sum());
    }

    @Test
    void sourcesAreNamedByTheServiceThatAppendsThem() {
        assertEquals("runtime-svc", Hops.service("/csi/node-1"));
        assertEquals("runtime-svc", Hops.service("/runtime/node-7"));
        assertEquals("controller-svc", Hops.service("/controller/garbagecollector"));
        assertEquals("kubelet-svc", Hops.service("/kubelet/node-1"));
    }
}
