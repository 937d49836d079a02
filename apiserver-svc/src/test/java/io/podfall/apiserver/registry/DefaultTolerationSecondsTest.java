package io.podfall.apiserver.registry;

import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.podfall.model.Json;
import io.podfall.model.apiserver.UpdateRequest;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The DefaultTolerationSeconds admission plugin on a pod's create and update. */
class DefaultTolerationSecondsTest extends RegistryFixture {

    private static Toleration toleration(String key, String effect, Long seconds) {
        return new TolerationBuilder()
                .withKey(key)
                .withOperator("Exists")
                .withEffect(effect)
                .withTolerationSeconds(seconds)
                .build();
    }

    private static final Toleration NOT_READY_300 = toleration("node.kubernetes.io/not-ready", "NoExecute", 300L);
    private static final Toleration UNREACHABLE_300 = toleration("node.kubernetes.io/unreachable", "NoExecute", 300L);

    private Pod created(Pod pod) {
        create("pods", "default", pod);
        return stored(pod.getMetadata().getName());
    }

    private static Pod withTolerations(Pod pod, Toleration... tolerations) {
        return new PodBuilder(pod)
                .editSpec()
                .withTolerations(tolerations)
                .endSpec()
                .build();
    }

    @Test
    void aPodWithoutTolerationsToleratesNotReadyAndUnreachableFor300Seconds() {
        Pod pod = created(aPod("web-1").build());

        assertEquals(List.of(NOT_READY_300, UNREACHABLE_300), pod.getSpec().getTolerations());
    }

    @Test
    void aPodsOwnUnreachableTolerationIsKeptAndOnlyNotReadyIsAdded() {
        Toleration own = toleration("node.kubernetes.io/unreachable", "NoExecute", 5L);

        Pod pod = created(withTolerations(aPod("web-1").build(), own));

        assertEquals(List.of(own, NOT_READY_300), pod.getSpec().getTolerations());
    }

    @Test
    void aTolerationWithoutKeyOrEffectCountsForBoth() {
        Toleration everything = new TolerationBuilder().withOperator("Exists").build();
        Toleration anyEffect = toleration("node.kubernetes.io/not-ready", null, null);

        assertEquals(
                List.of(everything),
                created(withTolerations(aPod("a").build(), everything))
                        .getSpec()
                        .getTolerations());
        assertEquals(
                List.of(anyEffect, UNREACHABLE_300),
                created(withTolerations(aPod("b").build(), anyEffect)).getSpec().getTolerations());
    }

    @Test
    void aNoScheduleTolerationOfTheKeyDoesNotCount() {
        Toleration noSchedule = toleration("node.kubernetes.io/unreachable", "NoSchedule", null);

        Pod pod = created(withTolerations(aPod("web-1").build(), noSchedule));

        assertEquals(
                List.of(noSchedule, NOT_READY_300, UNREACHABLE_300),
                pod.getSpec().getTolerations());
    }

    @Test
    void anUpdateWhoseBodyLacksTheDefaultTolerationsGetsThemAgainAndChangesNoSpec() {
        Pod pod = created(aPod("web-1").build());
        Pod body = new PodBuilder(pod)
                .editSpec()
                .withTolerations(List.of())
                .endSpec()
                .editMetadata()
                .addToLabels("tier", "web")
                .endMetadata()
                .build();

        var effects = handle(request(
                Registry.SOURCE,
                EventTypes.UPDATE_REQUESTED,
                Subjects.of("default", "pods", "web-1"),
                new UpdateRequest("pods", "default", "web-1", null, Json.tree(body))));

        assertEquals(List.of(EventTypes.OBJECT_UPDATED), types(effects));
        assertEquals(
                List.of(NOT_READY_300, UNREACHABLE_300),
                stored("web-1").getSpec().getTolerations());
    }
}
