package io.podfall.kubelet.proxy;

import static io.podfall.kubelet.testing.ApiFacts.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.podfall.kubelet.Kubelet;
import io.podfall.kubelet.KubeletConfiguration;
import io.podfall.kubelet.podworkers.PodWorkersState;
import io.podfall.model.event.Event;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProxyTimingTest {

    @Test
    void theTimingGoesOnTheNodesAKubeletRegistersAndReadsBackTheSame() {
        KubeletConfiguration configuration = KubeletConfiguration.defaults(List.of("node-1"));
        Kubelet kubelet = configuration.newKubelet();
        List<Event> registered =
                kubelet.podWorkers().registerNodes(kubelet.newState().of(PodWorkersState.class), T0);

        String annotation = registered
                .get(0)
                .data()
                .path("object")
                .path("metadata")
                .path("annotations")
                .path(ProxyTiming.ANNOTATION)
                .asText();
        assertEquals("min-sync-period=1s,sync-duration=100ms", annotation);
        assertEquals(ProxyTiming.UPSTREAM, ProxyTiming.ofAnnotation(annotation));

        ProxyTiming other = new ProxyTiming(Duration.ofMillis(2500), Duration.ZERO);
        assertEquals(other, ProxyTiming.ofAnnotation(other.annotation()));
    }

    @Test
    void aBadAnnotationIsNamed() {
        assertThrows(IllegalArgumentException.class, () -> ProxyTiming.ofAnnotation("min-sync-period"));
        assertThrows(IllegalArgumentException.class, () -> ProxyTiming.ofAnnotation("sync-duration=soon"));
    }
}
